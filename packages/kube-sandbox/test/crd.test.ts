import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });
import { parse } from 'yaml';
import { crdDir, sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox();
});
afterAll(async () => {
  await c.sb.stop();
});

const crdFiles = readdirSync(crdDir).filter((f) => f.endsWith('.crd.yaml'));

describe('CustomResourceDefinitions', () => {
  it('accepts every real OpenShift CRD and reports Established/NamesAccepted', async () => {
    expect(crdFiles.length).toBeGreaterThanOrEqual(9);
    for (const f of crdFiles) {
      const doc = parse(readFileSync(new URL(f, crdDir), 'utf8'));
      const r = await c.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', doc);
      expect(r.status, `${f}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(201);
      const conds = (r.body.status.conditions as { type: string; status: string }[]).map(
        (x) => `${x.type}=${x.status}`,
      );
      expect(conds).toEqual(['NamesAccepted=True', 'Established=True']);
      expect(r.body.status.acceptedNames.plural).toBe(doc.spec.names.plural);
    }
  });
  it('serves the CRD versions in discovery', async () => {
    const apis = await c.req('GET', '/apis');
    const cfg = (apis.body.groups as { name: string; preferredVersion: unknown }[]).find(
      (g) => g.name === 'config.openshift.io',
    );
    expect(cfg!.preferredVersion).toEqual({ groupVersion: 'config.openshift.io/v1', version: 'v1' });
    const rl = await c.req('GET', '/apis/config.openshift.io/v1');
    expect(rl.body.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'clusterversions',
          singularName: 'clusterversion',
          namespaced: false,
          kind: 'ClusterVersion',
        }),
        {
          name: 'clusterversions/status',
          singularName: '',
          namespaced: false,
          kind: 'ClusterVersion',
          verbs: ['get', 'patch', 'update'],
        },
        expect.objectContaining({ name: 'clusteroperators', shortNames: ['co'] }),
      ]),
    );
    const mc = await c.req('GET', '/apis/machineconfiguration.openshift.io/v1');
    expect((mc.body.resources as { name: string }[]).map((r) => r.name)).toEqual(
      expect.arrayContaining(['machineconfigs', 'machineconfigpools', 'machineconfigpools/status']),
    );
  });
  it('validates, prunes and defaults custom objects', async () => {
    const bad = await c.req('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { channel: 5 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    expect(bad.body.message).toMatch(/^ClusterVersion.config.openshift.io "version" is invalid: /);
    expect((bad.body.details.causes as { field: string }[]).map((x) => x.field)).toEqual(
      expect.arrayContaining(['spec.clusterID', 'spec.channel']),
    );
    const ok = await c.req('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '9b2b4e3c-0b1a-4f9a-8d5e-2a1c3b4d5e6f', channel: 'stable-4.16', bogus: 'dropped' },
      status: { desired: { version: 'x' } },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.spec.bogus).toBeUndefined();
    expect(ok.body.status).toBeUndefined();
    expect(ok.body.metadata.generation).toBe(1);
    const strict = await c.req('POST', '/apis/config.openshift.io/v1/clusterversions?fieldValidation=Strict', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'v2' },
      spec: { clusterID: 'a', bogus: 1 },
    });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('strict decoding error: unknown field "spec.bogus"');
    const warn = await c.req('POST', '/apis/config.openshift.io/v1/clusterversions?fieldValidation=Warn', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'v3' },
      spec: { clusterID: 'a', bogus: 1 },
    });
    expect(warn.headers.get('warning')).toBe('299 - "unknown field \\"spec.bogus\\""');
  });
  it('applies status subresource semantics and bumps generation on spec changes only', async () => {
    const cur = (await c.req('GET', '/apis/config.openshift.io/v1/clusterversions/version')).body;
    const st = await c.req('PUT', '/apis/config.openshift.io/v1/clusterversions/version/status', {
      ...cur,
      spec: { clusterID: 'changed' },
      status: {
        availableUpdates: null,
        observedGeneration: 1,
        versionHash: 'abc',
        desired: { version: '4.16.1', image: 'quay.io/x@sha256:1' },
        history: [],
      },
    });
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect(st.body.spec.clusterID).toBe(cur.spec.clusterID);
    expect(st.body.status.versionHash).toBe('abc');
    expect(st.body.metadata.generation).toBe(1);
    const sp = await c.req(
      'PATCH',
      '/apis/config.openshift.io/v1/clusterversions/version',
      { spec: { channel: 'fast-4.16' }, status: { versionHash: 'ignored' } },
      'application/merge-patch+json',
    );
    expect(sp.body.metadata.generation).toBe(2);
    expect(sp.body.status.versionHash).toBe('abc');
    const jp = await c.req(
      'PATCH',
      '/apis/config.openshift.io/v1/clusterversions/version',
      [{ op: 'replace', path: '/spec/channel', value: 'candidate-4.16' }],
      'application/json-patch+json',
    );
    expect(jp.body.spec.channel).toBe('candidate-4.16');
    const smp = await c.req(
      'PATCH',
      '/apis/config.openshift.io/v1/clusterversions/version',
      { spec: {} },
      'application/strategic-merge-patch+json',
    );
    expect(smp.status).toBe(415);
    const noRv = await c.req('PUT', '/apis/config.openshift.io/v1/clusterversions/version', {
      ...sp.body,
      metadata: { ...sp.body.metadata, resourceVersion: undefined },
    });
    expect(noRv.status).toBe(422);
  });
  it('applies schema defaults (MachineConfigPool)', async () => {
    const r = await c.req('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: {
        machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } },
        nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec.machineConfigSelector.matchLabels).toEqual({
      'machineconfiguration.openshift.io/role': 'worker',
    });
  });
  it('deleting a CRD removes its objects and its discovery entry', async () => {
    const before = await c.req('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools');
    expect(before.body.items).toHaveLength(1);
    const d = await c.req(
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/machineconfigpools.machineconfiguration.openshift.io',
    );
    expect(d.status).toBe(200);
    for (
      let i = 0;
      i < 50 &&
      (
        await c.req(
          'GET',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/machineconfigpools.machineconfiguration.openshift.io',
        )
      ).status !== 404;
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    expect((await c.req('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools')).status).toBe(404);
    const rl = await c.req('GET', '/apis/machineconfiguration.openshift.io/v1');
    expect((rl.body.resources as { name: string }[]).map((r) => r.name)).not.toContain('machineconfigpools');
  });
});

describe('CRD versions and scale', () => {
  it('serves several versions from one storage and scales through the scale subresource', async () => {
    const schema = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
        status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
      },
    };
    const sub = {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    };
    const r = await c.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.demo.example.com' },
      spec: {
        group: 'demo.example.com',
        scope: 'Namespaced',
        names: { plural: 'pools', singular: 'pool', kind: 'Pool', shortNames: ['pl'] },
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: schema }, subresources: sub },
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: sub },
        ],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.status.storedVersions).toEqual(['v1']);
    const g = await c.req('GET', '/apis/demo.example.com');
    expect(g.body.preferredVersion.version).toBe('v1');
    expect((g.body.versions as { version: string }[]).map((v) => v.version)).toEqual(['v1', 'v1beta1']);
    const created = await c.req('POST', '/apis/demo.example.com/v1beta1/namespaces/default/pools', {
      apiVersion: 'demo.example.com/v1beta1',
      kind: 'Pool',
      metadata: { name: 'p' },
      spec: { replicas: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe('demo.example.com/v1beta1');
    const v1 = await c.req('GET', '/apis/demo.example.com/v1/namespaces/default/pools/p');
    expect(v1.body.apiVersion).toBe('demo.example.com/v1');
    await c.req(
      'PATCH',
      '/apis/demo.example.com/v1/namespaces/default/pools/p/status',
      { status: { replicas: 1, selector: 'app=p' } },
      'application/merge-patch+json',
    );
    const scale = await c.req('GET', '/apis/demo.example.com/v1/namespaces/default/pools/p/scale');
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=p' },
    });
    const put = await c.req('PUT', '/apis/demo.example.com/v1/namespaces/default/pools/p/scale', {
      ...scale.body,
      spec: { replicas: 4 },
    });
    expect(put.body.spec.replicas).toBe(4);
    const after = await c.req('GET', '/apis/demo.example.com/v1beta1/namespaces/default/pools/p');
    expect(after.body.spec.replicas).toBe(4);
    expect(after.body.metadata.generation).toBe(2);
  });
});

describe('server-side apply on custom resources', () => {
  it('creates, detects conflicts, and applies status through the subresource', async () => {
    const path = '/apis/config.openshift.io/v1/clusteroperators/ssa-op';
    const body = (v: string): string =>
      `apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: ssa-op\n  labels:\n    tier: "${v}"\nspec: {}\n`;
    const created = await c.req('PATCH', `${path}?fieldManager=cvo`, body('a'), 'application/apply-patch+yaml');
    expect(created.status).toBe(201);
    expect(created.body.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'cvo',
        operation: 'Apply',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:tier': {} } }, 'f:spec': {} },
      }),
    ]);
    const conflict = await c.req('PATCH', `${path}?fieldManager=other`, body('b'), 'application/apply-patch+yaml');
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "cvo": .metadata.labels.tier');
    expect(conflict.body.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "cvo"', field: '.metadata.labels.tier' },
    ]);
    const noManager = await c.req('PATCH', path, body('b'), 'application/apply-patch+yaml');
    expect(noManager.status).toBe(400);
    const status = `apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: ssa-op\nstatus:\n  versions:\n  - name: operator\n    version: 4.16.3\n`;
    const st = await c.req('PATCH', `${path}/status?fieldManager=cvo-status`, status, 'application/apply-patch+yaml');
    expect(st.status).toBe(200);
    expect(st.body.status.versions).toEqual([{ name: 'operator', version: '4.16.3' }]);
    expect(st.body.metadata.generation).toBe(1);
    const entry = (st.body.metadata.managedFields as { manager: string }[]).find((e) => e.manager === 'cvo-status');
    expect(entry).toMatchObject({ operation: 'Apply', subresource: 'status' });
    // dry run does not persist
    const dry = await c.req('PATCH', `${path}?fieldManager=cvo&dryRun=All`, body('z'), 'application/apply-patch+yaml');
    expect(dry.body.metadata.labels.tier).toBe('z');
    expect((await c.req('GET', path)).body.metadata.labels.tier).toBe('a');
  });
});
