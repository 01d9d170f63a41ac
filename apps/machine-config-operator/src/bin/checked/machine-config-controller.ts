#!/usr/bin/env node
// The published `machine-config-controller` bin: checks the Node version before loading anything (see ../../node-version.ts), then
// runs the entry point ../machine-config-controller.ts.
import { assertNodeVersion } from '../../node-version.js';

assertNodeVersion('machine-config-controller');
await import('../machine-config-controller.js');
