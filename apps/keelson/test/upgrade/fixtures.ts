/** ClusterVersion objects for the `keelson upgrade` tests, shaped like a cluster's. */
import type { ClusterOperatorStatusCondition, MetaCondition } from '@keelson/api';
import type { ClusterVersion } from '../../src/upgrade/api-types.js';

export const DIGEST = (n: number): string => `sha256:${String(n).repeat(64).slice(0, 64)}`;
export const IMG = (n: number): string => `quay.io/openshift-release-dev/ocp-release@${DIGEST(n)}`;
export const T = '2026-01-01T00:00:00Z';

export function cond(
  type: string,
  status: ClusterOperatorStatusCondition['status'],
  reason?: string,
  message?: string,
  lastTransitionTime = T,
): ClusterOperatorStatusCondition {
  const c: ClusterOperatorStatusCondition = { type, status, lastTransitionTime };
  if (reason !== undefined) c.reason = reason;
  if (message !== undefined) c.message = message;
  return c;
}

/** A `Recommended` condition of a conditional update (a metav1.Condition: reason and message required). */
export function rec(status: MetaCondition['status'], reason: string, message: string): MetaCondition {
  return { type: 'Recommended', status, reason, message, lastTransitionTime: T };
}

/** A healthy, idle 4.18.3 cluster on stable-4.18 with two recommended updates and one conditional one. */
export function idleCluster(
  overrides: { conditions?: ClusterOperatorStatusCondition[]; channel?: string; upstream?: string } = {},
): ClusterVersion {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: {
      clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11',
      channel: overrides.channel ?? 'stable-4.18',
      ...(overrides.upstream !== undefined ? { upstream: overrides.upstream } : {}),
    },
    status: {
      desired: { version: '4.18.3', image: IMG(3), channels: ['candidate-4.18', 'fast-4.18', 'stable-4.18'] },
      history: [
        {
          state: 'Completed',
          startedTime: T,
          completionTime: '2026-01-01T01:00:00Z',
          version: '4.18.3',
          image: IMG(3),
          verified: true,
        },
      ],
      observedGeneration: 1,
      versionHash: 'h',
      availableUpdates: [
        { version: '4.18.4', image: IMG(4) },
        { version: '4.18.10', image: IMG(7) },
      ],
      conditionalUpdates: [
        {
          release: { version: '4.18.5', image: IMG(5) },
          risks: [{ name: 'SomeBug', url: 'https://bugs/1', message: 'a bug', matchingRules: [{ type: 'Always' }] }],
          conditions: [rec('False', 'SomeBug', 'Clusters on AWS hit a bug.\nSee https://bugs/1')],
        },
        {
          release: { version: '4.18.4', image: IMG(4) },
          risks: [],
          conditions: [rec('True', 'NoKnownRisks', 'no risks')],
        },
      ],
      conditions: overrides.conditions ?? [
        cond('Available', 'True', undefined, 'Done applying 4.18.3'),
        cond('Failing', 'False'),
        cond('Progressing', 'False', undefined, 'Cluster version is 4.18.3'),
        cond('RetrievedUpdates', 'True'),
        cond(
          'ReleaseAccepted',
          'True',
          'PayloadLoaded',
          `Payload loaded version="4.18.3" image="${IMG(3)}" architecture="amd64"`,
        ),
      ],
    },
  };
}
