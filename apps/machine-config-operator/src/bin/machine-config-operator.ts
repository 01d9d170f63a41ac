#!/usr/bin/env node
// machine-config-operator entry point (wiring only; see src/).
console.error("machine-config-operator: not implemented yet");
process.exitCode = 1;
