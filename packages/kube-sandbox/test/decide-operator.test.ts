/** Table tests of the cluster-operator simulator's pure decisions (no I/O). */
import { describe, expect, it } from 'vitest';
import {
  buildOperatorStatus,
  decideOperatorReport,
  relatedNamespaces,
  resolveExpectedVersions,
  unavailableDeployments,
  type OperatorReportInput,
} from '../src/index.js';
import type { SimClusterOperator, SimDeployment } from '../src/simulators/operator-types.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function dep(
  ns: string,
  name: string,
  o: {
    gen?: number;
    observed?: number;
    replicas?: number;
    updated?: number;
    available?: number;
    release?: string;
  } = {},
): SimDeployment {
  return {
    metadata: { name, namespace: ns, generation: o.gen ?? 1 },
    spec: {
      replicas: o.replicas ?? 1,
      template: {
        spec: {
          containers: [{ name, env: o.release === undefined ? [] : [{ name: 'RELEASE_VERSION', value: o.release }] }],
        },
      },
    },
    status: {
      observedGeneration: o.observed ?? 1,
      updatedReplicas: o.updated ?? 1,
      availableReplicas: o.available ?? 1,
    },
  };
}

const healthy = (version: string): SimClusterOperator => ({
  metadata: { name: 'dns', resourceVersion: '5' },
  status: {
    versions: [{ name: 'operator', version }],
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'AsExpected',
        message: `Simulated cluster operator: available at ${version}`,
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
      {
        type: 'Progressing',
        status: 'False',
        reason: 'AsExpected',
        message: `Simulated cluster operator: rolled out at ${version}`,
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
      {
        type: 'Degraded',
        status: 'False',
        reason: 'AsExpected',
        message: 'Simulated cluster operator: no problems',
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
      {
        type: 'Upgradeable',
        status: 'True',
        reason: 'AsExpected',
        message: 'Simulated cluster operator: upgradeable',
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
    ],
  },
});

describe('relatedNamespaces', () => {
  it('collects namespace objects and namespaces of namespaced objects, sorted and unique', () => {
    expect(
      relatedNamespaces([
        { group: '', resource: 'namespaces', name: 'openshift-dns-operator' },
        { group: 'apps', resource: 'deployments', namespace: 'openshift-dns', name: 'dns' },
        { group: 'operator.openshift.io', resource: 'dnses', name: 'default' },
        { group: '', resource: 'namespaces', name: 'openshift-dns' },
      ]),
    ).toEqual(['openshift-dns', 'openshift-dns-operator']);
    expect(relatedNamespaces(undefined)).toEqual([]);
  });
});

describe('resolveExpectedVersions', () => {
  const cases: {
    name: string;
    input: Parameters<typeof resolveExpectedVersions>[0];
    want: ReturnType<typeof resolveExpectedVersions>;
  }[] = [
    {
      name: 'manifest versions win',
      input: {
        explicit: [
          { name: 'operator', version: '4.18.3' },
          { name: 'coredns', version: '1.11' },
        ],
        deployments: [dep('ns', 'a', { release: '4.18.2' })],
        desiredVersion: '4.18.1',
      },
      want: [
        { name: 'operator', version: '4.18.3' },
        { name: 'coredns', version: '1.11' },
      ],
    },
    {
      name: 'RELEASE_VERSION of the first Deployment by namespace/name',
      input: {
        explicit: undefined,
        deployments: [dep('ns', 'z', { release: '4.18.9' }), dep('ns', 'b', { release: '4.18.2' })],
        desiredVersion: '4.18.3',
      },
      want: [{ name: 'operator', version: '4.18.2' }],
    },
    {
      name: 'empty manifest versions fall through',
      input: { explicit: [], deployments: [dep('ns', 'a')], desiredVersion: '4.18.3' },
      want: [{ name: 'operator', version: '4.18.3' }],
    },
    {
      name: 'nothing known',
      input: { explicit: undefined, deployments: [], desiredVersion: undefined },
      want: undefined,
    },
  ];
  for (const c of cases) it(c.name, () => expect(resolveExpectedVersions(c.input)).toEqual(c.want));
});

describe('unavailableDeployments', () => {
  const cases: { name: string; d: SimDeployment; pending: boolean }[] = [
    { name: 'rolled out', d: dep('n', 'a'), pending: false },
    { name: 'new generation not observed', d: dep('n', 'a', { gen: 2, observed: 1 }), pending: true },
    { name: 'not all replicas updated', d: dep('n', 'a', { replicas: 3, updated: 2, available: 3 }), pending: true },
    { name: 'not all replicas available', d: dep('n', 'a', { replicas: 3, updated: 3, available: 1 }), pending: true },
    { name: 'no status at all', d: { metadata: { name: 'a', namespace: 'n', generation: 1 } }, pending: true },
  ];
  for (const c of cases) it(c.name, () => expect(unavailableDeployments([c.d])).toEqual(c.pending ? ['n/a'] : []));
});

describe('decideOperatorReport', () => {
  const base: OperatorReportInput = {
    operator: { metadata: { name: 'dns' } },
    expected: [{ name: 'operator', version: '4.18.3' }],
    fault: undefined,
    deployments: [],
    waitForDeployments: true,
    pendingSince: T0,
    now: T0 + 1000,
    delayMs: 1000,
  };
  const cases: { name: string; patch: Partial<OperatorReportInput>; want: string; why?: RegExp; afterMs?: number }[] = [
    { name: 'reports when the delay has passed', patch: {}, want: 'report' },
    { name: 'waits for the rest of the delay', patch: { now: T0 + 400 }, want: 'wait', afterMs: 600 },
    {
      name: 'slow adds its extra delay',
      patch: { fault: { kind: 'slow', extraDelayMs: 5000 } },
      want: 'wait',
      afterMs: 5000,
    },
    { name: 'never reports with fault never', patch: { fault: { kind: 'never' } }, want: 'none', why: /never reports/ },
    { name: 'nothing to report without a version', patch: { expected: undefined }, want: 'none', why: /no version/ },
    {
      name: 'waits on Deployments that have not rolled out',
      patch: { deployments: [dep('openshift-dns', 'dns', { gen: 2, observed: 1 })] },
      want: 'wait',
      why: /openshift-dns\/dns/,
    },
    {
      name: 'ignores Deployments when told not to wait',
      patch: { deployments: [dep('openshift-dns', 'dns', { gen: 2, observed: 1 })], waitForDeployments: false },
      want: 'report',
    },
    {
      name: 'does nothing when the status is already reported',
      patch: { operator: healthy('4.18.3') },
      want: 'none',
      why: /already/,
    },
    { name: 'reports a new version over an old one', patch: { operator: healthy('4.18.2') }, want: 'report' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideOperatorReport({ ...base, ...c.patch });
      expect(d.action).toBe(c.want);
      if (c.why && d.action !== 'report') expect(d.why).toMatch(c.why);
      if (c.afterMs !== undefined && d.action === 'wait') expect(d.afterMs).toBe(c.afterMs);
    });
  }

  it('writes the fault conditions with reason and message', () => {
    const kinds = [
      {
        fault: { kind: 'degraded' as const, reason: 'DiskFull', message: 'disk is full' },
        type: 'Degraded',
        status: 'True',
      },
      {
        fault: { kind: 'unavailable' as const, reason: 'NoPods', message: 'no pods' },
        type: 'Available',
        status: 'False',
      },
      {
        fault: { kind: 'not-upgradeable' as const, reason: 'AdminAckRequired', message: 'ack first' },
        type: 'Upgradeable',
        status: 'False',
      },
    ];
    for (const k of kinds) {
      const d = decideOperatorReport({ ...base, fault: k.fault });
      if (d.action !== 'report') throw new Error(`expected a report for ${k.fault.kind}`);
      expect(d.status.versions).toEqual([{ name: 'operator', version: '4.18.3' }]);
      expect(d.status.conditions.find((c) => c.type === k.type)).toMatchObject({
        status: k.status,
        reason: k.fault.reason,
        message: k.fault.message,
      });
    }
  });
});

describe('buildOperatorStatus', () => {
  it('keeps transition times of unchanged conditions and conditions of other writers', () => {
    const live = healthy('4.18.2');
    live.status?.conditions?.push({
      type: 'EvaluationConditionsDetected',
      status: 'False',
      reason: 'AsExpected',
      lastTransitionTime: '2024-01-01T00:00:00Z',
    });
    const next = buildOperatorStatus(
      live,
      [{ name: 'operator', version: '4.18.3' }],
      { kind: 'degraded' },
      '2026-01-01T00:00:00.000Z',
    );
    expect(next.conditions.find((c) => c.type === 'Available')?.lastTransitionTime).toBe('2025-01-01T00:00:00Z');
    expect(next.conditions.find((c) => c.type === 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'SimulatedFault',
      lastTransitionTime: '2026-01-01T00:00:00.000Z',
    });
    expect(next.conditions.find((c) => c.type === 'EvaluationConditionsDetected')?.lastTransitionTime).toBe(
      '2024-01-01T00:00:00Z',
    );
  });
});
