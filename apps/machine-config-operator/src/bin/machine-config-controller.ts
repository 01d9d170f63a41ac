#!/usr/bin/env node
// machine-config-controller entry point (wiring only; see src/).
console.error("machine-config-controller: not implemented yet");
process.exitCode = 1;
