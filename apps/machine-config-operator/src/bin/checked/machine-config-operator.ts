#!/usr/bin/env node
// The published `machine-config-operator` bin: checks the Node version before loading anything (see @keelson/kube/node-version), then
// runs the entry point ../machine-config-operator.ts.
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('machine-config-operator');
await import('../machine-config-operator.js');
