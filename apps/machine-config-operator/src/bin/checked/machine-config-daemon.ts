#!/usr/bin/env node
// The published `machine-config-daemon` bin: checks the Node version before loading anything (see @keelson/kube/node-version), then
// runs the entry point ../machine-config-daemon.ts.
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('machine-config-daemon');
await import('../machine-config-daemon.js');
