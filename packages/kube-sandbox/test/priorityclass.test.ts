/**
 * scheduling.k8s.io/v1 PriorityClass served, defaulted and validated as kube-apiserver does, the system classes it
 * creates at start, and its Priority admission plugin on Pods.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sandbox, type Client } from './helpers.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let c: Client;
beforeAll(async () => {
  c = await sandbox();
});
afterAll(async () => {
  await c.sb.stop();
});

const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';
const pc = (name: string, extra: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  ...extra,
});

describe('PriorityClass', () => {
  it('is served cluster-scoped with its short name', async () => {
    const list = await c.req('GET', '/apis/scheduling.k8s.io/v1');
    expect((list.body.resources as { name: string }[]).find((r) => r.name === 'priorityclasses')).toMatchObject({
      kind: 'PriorityClass',
      namespaced: false,
      shortNames: ['pc'],
    });
  });

  it('defaults preemptionPolicy and accepts the highest user-definable value', async () => {
    const r = await c.req('POST', PC, pc('openshift-user-critical', { value: 1_000_000_000 }));
    expect(r.status).toBe(201);
    expect(r.body.preemptionPolicy).toBe('PreemptLowerPriority');
  });

  it('refuses a user value above 1000000000 and reserved system- names', async () => {
    const high = await c.req('POST', PC, pc('too-high', { value: 1_000_000_001 }));
    expect(high.status).toBe(422);
    expect(high.body.message).toBe(
      'PriorityClass.scheduling.k8s.io "too-high" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    );
    const sys = await c.req('POST', PC, pc('system-mine', { value: 5 }));
    expect(sys.status).toBe(422);
    expect(sys.body.message).toContain(
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    );
    // kube-apiserver creates the known system classes at start: a second one is a conflict
    const known = await c.req('POST', PC, pc('system-node-critical', { value: 2_000_001_000 }));
    expect(known.status).toBe(409);
  });

  it('refuses a changed value or preemptionPolicy on update', async () => {
    const r = await c.req('POST', PC, pc('fixed', { value: 10 }));
    expect(r.status).toBe(201);
    const upd = await c.req('PUT', `${PC}/fixed`, { ...r.body, value: 11, preemptionPolicy: 'Never' });
    expect(upd.status).toBe(422);
    expect(upd.body.message).toBe(
      'PriorityClass.scheduling.k8s.io "fixed" is invalid: [value: Forbidden: may not be changed in an update., preemptionPolicy: Invalid value: "Never": field is immutable]',
    );
  });
});

const POD = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }], ...spec },
});
const PODS = '/api/v1/namespaces/default/pods';

describe('system PriorityClasses and the Priority admission plugin', () => {
  it('creates system-node-critical and system-cluster-critical at start, as kube-apiserver', async () => {
    const node = await c.req('GET', `${PC}/system-node-critical`);
    expect(node.body).toMatchObject({ value: 2_000_001_000, preemptionPolicy: 'PreemptLowerPriority' });
    expect(node.body.description).toBe('Used for system critical pods that must not be moved from their current node.');
    const cluster = await c.req('GET', `${PC}/system-cluster-critical`);
    expect(cluster.body).toMatchObject({ value: 2_000_000_000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('resolves a Pod priority from its class; an unknown class is Forbidden', async () => {
    const ok = await c.req('POST', PODS, POD('critical', { priorityClassName: 'system-node-critical' }));
    expect(ok.status).toBe(201);
    expect(ok.body.spec).toMatchObject({ priority: 2_000_001_000, preemptionPolicy: 'PreemptLowerPriority' });
    const missing = await c.req('POST', PODS, POD('orphan', { priorityClassName: 'no-such-class' }));
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ reason: 'Forbidden', code: 403 });
    expect(missing.body.message).toBe('pods "orphan" is forbidden: no PriorityClass with name no-such-class was found');
  });

  it('refuses a priority or preemption policy that differs from the class, and keeps them on update', async () => {
    await c.req('POST', PC, pc('never-preempts', { value: 7, preemptionPolicy: 'Never' }));
    const wrong = await c.req('POST', PODS, POD('wrong', { priorityClassName: 'never-preempts', priority: 8 }));
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toBe(
      'pods "wrong" is forbidden: the integer value of priority (8) must not be provided in pod spec; priority admission controller computed 7 from the given PriorityClass name',
    );
    const policy = await c.req(
      'POST',
      PODS,
      POD('policy', { priorityClassName: 'never-preempts', preemptionPolicy: 'PreemptLowerPriority' }),
    );
    expect(policy.status).toBe(403);
    expect(policy.body.message).toBe(
      'pods "policy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
    const same = await c.req('POST', PODS, POD('same', { priorityClassName: 'never-preempts', priority: 7 }));
    expect(same.status).toBe(201);
    expect(same.body.spec).toMatchObject({ priority: 7, preemptionPolicy: 'Never' });
    const body = same.body as { spec: Record<string, unknown> };
    const { priority: _p, preemptionPolicy: _pp, ...rest } = body.spec;
    const upd = await c.req('PUT', `${PODS}/same`, { ...body, spec: rest });
    expect(upd.status).toBe(200);
    expect(upd.body.spec).toMatchObject({ priority: 7, preemptionPolicy: 'Never' });
  });

  it('gives a Pod without a class the global default class, else priority 0', async () => {
    const none = await c.req('POST', PODS, POD('plain'));
    expect(none.body.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(none.body.spec.priorityClassName).toBeUndefined();
    await c.req('POST', PC, pc('cluster-default', { value: 100, globalDefault: true }));
    const dflt = await c.req('POST', PODS, POD('defaulted'));
    expect(dflt.body.spec).toMatchObject({ priorityClassName: 'cluster-default', priority: 100 });
    await c.req('DELETE', `${PC}/cluster-default`);
  });
});
