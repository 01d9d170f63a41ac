#!/usr/bin/env node
// The published `cluster-version-operator` bin: checks the Node version before loading anything (see ../../node-version.ts), then
// runs the entry point ../cluster-version-operator.ts.
import { assertNodeVersion } from '../../node-version.js';

assertNodeVersion('cluster-version-operator');
await import('../cluster-version-operator.js');
