#!/usr/bin/env node
// The published `cluster-version-operator` bin: checks the Node version before loading anything (see @keelson/kube/node-version), then
// runs the entry point ../cluster-version-operator.ts.
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('cluster-version-operator');
await import('../cluster-version-operator.js');
