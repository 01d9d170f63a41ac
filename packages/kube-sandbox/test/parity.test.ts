/**
 * Where clients can tell the sandbox from kube-apiserver: exact bodies, as kube-apiserver (1.26+) answers them
 * (each expectation names the upstream code path it follows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOpenShiftCrds } from '../src/index.js';
import { sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox({ openshiftCrds: ['ClusterVersion', 'MachineConfigPool'] });
});
afterAll(async () => {
  await c.sb.stop();
});

async function rawWatch(path: string): Promise<string> {
  const res = await fetch(`${c.sb.url}${path}`, { headers: { Authorization: `Bearer ${c.sb.token}` } });
  expect(res.status).toBe(200);
  return (await res.text()).trim();
}

describe('kube-apiserver parity', () => {
  it('discovery: custom resources list verbs in apiextensions-apiserver order, built-ins sorted', async () => {
    const mc = await c.req('GET', '/apis/machineconfiguration.openshift.io/v1');
    const pools = (mc.body.resources as { name: string; verbs: string[] }[]).filter((r) =>
      r.name.startsWith('machineconfigpools'),
    );
    expect(pools).toEqual([
      {
        name: 'machineconfigpools',
        singularName: 'machineconfigpool',
        namespaced: false,
        kind: 'MachineConfigPool',
        verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
        shortNames: ['mcp'],
        storageVersionHash: 'hxLDUtTOjtU=',
      },
      {
        name: 'machineconfigpools/status',
        singularName: '',
        namespaced: false,
        kind: 'MachineConfigPool',
        verbs: ['get', 'patch', 'update'],
      },
    ]);
    const core = await c.req('GET', '/api/v1');
    const cm = (core.body.resources as { name: string; verbs: string[] }[]).find((r) => r.name === 'configmaps');
    expect(cm?.verbs).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    // the value a real cluster serves for configmaps (sha256 of "/v1/ConfigMap", first 8 bytes)
    expect(cm).toMatchObject({ storageVersionHash: 'qFsyl6wFWjQ=' });
  });

  it('structural schema: type errors report the JSON type as the value and no "null" in the declared type', async () => {
    const r = await c.req('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: 'x', channel: 5 },
      status: {},
    });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      // the CRD has CEL rules, which a type error keeps from running (apiextensions-apiserver hasBlockingErr)
      message:
        'ClusterVersion.config.openshift.io "version" is invalid: [spec.channel: Invalid value: "integer": spec.channel in body must be of type string: "integer", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
      reason: 'Invalid',
      details: {
        name: 'version',
        group: 'config.openshift.io',
        kind: 'ClusterVersion',
        causes: [
          {
            reason: 'FieldValueTypeInvalid',
            message: 'Invalid value: "integer": spec.channel in body must be of type string: "integer"',
            field: 'spec.channel',
          },
          {
            reason: 'FieldValueInvalid',
            message:
              'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
            field: '<nil>',
          },
        ],
      },
      code: 422,
    });
    // a nullable array (kernelArguments: array, nullable) given a string: "array", not "array,null"
    await installOpenShiftCrds(c.sb, ['MachineConfig']);
    const mc = await c.req('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigs', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '99-x' },
      spec: { kernelArguments: 'nosmt' },
    });
    expect(mc.status).toBe(422);
    expect(mc.body.message).toBe(
      'MachineConfig.machineconfiguration.openshift.io "99-x" is invalid: spec.kernelArguments: Invalid value: "string": spec.kernelArguments in body must be of type array: "string"',
    );
  });

  it('a failing JSON-patch test operation is a generic 422 Invalid with empty details', async () => {
    const created = await c.req('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: { paused: false },
    });
    expect(created.status).toBe(201);
    const r = await c.req(
      'PATCH',
      '/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker',
      [
        { op: 'test', path: '/spec/paused', value: true },
        { op: 'replace', path: '/spec/paused', value: true },
      ],
      'application/json-patch+json',
    );
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });

  it('lists of custom resources always carry metadata.continue (empty on the last page)', async () => {
    await c.req('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'master' },
      spec: {},
    });
    const all = await c.req('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools');
    expect(Object.keys(all.body as object)).toEqual(['apiVersion', 'items', 'kind', 'metadata']);
    expect(all.body.metadata).toEqual({ continue: '', resourceVersion: all.body.metadata.resourceVersion });
    const page1 = await c.req('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools?limit=1');
    expect(page1.body.metadata.continue).not.toBe('');
    expect(page1.body.metadata.remainingItemCount).toBe(1);
    const page2 = await c.req(
      'GET',
      `/apis/machineconfiguration.openshift.io/v1/machineconfigpools?limit=1&continue=${encodeURIComponent(page1.body.metadata.continue as string)}`,
    );
    expect(page2.body.metadata).toEqual({ continue: '', resourceVersion: page1.body.metadata.resourceVersion });
    expect(
      [...page1.body.items, ...page2.body.items].map((i: { metadata: { name: string } }) => i.metadata.name),
    ).toEqual(['master', 'worker']);
    // built-in lists keep the typed ListMeta (no empty continue)
    const ns = await c.req('GET', '/api/v1/namespaces');
    expect(ns.body.metadata.continue).toBeUndefined();
  });

  it('a watch from a resourceVersion older than the watch window gets a 410 Expired ERROR event', async () => {
    const list = await c.req('GET', '/api/v1/namespaces/default/configmaps');
    const out = await rawWatch('/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1&timeoutSeconds=1');
    // the window starts where the sandbox finished bootstrapping (like a watch cache's initial list)
    const oldest = out.match(/\((\d+)\)/)?.[1];
    expect(Number(oldest)).toBeGreaterThan(1);
    expect(Number(oldest)).toBeLessThanOrEqual(Number(list.body.metadata.resourceVersion));
    expect(JSON.parse(out)).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: 1 (${oldest!})`,
        reason: 'Expired',
        code: 410,
      },
    });
    // from the list's resourceVersion the watch starts normally
    const ok = await rawWatch(
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.body.metadata.resourceVersion as string}&timeoutSeconds=1`,
    );
    expect(ok).toBe('');
  });

  it('anonymous requests are system:anonymous: public info allowed, everything else 403 as the authorizer phrases it', async () => {
    const get = async (path: string, method = 'GET'): Promise<{ status: number; body: unknown }> => {
      const res = await fetch(`${c.sb.url}${path}`, { method });
      return { status: res.status, body: await res.json().catch(() => null) };
    };
    expect((await get('/version')).status).toBe(200);
    expect(await get('/api/v1/namespaces/default/configmaps')).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
        reason: 'Forbidden',
        details: { kind: 'configmaps' },
        code: 403,
      },
    });
    expect((await get('/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker')).body).toMatchObject({
      message:
        'machineconfigpools.machineconfiguration.openshift.io "worker" is forbidden: User "system:anonymous" cannot get resource "machineconfigpools" in API group "machineconfiguration.openshift.io" at the cluster scope',
      details: { name: 'worker', group: 'machineconfiguration.openshift.io', kind: 'machineconfigpools' },
    });
    expect((await get('/api/v1/namespaces/default/configmaps/x', 'DELETE')).body).toMatchObject({
      message: expect.stringContaining('cannot delete resource "configmaps"'),
    });
    expect((await get('/api/v1/watch/namespaces/default/pods')).body).toMatchObject({
      message: expect.stringContaining('cannot watch resource "pods"'),
    });
    expect(await get('/apis')).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'forbidden: User "system:anonymous" cannot get path "/apis"',
        reason: 'Forbidden',
        details: {},
        code: 403,
      },
    });
  });
});
