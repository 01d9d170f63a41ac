/**
 * Available and conditional updates (openshift/cluster-version-operator pkg/cvo/availableupdates.go): query the update service for the current version and channel,
 * evaluate conditional-update risks (PromQL), and produce `RetrievedUpdates`, `availableUpdates` (descending SemVer)
 * and `conditionalUpdates`. Previous lists survive transient retrieval failures.
 */
import { arch } from 'node:process';
import type { Condition } from '@keelson/kube';
import {
  compareVersionStrings,
  createRiskRegistry,
  evaluateConditionalUpdates,
  UpdateGraphClient,
  UpdateRetrievalError,
  type ConditionRegistry,
  type Release as GraphRelease,
} from '@keelson/update-graph';
import type { ClusterVersion, ConditionalUpdateStatus, Release } from '../api-types.js';

/** Default upstream (`spec.upstream` unset and no `--update-service`). */
export const DEFAULT_UPSTREAM = 'https://api.openshift.com/api/upgrades_info/v1/graph';

/** Result of one poll. */
export interface UpdatesResult {
  retrievedUpdates: Condition;
  availableUpdates: Release[] | null;
  conditionalUpdates: ConditionalUpdateStatus[];
}

/** Go architecture name of this process (`x64` → `amd64`). */
export function goArch(): string {
  return ({ x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ?? arch;
}

function toRelease(r: GraphRelease): Release {
  const out: Release = { version: r.version, image: r.image };
  if (r.url !== undefined) out.url = r.url;
  // `channels` is a `listType: set` in the ClusterVersion schema: a repeated channel would get the whole status write
  // refused (422 Duplicate value), so it is written once whatever the graph sent
  if (r.channels !== undefined) out.channels = [...new Set(r.channels)];
  if (r.architecture !== undefined) out.architecture = r.architecture;
  return out;
}

function desc(a: Release, b: Release): number {
  return -compareVersionStrings(a.version ?? '', b.version ?? '');
}

/** Polls the update service; keeps a connection pool and the PromQL risk cache between polls. */
export class UpdatesPoller {
  private readonly client: UpdateGraphClient;
  private readonly registry: ConditionRegistry;
  private last: UpdatesResult | undefined;
  constructor(
    private readonly opts: { updateService?: string; promqlTarget?: string; promqlToken?: string; userAgent?: string },
  ) {
    this.client = new UpdateGraphClient(opts.userAgent !== undefined ? { userAgent: opts.userAgent } : {});
    this.registry = createRiskRegistry(
      opts.promqlTarget !== undefined
        ? { url: opts.promqlTarget, ...(opts.promqlToken !== undefined ? { token: opts.promqlToken } : {}) }
        : undefined,
    );
  }

  /** One poll for the cluster's current version. */
  async poll(cv: ClusterVersion, currentVersion: string, signal?: AbortSignal): Promise<UpdatesResult> {
    const upstream =
      this.opts.updateService ??
      (cv.spec.upstream !== undefined && cv.spec.upstream !== '' ? cv.spec.upstream : DEFAULT_UPSTREAM);
    const channel = cv.spec.channel ?? '';
    try {
      const res = await this.client.fetch({
        upstream,
        channel,
        version: currentVersion,
        arch: goArch(),
        ...(cv.spec.clusterID !== '' ? { id: cv.spec.clusterID } : {}),
        registry: this.registry,
        ...(signal ? { signal } : {}),
      });
      const accept = (cv.spec.desiredUpdate?.acceptRisks ?? []).map((r) => r.name);
      const ev = await evaluateConditionalUpdates(res.conditionalUpdates, {
        registry: this.registry,
        acceptRisks: accept,
        updates: res.updates,
        ...(cv.spec.clusterID !== '' ? { clusterId: cv.spec.clusterID } : {}),
      });
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const available = ev.updates.map(toRelease).sort(desc);
      const conditional: ConditionalUpdateStatus[] = ev.conditionalUpdates
        .map((c) => ({
          release: toRelease(c.release),
          risks: c.risks.map((r) => ({
            url: r.url,
            name: r.name,
            message: r.message,
            matchingRules: r.matchingRules.map((m) =>
              m.promql
                ? { type: m.type as 'PromQL', promql: { promql: m.promql.promql } }
                : { type: m.type as 'Always' },
            ),
          })),
          conditions: c.conditions.map((x) => ({ ...x, lastTransitionTime: now })),
        }))
        .sort((a, b) => desc(a.release, b.release))
        .map((c) =>
          keepTransitionTimes(c, [...(cv.status?.conditionalUpdates ?? []), ...(this.last?.conditionalUpdates ?? [])]),
        );
      this.last = {
        retrievedUpdates: { type: 'RetrievedUpdates', status: 'True', reason: '', message: '' },
        availableUpdates: available.length > 0 ? available : null,
        conditionalUpdates: conditional,
      };
      return this.last;
    } catch (e) {
      const reason = e instanceof UpdateRetrievalError ? e.reason : 'Unknown';
      const detail = e instanceof UpdateRetrievalError ? e.detail : (e as Error).message;
      const message =
        reason === 'NoChannel'
          ? 'The update channel has not been configured.'
          : `Unable to retrieve available updates: ${detail}`;
      const keep = this.last && ['RemoteFailed', 'ResponseFailed', 'ResponseInvalid'].includes(reason);
      return {
        retrievedUpdates: { type: 'RetrievedUpdates', status: 'False', reason, message },
        availableUpdates: keep && this.last ? this.last.availableUpdates : null,
        conditionalUpdates: keep && this.last ? this.last.conditionalUpdates : [],
      };
    }
  }

  /** Closes connections. */
  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * upstream `meta.SetStatusCondition` on the conditional update's previous conditions: a condition whose status did
 * not change keeps its `lastTransitionTime`, so a poll that finds nothing new does not rewrite the ClusterVersion status.
 */
export function keepTransitionTimes(
  next: ConditionalUpdateStatus,
  previous: readonly ConditionalUpdateStatus[],
): ConditionalUpdateStatus {
  const before = previous.find(
    (p) => p.release.version === next.release.version && p.release.image === next.release.image,
  );
  if (!before) return next;
  return {
    ...next,
    conditions: (next.conditions ?? []).map((c) => {
      const old = (before.conditions ?? []).find((o) => o.type === c.type);
      return old !== undefined && old.status === c.status && old.lastTransitionTime
        ? { ...c, lastTransitionTime: old.lastTransitionTime }
        : c;
    }),
  };
}
