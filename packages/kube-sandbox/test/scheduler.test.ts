import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  decidePodPlacement,
  nodeRejection,
  toleratesTaint,
  unschedulableMessage,
  type NodeSelectorTerm,
  type SchedulableNode,
  type SchedulablePod,
} from '../src/scheduler.js';
import { sandbox, type Client } from './helpers.js';

const ready = { conditions: [{ type: 'Ready', status: 'True' }] };
const node = (
  name: string,
  labels: Record<string, string> = {},
  spec: SchedulableNode['spec'] = {},
  status: SchedulableNode['status'] = ready,
): SchedulableNode => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec,
  status,
});

describe('decidePodPlacement (pure)', () => {
  const nodes = [
    node('m0', { 'node-role.kubernetes.io/master': '' }),
    node('w0', { 'node-role.kubernetes.io/worker': '' }),
    node('w1', { 'node-role.kubernetes.io/worker': '' }),
  ];

  it('honours spec.nodeSelector and spreads over the feasible nodes in turn', () => {
    const pod: SchedulablePod = { spec: { nodeSelector: { 'node-role.kubernetes.io/worker': '' } } };
    const a = decidePodPlacement(pod, nodes, 0);
    expect(a).toEqual({ kind: 'bind', node: 'w0', next: 2 });
    const b = decidePodPlacement(pod, nodes, a.kind === 'bind' ? a.next : 0);
    expect(b).toEqual({ kind: 'bind', node: 'w1', next: 3 });
    expect(decidePodPlacement(pod, nodes, 3)).toEqual({ kind: 'bind', node: 'w0', next: 2 });
  });

  it("leaves bound pods, pods being deleted and other schedulers' pods alone", () => {
    expect(decidePodPlacement({ spec: { nodeName: 'm0' } }, nodes)).toEqual({ kind: 'skip' });
    expect(decidePodPlacement({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: {} }, nodes)).toEqual({
      kind: 'skip',
    });
    expect(decidePodPlacement({ spec: { schedulerName: 'my-scheduler' } }, nodes)).toEqual({ kind: 'skip' });
  });

  it('skips cordoned nodes unless the pod tolerates node.kubernetes.io/unschedulable', () => {
    const cordoned = [
      node(
        'a',
        {},
        { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] },
      ),
      node('b'),
    ];
    expect(decidePodPlacement({ spec: {} }, cordoned)).toMatchObject({ kind: 'bind', node: 'b' });
    const tolerant: SchedulablePod = {
      spec: { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] },
    };
    expect(decidePodPlacement(tolerant, cordoned)).toMatchObject({ kind: 'bind', node: 'a' });
    // spec.unschedulable without the taint (before the node lifecycle controller adds it) still rejects
    expect(nodeRejection({ spec: {} }, node('c', {}, { unschedulable: true }))).toBe('node(s) were unschedulable');
    expect(nodeRejection(tolerant, node('c', {}, { unschedulable: true }))).toBeUndefined();
  });

  it("gives the FitError message when nothing fits, counting each node's first failing filter", () => {
    const all = [
      node('a', {}, { unschedulable: true }),
      node('b', {}, { taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] }),
      node('c'),
      node('d'),
      node('e', {}, {}, { conditions: [{ type: 'Ready', status: 'False' }] }),
    ];
    const got = decidePodPlacement({ spec: { nodeSelector: { disk: 'ssd' } } }, all);
    expect(got).toEqual({
      kind: 'unschedulable',
      message:
        "0/5 nodes are available: 1 node(s) had untolerated taint {dedicated: infra}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.",
    });
    expect(decidePodPlacement({ spec: {} }, [])).toEqual({
      kind: 'unschedulable',
      message: 'no nodes available to schedule pods',
    });
    expect(unschedulableMessage(['x', 'x'])).toBe(
      '0/2 nodes are available: 2 x. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    );
  });

  it('PreferNoSchedule taints do not filter; NoExecute ones do', () => {
    expect(
      nodeRejection({ spec: {} }, node('a', {}, { taints: [{ key: 'UpdateInProgress', effect: 'PreferNoSchedule' }] })),
    ).toBeUndefined();
    expect(nodeRejection({ spec: {} }, node('a', {}, { taints: [{ key: 'k', effect: 'NoExecute' }] }))).toBe(
      'node(s) had untolerated taint {k: }',
    );
  });

  it('required node affinity: terms ORed, expressions ANDed, matchFields on metadata.name', () => {
    const terms = (t: { nodeSelectorTerms: NodeSelectorTerm[] }): SchedulablePod => ({
      spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: t } } },
    });
    const n = node('w7', { zone: 'a', cpus: '8' });
    expect(
      nodeRejection(
        terms({
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
            { matchExpressions: [{ key: 'cpus', operator: 'Gt', values: ['4'] }] },
          ],
        }),
        n,
      ),
    ).toBeUndefined();
    expect(
      nodeRejection(
        terms({
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'zone', operator: 'In', values: ['a'] },
                { key: 'cpus', operator: 'Lt', values: ['4'] },
              ],
            },
          ],
        }),
        n,
      ),
    ).toBe("node(s) didn't match Pod's node affinity/selector");
    expect(
      nodeRejection(
        terms({ nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w7'] }] }] }),
        n,
      ),
    ).toBeUndefined();
    expect(nodeRejection(terms({ nodeSelectorTerms: [{}] }), n)).toBe(
      "node(s) didn't match Pod's node affinity/selector",
    );
  });

  it.each([
    [{ key: 'k', operator: 'Equal' as const, value: 'v', effect: 'NoSchedule' as const }, true],
    [{ key: 'k', value: 'v' }, true],
    [{ key: 'k', value: 'w' }, false],
    [{ key: 'k', operator: 'Exists' as const }, true],
    [{ operator: 'Exists' as const }, true],
    [{ operator: 'Exists' as const, effect: 'NoExecute' as const }, false],
    [{ key: 'other', operator: 'Exists' as const }, false],
  ])('toleration %j tolerates k=v:NoSchedule: %s', (t, want) => {
    expect(toleratesTaint(t, { key: 'k', value: 'v', effect: 'NoSchedule' })).toBe(want);
  });
});

describe('pod simulator scheduling through the API', () => {
  vi.setConfig({ testTimeout: 20_000 });
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ simulatePods: true });
    c.sb.setNodeReady('master-0', true, { 'node-role.kubernetes.io/master': '' });
    c.sb.setNodeReady('worker-0', true, { 'node-role.kubernetes.io/worker': '' });
    c.sb.setNodeReady('worker-1', true, { 'node-role.kubernetes.io/worker': '' });
    await c.sb.settle();
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  interface PodView {
    metadata: { resourceVersion: string };
    spec: { nodeName?: string };
    status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
  }
  async function podWhen(name: string, ok: (p: PodView) => boolean): Promise<PodView> {
    for (let i = 0; i < 500; i++) {
      await c.sb.settle();
      const p = (await c.req('GET', `/api/v1/namespaces/default/pods/${name}`)).body as PodView;
      if (ok(p)) return p;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`pod ${name} never reached the expected state`);
  }
  const pod = (name: string, spec: Record<string, unknown> = {}): unknown => ({
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'img:1' }], ...spec },
  });

  it('binds a pod with a nodeSelector to a matching node only, and runs it there', async () => {
    expect(
      (
        await c.req(
          'POST',
          '/api/v1/namespaces/default/pods',
          pod('on-master', { nodeSelector: { 'node-role.kubernetes.io/master': '' } }),
        )
      ).status,
    ).toBe(201);
    const p = await podWhen('on-master', (x) => x.status?.phase === 'Running');
    expect(p.spec.nodeName).toBe('master-0');
  });

  it('keeps a pod that fits nowhere Pending with PodScheduled=False Unschedulable, and binds it once a node fits', async () => {
    await c.req('PATCH', '/api/v1/nodes/worker-0', { spec: { unschedulable: true } }, 'application/merge-patch+json');
    await c.req('PATCH', '/api/v1/nodes/worker-1', { spec: { unschedulable: true } }, 'application/merge-patch+json');
    await c.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('on-worker', { nodeSelector: { 'node-role.kubernetes.io/worker': '' } }),
    );
    const p = await podWhen('on-worker', (x) => (x.status?.conditions ?? []).some((k) => k.type === 'PodScheduled'));
    expect(p.spec.nodeName).toBeUndefined();
    expect(p.status?.phase).toBe('Pending');
    expect(p.status?.conditions).toEqual([
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: expect.any(String) as unknown,
        reason: 'Unschedulable',
        message:
          "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      },
    ]);
    const rv = p.metadata.resourceVersion;
    await c.sb.settle();
    expect((await c.req('GET', '/api/v1/namespaces/default/pods/on-worker')).body.metadata.resourceVersion).toBe(rv);

    await c.req('PATCH', '/api/v1/nodes/worker-1', { spec: { unschedulable: false } }, 'application/merge-patch+json');
    const bound = await podWhen('on-worker', (x) => x.status?.phase === 'Running');
    expect(bound.spec.nodeName).toBe('worker-1');
    expect(bound.status?.conditions?.find((k) => k.type === 'PodScheduled')).toMatchObject({ status: 'True' });
  });

  it('schedules a pod that tolerates the unschedulable taint onto a cordoned node; spec.nodeName bypasses the scheduler', async () => {
    await c.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('tolerant', {
        nodeSelector: { 'kubernetes.io/hostname': 'worker-0' },
        tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
      }),
    );
    expect((await podWhen('tolerant', (x) => x.status?.phase === 'Running')).spec.nodeName).toBe('worker-0');
    await c.req('POST', '/api/v1/namespaces/default/pods', pod('pinned', { nodeName: 'worker-0' }));
    expect((await podWhen('pinned', (x) => x.status?.phase === 'Running')).spec.nodeName).toBe('worker-0');
  });

  it('leaves run-to-completion pods (restartPolicy OnFailure / Never) for a kubelet that can run their commands', async () => {
    await c.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('job-like', { nodeName: 'worker-0', restartPolicy: 'OnFailure' }),
    );
    await c.req(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('once', { nodeName: 'worker-0', restartPolicy: 'Never' }),
    );
    await c.sb.settle();
    for (const name of ['job-like', 'once'])
      expect((await c.req('GET', `/api/v1/namespaces/default/pods/${name}`)).body.status?.phase).toBe('Pending');
  });
});
