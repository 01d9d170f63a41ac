/**
 * The update service as the CVO consults it: fetch the graph for the current version and channel, evaluate the
 * conditional edges' risks (PromQL against `--prometheus`, `Always`), and keep what the CVO would write to
 * `status.availableUpdates` and `status.conditionalUpdates` (Recommended True/False/Unknown with upstream reasons).
 */
import { createRiskRegistry, evaluateConditionalUpdates, UpdateGraphClient } from '@keelson/update-graph';
import type { GraphVerdict } from './preconditions.js';

/** Where and how to ask. */
export interface GraphQuery {
  upstream: string;
  channel: string;
  /** The cluster's current version. */
  version: string;
  /** Prometheus/Thanos URL for PromQL risks; without it PromQL risks evaluate to Recommended=Unknown. */
  prometheus?: string;
  /** The cluster ID, sent as `id` and injected into PromQL `_id=""` matchers (live clusters only). */
  clusterId?: string;
}

/** Fetches the graph and evaluates its risks. Errors are the update-graph client's typed errors. */
export async function consultUpdateService(q: GraphQuery): Promise<GraphVerdict> {
  const client = new UpdateGraphClient({});
  try {
    const registry = createRiskRegistry(q.prometheus !== undefined ? { url: q.prometheus } : undefined, {
      minBetweenMatchesMs: -1,
    });
    const fetched = await client.fetch({
      upstream: q.upstream,
      channel: q.channel,
      version: q.version,
      ...(q.clusterId !== undefined && q.clusterId !== '' ? { id: q.clusterId } : {}),
    });
    const ev = await evaluateConditionalUpdates(fetched.conditionalUpdates, {
      registry,
      updates: fetched.updates,
      ...(q.clusterId !== undefined && q.clusterId !== '' ? { clusterId: q.clusterId } : {}),
    });
    return {
      upstream: q.upstream,
      channel: q.channel,
      recommended: ev.updates.map((u) => ({ version: u.version, image: u.image })),
      conditional: ev.conditionalUpdates.map((cu) => {
        const rec = cu.conditions.find((c) => c.type === 'Recommended');
        return {
          version: cu.release.version,
          image: cu.release.image,
          risks: cu.risks.map((r) => r.name),
          ...(rec !== undefined
            ? { recommended: { status: rec.status, reason: rec.reason ?? '', message: rec.message ?? '' } }
            : {}),
        };
      }),
    };
  } finally {
    await client.close();
  }
}
