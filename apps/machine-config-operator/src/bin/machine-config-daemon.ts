#!/usr/bin/env node
// machine-config-daemon entry point (wiring only; see src/).
console.error("machine-config-daemon: not implemented yet");
process.exitCode = 1;
