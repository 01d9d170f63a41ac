/** scheduling.k8s.io/v1 PriorityClass served, defaulted and validated as kube-apiserver does. */
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
    const known = await c.req('POST', PC, pc('system-node-critical', { value: 2_000_001_000 }));
    expect(known.status).toBe(201);
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
