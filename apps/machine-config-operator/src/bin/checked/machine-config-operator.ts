#!/usr/bin/env node
// The published `machine-config-operator` bin: checks the Node version before loading anything (see ../../node-version.ts), then
// runs the entry point ../machine-config-operator.ts.
import { assertNodeVersion } from '../../node-version.js';

assertNodeVersion('machine-config-operator');
await import('../machine-config-operator.js');
