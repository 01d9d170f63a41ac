#!/usr/bin/env node
// The published `machine-config-server` bin: checks the Node version before loading anything (see ../../node-version.ts), then
// runs the entry point ../machine-config-server.ts.
import { assertNodeVersion } from '../../node-version.js';

assertNodeVersion('machine-config-server');
await import('../machine-config-server.js');
