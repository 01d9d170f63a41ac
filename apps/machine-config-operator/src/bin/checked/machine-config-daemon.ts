#!/usr/bin/env node
// The published `machine-config-daemon` bin: checks the Node version before loading anything (see ../../node-version.ts), then
// runs the entry point ../machine-config-daemon.ts.
import { assertNodeVersion } from '../../node-version.js';

assertNodeVersion('machine-config-daemon');
await import('../machine-config-daemon.js');
