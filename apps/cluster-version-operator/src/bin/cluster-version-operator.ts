#!/usr/bin/env node
// cluster-version-operator entry point (wiring only; see src/).
console.error("cluster-version-operator: not implemented yet");
process.exitCode = 1;
