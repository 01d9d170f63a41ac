/**
 * One apply of a payload through `runPayload` with the real applier on the embedded API server: every manifest goes
 * through its kind's builder, the ClusterOperator one included (no special case in the sync). A degraded operator is
 * only reported in Initializing (upstream UpdateEffectReport) and fails the apply otherwise; applied objects get the
 * ClusterVersion owner reference, ClusterOperators do not.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { rm } from 'node:fs/promises';
import type { ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { parseManifestFile, type Manifest, type PayloadIssue } from '@keelson/release-payload';
import { ResourceApplier, UpdateError } from '@keelson/cluster-version';
import { runPayload, type SyncMode } from '../src/sync/run-payload.js';
import { currentGraphNode } from '../src/sync/graph-node-scope.js';
import { startCluster } from './helpers.js';

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  const cv = await client.request<{ metadata: { uid: string } }>(
    'GET',
    '/apis/config.openshift.io/v1/clusterversions/version',
  );
  OWNER.uid = cv.metadata.uid;
});
afterAll(async () => {
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const INCLUDE = `    include.release.openshift.io/self-managed-high-availability: "true"`;
// the ClusterVersion of startCluster owns the applied objects (with an absent owner the garbage collector would
// delete them)
const OWNER = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version', uid: '' };

function manifests(): Manifest[] {
  const issues: PayloadIssue[] = [];
  const cm = `apiVersion: v1
kind: ConfigMap
metadata:
  name: run-payload-demo
  namespace: openshift-cluster-version
  annotations:
${INCLUDE}
data:
  a: "1"
`;
  const co = `apiVersion: config.openshift.io/v1
kind: ClusterOperator
metadata:
  name: demo
  annotations:
${INCLUDE}
spec: {}
status:
  versions:
  - name: operator
    version: 4.18.3
`;
  const out = [
    ...parseManifestFile(cm, '0000_50_demo_01_configmap.yaml', 'manifests', issues),
    ...parseManifestFile(co, '0000_50_demo_02_clusteroperator.yaml', 'manifests', issues),
  ];
  expect(issues).toEqual([]);
  return out;
}

function run(applier: ResourceApplier, mode: SyncMode, list = manifests()): ReturnType<typeof runPayload> {
  return runPayload({
    manifests: list,
    mode,
    attempt: 0,
    applier,
    owner: OWNER,
    facts: { profile: 'self-managed-high-availability' },
    backoff: { durationMs: 1, factor: 1, steps: 1, capMs: 1 },
    operatorSince: new Map(),
    signal: new AbortController().signal,
    log: nullLogger,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
}

describe('runPayload', () => {
  it('a degraded ClusterOperator is reported in Initializing and fails Updating; owners on objects, not on operators', async () => {
    const T = '2026-11-27T00:00:00Z';
    const created = await client.request<Record<string, unknown>>(
      'POST',
      '/apis/config.openshift.io/v1/clusteroperators',
      {
        body: { apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'demo' }, spec: {} },
      },
    );
    await client.request('PUT', '/apis/config.openshift.io/v1/clusteroperators/demo/status', {
      body: {
        ...created,
        status: {
          versions: [{ name: 'operator', version: '4.18.3' }],
          conditions: [
            { type: 'Available', status: 'True', lastTransitionTime: T },
            { type: 'Degraded', status: 'True', reason: 'Broken', message: 'broken', lastTransitionTime: T },
          ],
        },
      },
    });
    const applier = new ResourceApplier(client, nullLogger, { liveObjectCache: false });
    try {
      const init = await run(applier, 'initializing');
      expect(init.error).toBeNull();
      expect(init.done).toBe(2);
      const upd = await run(applier, 'updating');
      expect(upd.error).toBeInstanceOf(UpdateError);
      expect([(upd.error as UpdateError).reason, (upd.error as UpdateError).effect]).toEqual([
        'ClusterOperatorDegraded',
        'FailAfterInterval',
      ]);
    } finally {
      await applier.close();
    }
    const cm = await client.request<{ metadata: { ownerReferences?: unknown[] } }>(
      'GET',
      '/api/v1/namespaces/openshift-cluster-version/configmaps/run-payload-demo',
    );
    expect(cm.metadata.ownerReferences).toEqual([{ ...OWNER, controller: true }]);
    const co = await client.request<{ metadata: { ownerReferences?: unknown[] } }>(
      'GET',
      '/apis/config.openshift.io/v1/clusteroperators/demo',
    );
    expect(co.metadata.ownerReferences).toBeUndefined();
  });

  it('runs each graph node in its scope: every request of a node carries the index of its first manifest', async () => {
    const issues: PayloadIssue[] = [];
    const cm = (ns: string, name: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n  annotations:\n${INCLUDE}\n`;
    const list = [
      ...parseManifestFile(cm('openshift-cluster-version', 'scope-a'), '0000_10_alpha_01_cm.yaml', 'manifests', issues),
      ...parseManifestFile(cm('default', 'scope-b'), '0000_50_beta_01_cm.yaml', 'manifests', issues),
    ];
    expect(issues).toEqual([]);
    const seen: [string, number | undefined][] = [];
    const onStart = (m: unknown): void => {
      const req = (m as { request: ClientRequest }).request;
      seen.push([`${req.method} ${req.path}`, currentGraphNode()]);
    };
    subscribe('http.client.request.start', onStart);
    const applier = new ResourceApplier(client, nullLogger, { liveObjectCache: false });
    try {
      expect((await run(applier, 'initializing', list)).error).toBeNull();
      await client.request('GET', '/api/v1/namespaces/default/configmaps/scope-b');
    } finally {
      unsubscribe('http.client.request.start', onStart);
      await applier.close();
    }
    expect(seen).toContainEqual(['POST /api/v1/namespaces/openshift-cluster-version/configmaps', 1]);
    expect(seen).toContainEqual(['POST /api/v1/namespaces/default/configmaps', 2]);
    // outside runPayload no node
    expect(seen.at(-1)).toEqual(['GET /api/v1/namespaces/default/configmaps/scope-b', undefined]);
  });
});
