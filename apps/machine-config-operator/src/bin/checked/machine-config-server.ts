#!/usr/bin/env node
// The published `machine-config-server` bin: checks the Node version before loading anything (see @keelson/kube/node-version), then
// runs the entry point ../machine-config-server.ts.
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('machine-config-server');
await import('../machine-config-server.js');
