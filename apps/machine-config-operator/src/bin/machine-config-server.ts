#!/usr/bin/env node
// machine-config-server entry point (wiring only; see src/).
console.error("machine-config-server: not implemented yet");
process.exitCode = 1;
