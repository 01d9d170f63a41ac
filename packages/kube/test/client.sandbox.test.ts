import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClusterOperators,
  EventRecorder,
  Events,
  KubeApiError,
  KubeClient,
  KubeError,
  MachineConfigPools,
  isConflict,
  isNotFound,
  setCondition,
  type MachineConfigPool,
} from '../src/index.js';
import { CO_CRD, MCP_CRD, installCrd, sandboxWithClient } from './helpers.js';

let env: Awaited<ReturnType<typeof sandboxWithClient>>;
beforeAll(async () => {
  env = await sandboxWithClient();
  await installCrd(env.client, MCP_CRD, 'machineconfigpools', 'machineconfiguration.openshift.io');
  await installCrd(env.client, CO_CRD, 'clusteroperators', 'config.openshift.io');
});
afterAll(async () => env.stop());

describe('typed client against the sandbox (real HTTP)', () => {
  it('creates, reads, lists, updates status, patches and deletes a MachineConfigPool', async () => {
    const pools = env.client.resource(MachineConfigPools);
    const created = await pools.create({
      metadata: { name: 'worker', labels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } },
      spec: {
        machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } },
        paused: false,
      },
    });
    expect(created.apiVersion).toBe('machineconfiguration.openshift.io/v1');
    expect(created.metadata.uid).toBeTruthy();
    expect(created.metadata.generation).toBe(1);

    const got = await pools.get('worker');
    expect(got.spec.machineConfigSelector?.matchLabels).toEqual({ 'machineconfiguration.openshift.io/role': 'worker' });

    const { conditions } = setCondition(got.status?.conditions, {
      type: 'Updated',
      status: 'True',
      reason: '',
      message: 'All nodes are updated',
    });
    const withStatus: MachineConfigPool = { ...got, status: { machineCount: 3, readyMachineCount: 3, conditions } };
    const st = await pools.updateStatus(withStatus);
    expect(st.status?.machineCount).toBe(3);
    expect(st.metadata.generation).toBe(1); // status writes do not bump generation

    const patched = await pools.patch('worker', { spec: { paused: true } });
    expect(patched.spec.paused).toBe(true);
    expect(patched.metadata.generation).toBe(2);

    // stale resourceVersion -> typed 409
    const stale = await pools.update({ ...got, spec: { ...got.spec, paused: false } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    expect((stale as KubeApiError).reason).toBe('Conflict');
    expect((stale as KubeApiError).message).toContain('re-read the object');

    const list = await pools.listAll({ limit: 1 });
    expect(list.items.map((p) => p.metadata.name)).toEqual(['worker']);
    expect(list.metadata.resourceVersion).toBeTruthy();

    await pools.delete('worker');
    const missing = await pools.get('worker').catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect((missing as KubeApiError).status).toBe(404);
  });

  it('server-side applies a ClusterOperator status with a field manager', async () => {
    const cos = env.client.resource(ClusterOperators);
    await cos.create({ metadata: { name: 'machine-config' }, spec: {} });
    const applied = await cos.patch(
      'machine-config',
      {
        apiVersion: 'config.openshift.io/v1',
        kind: 'ClusterOperator',
        metadata: { name: 'machine-config' },
        status: { versions: [{ name: 'operator', version: '4.18.1' }] },
      },
      { type: 'apply', status: true, fieldManager: 'keelson-test', force: true },
    );
    expect(applied.status?.versions).toEqual([{ name: 'operator', version: '4.18.1' }]);
    expect(() => cos.patch('machine-config', {}, { type: 'apply' })).toThrow(/fieldManager/);
  });

  it('refuses namespaced calls without a namespace and bad kubeconfigs with typed errors', async () => {
    const events = env.client.resource(Events);
    expect(() => events.get('x')).toThrow(KubeError);
    expect(() => KubeClient.fromKubeconfigString(': : not yaml [')).toThrow(/kubeconfig/);
    const unauth = KubeClient.fromKubeconfigString(
      env.sandbox.kubeconfigYaml().replace(env.sandbox.token, 'wrong-token'),
    );
    const err = await unauth
      .resource(MachineConfigPools)
      .list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).status).toBe(401);
    await unauth.close();
  });

  it('builds a client from a kubeconfig file; unreadable or cluster-less files are KUBE_CONFIG errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-kubeconfig-'));
    try {
      const file = join(dir, 'kubeconfig');
      writeFileSync(file, env.sandbox.kubeconfigYaml());
      const c = KubeClient.fromKubeconfigFile(file, { userAgent: 'keelson-test' });
      expect((await c.resource(MachineConfigPools).list()).items).toBeInstanceOf(Array);
      await c.close();
      const missing = (() => {
        try {
          return KubeClient.fromKubeconfigFile(join(dir, 'absent'));
        } catch (e) {
          return e;
        }
      })();
      expect(missing).toBeInstanceOf(KubeError);
      expect((missing as KubeError).code).toBe('KUBE_CONFIG');
      expect((missing as KubeError).message).toMatch(
        /^cannot load kubeconfig .*absent.*pass --kubeconfig FILE or set KUBECONFIG$/,
      );
      const empty = join(dir, 'empty');
      writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
      expect(() => KubeClient.fromKubeconfigFile(empty)).toThrow(/has no current-context with a cluster/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records core/v1 Events and aggregates repeats into count', async () => {
    const cos = env.client.resource(ClusterOperators);
    const co = await cos.create({ metadata: { name: 'events-target' }, spec: {} });
    const rec = new EventRecorder(env.client, { component: 'keelson-test', host: 'node-a' });
    const e1 = await rec.warning(
      { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' },
      'Degraded',
      'pool worker is degraded',
    );
    await rec.warning(
      { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' },
      'Degraded',
      'pool worker is degraded',
    );
    const e3 = await rec.warning(
      { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' },
      'Degraded',
      'pool worker is degraded',
    );
    await rec.normal({ ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' }, 'Synced', 'all good');
    expect(e1?.metadata.namespace).toBe('default'); // cluster-scoped object -> default namespace
    expect(e3?.metadata.name).toBe(e1?.metadata.name);
    const list = await env.client.resource(Events).list({ namespace: 'default' });
    const mine = list.items.filter((e) => e.involvedObject.name === 'events-target');
    expect(mine.map((e) => [e.reason, e.type, e.count]).sort()).toEqual([
      ['Degraded', 'Warning', 3],
      ['Synced', 'Normal', 1],
    ]);
    const degraded = mine.find((e) => e.reason === 'Degraded');
    expect(degraded?.involvedObject).toMatchObject({
      kind: 'ClusterOperator',
      name: 'events-target',
      uid: co.metadata.uid,
    });
    expect(degraded?.source).toEqual({ component: 'keelson-test', host: 'node-a' });

    // the aggregated event vanished: the recorder creates a new one instead of failing
    await env.client.resource(Events).delete(degraded?.metadata.name ?? '', { namespace: 'default' });
    const again = await rec.warning(
      { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' },
      'Degraded',
      'pool worker is degraded',
    );
    expect(again?.count).toBe(1);
    expect(again?.metadata.name).not.toBe(degraded?.metadata.name);
  });

  it('names the event namespace in the involved object of a cluster-scoped object, as kube-apiserver requires (issue 18 defect 3)', async () => {
    const co = await env.client.resource(ClusterOperators).create({ metadata: { name: 'ns-target' }, spec: {} });
    const target = { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' };
    await env.client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-ev' } },
    });
    const rec = new EventRecorder(env.client, { component: 'keelson-test', clusterScopedNamespace: 'openshift-ev' });
    const e = await rec.normal(target, 'Synced', 'ok');
    expect(e?.metadata.namespace).toBe('openshift-ev');
    expect(e?.involvedObject).toMatchObject({ kind: 'ClusterOperator', name: 'ns-target', namespace: 'openshift-ev' });
    expect(rec.failures).toBe(0);
    // what the recorder wrote before: the strict server refuses it
    const refused = await env.client
      .request('POST', '/api/v1/namespaces/openshift-ev/events', {
        body: {
          metadata: { name: 'x.1' },
          involvedObject: { ...e?.involvedObject, namespace: '' },
          reason: 'Synced',
          message: 'ok',
          type: 'Normal',
        },
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).message).toContain(
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    );
  });

  it('logs a repeated event failure once, counts every one, and logs the recovery', async () => {
    const lines: { level: string; msg: string; fields?: Record<string, unknown> | undefined }[] = [];
    const logger = {
      debug: () => undefined,
      info: (msg: string, fields?: Record<string, unknown>) => lines.push({ level: 'info', msg, fields }),
      warn: (msg: string, fields?: Record<string, unknown>) => lines.push({ level: 'warn', msg, fields }),
      error: (msg: string, fields?: Record<string, unknown>) => lines.push({ level: 'error', msg, fields }),
      child() {
        return this;
      },
    };
    const co = await env.client.resource(ClusterOperators).create({ metadata: { name: 'fail-target' }, spec: {} });
    const target = { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' };
    const rec = new EventRecorder(env.client, {
      component: 'keelson-test',
      clusterScopedNamespace: 'not-there-yet',
      logger,
    });
    for (let i = 0; i < 3; i++) expect(await rec.warning(target, 'Degraded', 'broken')).toBeUndefined();
    expect(rec.failures).toBe(3);
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(lines[0]?.fields?.['reason']).toBe('Degraded');
    await env.client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'not-there-yet' } },
    });
    expect(await rec.warning(target, 'Degraded', 'broken')).toBeDefined();
    expect(lines.filter((l) => l.level === 'info')).toEqual([
      { level: 'info', msg: 'recording events again', fields: { failures: 3, notLogged: 2 } },
    ]);
  });
});
