import { describe, expect, it } from 'vitest';
import { Registry, type ConfigMap } from '@keelson/kube';
import { countConditionTransitions, mostRecentTimestamp, registerMetrics, type MetricsView } from '../src/metrics.js';
import type { ClusterOperator, ClusterVersion } from '../src/api-types.js';

const T = (s: number): string => new Date(s * 1000).toISOString();

function cvWith(over: Partial<ClusterVersion['status']> & { desired?: { version: string; image: string } }) {
  const { desired, ...status } = over;
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version', creationTimestamp: T(1000) },
    spec: {
      clusterID: 'c',
      channel: 'stable-4.20',
      ...(desired ? { desiredUpdate: desired } : {}),
    },
    status: {
      desired: { version: '4.20.1', image: 'img@sha256:1' },
      observedGeneration: 1,
      versionHash: '',
      availableUpdates: null,
      history: [],
      conditions: [],
      ...status,
    },
  } as unknown as ClusterVersion;
}

function co(name: string, conds: Array<[string, string, string?]>, version = '4.20.1'): ClusterOperator {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterOperator',
    metadata: { name },
    status: {
      versions: [{ name: 'operator', version }],
      conditions: conds.map(([type, status, reason]) => ({
        type,
        status,
        lastTransitionTime: T(1),
        ...(reason ? { reason } : {}),
      })),
    },
  } as unknown as ClusterOperator;
}

async function scrape(view: Partial<MetricsView>, changes: Array<[ClusterOperator, ClusterOperator]> = []) {
  const registry = new Registry();
  const full: MetricsView = {
    cv: () => undefined,
    operators: () => [],
    current: () => ({ version: '4.20.1', image: 'img@sha256:1', created: 5_000_000 }),
    payload: () => undefined,
    updateService: () => '',
    configMap: () => undefined,
    updateRetrievalTimestamp: () => undefined,
    ...view,
  };
  const m = registerMetrics(registry, full);
  for (const [a, b] of changes) m.operatorChanged(a, b);
  return registry.metrics();
}

describe('metrics (upstream pkg/cvo/metrics.go Collect)', () => {
  it('reports ClusterVersionNotFound and the installer fallback without a ClusterVersion', async () => {
    const m = await scrape({});
    expect(m).toContain('cluster_operator_up{name="version",version="",reason="ClusterVersionNotFound"} 0');
    expect(m).toContain(
      'cluster_operator_conditions{name="version",condition="Available",reason="ClusterVersionNotFound"} 0',
    );
    expect(m).toContain('cluster_installer{type="",version="",invoker=""} 1');
    expect(m).toContain('cluster_version{type="current",version="4.20.1",image="img@sha256:1",from_version=""} 5000');
  });

  it('labels cluster_version series as upstream (completed/penultimate, cluster/initial, desired, failure, updating)', async () => {
    const cv = cvWith({
      desired: { version: '4.20.3', image: 'img@sha256:3' },
      history: [
        { state: 'Partial', version: '4.20.3', image: 'img@sha256:3', startedTime: T(4000), verified: true },
        {
          state: 'Completed',
          version: '4.20.1',
          image: 'img@sha256:1',
          startedTime: T(2000),
          completionTime: T(3000),
          verified: true,
        },
        {
          state: 'Completed',
          version: '4.20.0',
          image: 'img@sha256:0',
          startedTime: T(1000),
          completionTime: T(1500),
          verified: false,
        },
      ],
      conditions: [
        { type: 'Failing', status: 'True', lastTransitionTime: T(4500), reason: 'X', message: '' },
        { type: 'Available', status: 'True', lastTransitionTime: T(1500), reason: '', message: '' },
      ],
    } as never);
    const m = await scrape({ cv: () => cv });
    expect(m).toContain(
      'cluster_version{type="completed",version="4.20.1",image="img@sha256:1",from_version="4.20.0"} 3000',
    );
    expect(m).toContain('cluster_version{type="initial",version="4.20.0",image="img@sha256:0",from_version=""} 1000');
    expect(m).toContain(
      'cluster_version{type="cluster",version="4.20.1",image="img@sha256:1",from_version="4.20.0"} 1000',
    );
    expect(m).toContain(
      'cluster_version{type="desired",version="4.20.3",image="img@sha256:3",from_version="4.20.1"} 4500',
    );
    expect(m).toContain(
      'cluster_version{type="failure",version="4.20.3",image="img@sha256:3",from_version="4.20.1"} 4500',
    );
    expect(m).toContain(
      'cluster_version{type="updating",version="4.20.3",image="img@sha256:3",from_version="4.20.1"} 4000',
    );
    expect(m).toContain(
      'cluster_version{type="current",version="4.20.1",image="img@sha256:1",from_version="4.20.1"} 5000',
    );
    expect(m).toContain('cluster_operator_up{name="version",version="4.20.1",reason=""} 1');
  });

  it('clears the cluster series initial version while installing and skips available updates when never retrieved', async () => {
    const cv = cvWith({
      history: [{ state: 'Partial', version: '4.20.1', image: 'img@sha256:1', startedTime: T(1000), verified: false }],
    } as never);
    const m = await scrape({ cv: () => cv });
    expect(m).toContain('cluster_version{type="cluster",version="4.20.1",image="img@sha256:1",from_version=""} 1000');
    expect(m).not.toMatch(/^cluster_version_available_updates\{/m);
    const retrieved = cvWith({
      availableUpdates: [{ version: '4.20.2', image: 'img@sha256:2' }],
    });
    const m2 = await scrape({ cv: () => retrieved, updateService: () => 'https://us.example/graph' });
    expect(m2).toContain(
      'cluster_version_available_updates{upstream="https://us.example/graph",channel="stable-4.20"} 1',
    );
    const m3 = await scrape({ cv: () => retrieved });
    expect(m3).toContain('cluster_version_available_updates{upstream="<default>",channel="stable-4.20"} 1');
  });

  it('reports capabilities from status, conditional update Recommended times and the installer ConfigMaps', async () => {
    const cv = cvWith({
      capabilities: { enabledCapabilities: ['Console'], knownCapabilities: ['Console', 'Build'] },
      conditionalUpdates: [
        {
          release: { version: '4.20.5', image: 'img@sha256:5' },
          risks: [],
          conditions: [
            { type: 'Recommended', status: 'False', reason: 'BadThing', message: '', lastTransitionTime: T(7000) },
          ],
        },
      ],
    } as never);
    const installer: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'openshift-install', namespace: 'openshift-config' },
      data: { version: 'v4.20.0' },
    };
    const m = await scrape({ cv: () => cv, configMap: (n) => (n === 'openshift-install' ? installer : undefined) });
    expect(m).toContain('cluster_version_capability{name="Console"} 1');
    expect(m).toContain('cluster_version_capability{name="Build"} 0');
    expect(m).toContain(
      'cluster_version_conditional_update_condition_seconds{version="4.20.5",condition="Recommended",status="False",reason="BadThing"} 7000',
    );
    expect(m).toContain('cluster_installer{type="openshift-install",version="v4.20.0",invoker="<missing>"} 1');
    const other = { ...installer, metadata: { name: 'openshift-install-manifests' }, data: { invoker: 'hive' } };
    const m2 = await scrape({ configMap: (n) => (n === 'openshift-install-manifests' ? other : undefined) });
    expect(m2).toContain('cluster_installer{type="other",version="<missing>",invoker="hive"} 1');
  });

  it('counts condition transitions as clusterOperatorChanged', async () => {
    const a = co('dns', [
      ['Available', 'True'],
      ['Degraded', 'False'],
    ]);
    const b = co('dns', [
      ['Available', 'False', 'Down'],
      ['Progressing', 'True'],
    ]);
    const c = co('dns', [
      ['Available', 'False', 'StillDown'],
      ['Progressing', 'True'],
    ]);
    const counts = new Map<string, number>();
    countConditionTransitions(counts, a, b);
    countConditionTransitions(counts, b, c); // reason only: no transition
    expect(Object.fromEntries(counts)).toEqual({
      '["dns","Available"]': 1,
      '["dns","Degraded"]': 1,
      '["dns","Progressing"]': 1,
    });
    const m = await scrape({ operators: () => [c] }, [
      [a, b],
      [b, c],
    ]);
    expect(m).toContain('cluster_operator_condition_transitions{name="dns",condition="Available"} 1');
    expect(m).toContain('cluster_operator_up{name="dns",version="4.20.1",reason="StillDown"} 0');
    expect(m).toContain('cluster_operator_conditions{name="dns",condition="Progressing",reason=""} 1');
  });

  it('mostRecentTimestamp takes the newest of history, conditions and creation', () => {
    const cv = cvWith({
      history: [
        { state: 'Completed', version: 'a', image: 'i', startedTime: T(10), completionTime: T(20), verified: false },
      ],
      conditions: [{ type: 'X', status: 'True', lastTransitionTime: T(30), reason: '', message: '' }],
    } as never);
    expect(mostRecentTimestamp(cv)).toBe(1000);
  });
});
