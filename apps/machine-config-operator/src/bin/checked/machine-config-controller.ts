#!/usr/bin/env node
// The published `machine-config-controller` bin: checks the Node version before loading anything (see @keelson/kube/node-version), then
// runs the entry point ../machine-config-controller.ts.
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('machine-config-controller');
await import('../machine-config-controller.js');
