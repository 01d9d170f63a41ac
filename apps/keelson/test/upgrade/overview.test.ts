/** `keelson upgrade` without flags renders the status block exactly as `oc adm upgrade` does. */
import { describe, expect, it } from 'vitest';
import { formatUpgradeOverview, upgradeOverview } from '../../src/upgrade/overview.js';
import { cond, idleCluster, IMG, rec } from './fixtures.js';

describe('formatUpgradeOverview', () => {
  it('idle cluster with recommended updates and a hint about not-recommended ones', () => {
    const r = formatUpgradeOverview(idleCluster(), false);
    expect(r.err).toBe('');
    expect(r.out).toBe(
      [
        'Cluster version is 4.18.3',
        '',
        'Upstream is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.18 (available channels: candidate-4.18, fast-4.18, stable-4.18)',
        '',
        'Recommended updates:',
        '',
        `  VERSION     IMAGE`,
        `  4.18.10     ${IMG(7)}`,
        `  4.18.4      ${IMG(4)}`,
        '',
        'Additional updates which are not recommended for your cluster configuration are available, to view those re-run the command with --include-not-recommended.',
        '',
      ].join('\n'),
    );
  });

  it('updating and failing cluster, not upgradeable, release not accepted, --include-not-recommended', () => {
    const cv = idleCluster({
      upstream: 'https://updates.example/graph',
      conditions: [
        cond('Failing', 'True', 'ClusterOperatorDegraded', 'Cluster operator etcd is degraded\nsince a while'),
        cond(
          'Progressing',
          'True',
          'ClusterOperatorDegraded',
          'Working towards 4.18.4: 512 of 901 done (56% complete), waiting on etcd',
        ),
        cond('Upgradeable', 'False', 'AdminAckRequired', 'Kubernetes 1.32 removes APIs'),
        cond('ReleaseAccepted', 'False', 'RetrievePayload', 'Retrieving payload failed version="4.18.4"'),
        cond('RetrievedUpdates', 'False', 'RemoteFailed', 'Unable to retrieve available updates: connection refused'),
      ],
    });
    const r = formatUpgradeOverview(cv, true);
    expect(r.out).toBe(
      [
        'Failing=True:',
        '',
        '  Reason: ClusterOperatorDegraded',
        '  Message: Cluster operator etcd is degraded',
        '  since a while',
        '',
        'info: An upgrade is in progress. Working towards 4.18.4: 512 of 901 done (56% complete), waiting on etcd',
        '',
        'Upgradeable=False',
        '',
        '  Reason: AdminAckRequired',
        '  Message: Kubernetes 1.32 removes APIs',
        '',
        'ReleaseAccepted=False',
        '',
        '  Reason: RetrievePayload',
        '  Message: Retrieving payload failed version="4.18.4"',
        '',
        'Upstream: https://updates.example/graph',
        'Channel: stable-4.18 (available channels: candidate-4.18, fast-4.18, stable-4.18)',
        '',
        'Recommended updates:',
        '',
        `  VERSION     IMAGE`,
        `  4.18.10     ${IMG(7)}`,
        `  4.18.4      ${IMG(4)}`,
        '',
        'Updates with known issues:',
        '',
        '  Version: 4.18.5',
        `  Image: ${IMG(5)}`,
        '  Reason: SomeBug',
        '  Message: Clusters on AWS hit a bug.',
        '  See https://bugs/1',
        '',
      ].join('\n'),
    );
    expect(r.err).toBe(
      'warning: Cannot refresh available updates:\n  Reason: RemoteFailed\n  Message: Unable to retrieve available updates: connection refused\n\n',
    );
  });

  it('no channel, no updates, missing conditions', () => {
    const cv = idleCluster({ channel: '', conditions: [] });
    if (cv.status) {
      cv.status.availableUpdates = null;
      cv.status.conditionalUpdates = [];
    }
    const r = formatUpgradeOverview(cv, true);
    expect(r.out).toBe(
      '\nNo updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.\n\nNo updates which are not recommended based on your cluster configuration are available.\n',
    );
    expect(r.err).toBe(
      'warning: No current Failing info, see `oc describe clusterversion` for more details.\nwarning: No current Progressing info, see `oc describe clusterversion` for more details.\n',
    );
  });

  it('pads the VERSION column to the longest version (tabwriter)', () => {
    const cv = idleCluster();
    if (cv.status) cv.status.availableUpdates = [{ version: '4.18.4-0.nightly-2026-01-01-000000', image: IMG(4) }];
    // widest cell "  4.18.4-0.nightly-2026-01-01-000000" (36) + padding 1 = 37 columns
    expect(formatUpgradeOverview(cv, false).out).toContain(
      `${'  VERSION'.padEnd(37)}IMAGE\n${'  4.18.4-0.nightly-2026-01-01-000000'.padEnd(37)}${IMG(4)}\n`,
    );
  });

  it('unknown Recommended status is named in the hint', () => {
    const cv = idleCluster();
    if (cv.status)
      cv.status.conditionalUpdates = [
        {
          release: { version: '4.18.6', image: IMG(6) },
          risks: [{ name: 'R', url: 'https://r', message: 'r', matchingRules: [{ type: 'Always' }] }],
          conditions: [rec('Unknown', 'EvaluationFailed', 'could not evaluate')],
        },
      ];
    expect(formatUpgradeOverview(cv, false).out).toContain(
      'Additional updates which are not recommended, or where the recommended status is "Unknown", for your cluster configuration are available',
    );
  });
});

describe('upgradeOverview (-o json)', () => {
  it('sorts recommended updates and lists not-recommended ones on request', () => {
    const o = upgradeOverview(idleCluster(), true);
    expect(o.recommendedUpdates.map((r) => r.version)).toEqual(['4.18.10', '4.18.4']);
    expect(o.notRecommendedUpdates).toEqual([
      {
        release: { version: '4.18.5', image: IMG(5) },
        status: 'False',
        reason: 'SomeBug',
        message: 'Clusters on AWS hit a bug.\nSee https://bugs/1',
      },
    ]);
    expect(upgradeOverview(idleCluster(), false).notRecommendedUpdates).toEqual([]);
  });
});
