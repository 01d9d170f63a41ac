/**
 * The rehearsal's OpenShift Update Service: @keelson/update-graph's createGraphServer over loopback with a channel
 * holding A → B, plus a third release C reachable from A only through a conditional edge whose PromQL risk is
 * evaluated against the rehearsal's tiny Prometheus endpoint, so recommended and not-recommended updates are real.
 */
import {
  createGraphServer,
  createRiskRegistry,
  evaluateConditionalUpdates,
  UpdateGraphClient,
  type Condition,
  type GraphData,
  type GraphServer,
  type ReleaseInput,
} from '@keelson/update-graph';
import { startPromQLServer, type PromQLServer, type Series } from './promql.js';

/** A release the update service knows. */
export interface ServiceRelease {
  version: string;
  /** Pull spec by digest. */
  payload: string;
}

/** Options of {@link startUpdateService}. */
export interface UpdateServiceOptions {
  from: ServiceRelease;
  to: ServiceRelease;
  /** Channel name (default `stable-<major>.<minor>` of `to`). */
  channel?: string;
  /** Facts the PromQL endpoint answers from (default: the rehearsal cluster runs on platform None). */
  series?: () => readonly Series[];
}

/** The conditional-update risk on A → C. */
export const REHEARSAL_RISK = {
  name: 'RehearsalPlatformNoneIngressRegression',
  url: 'https://github.com/keelson/keelson/blob/main/apps/keelson/README.md#rehearse',
  message: 'Clusters on platform None lose ingress for up to 10 minutes while updating to this release.',
  promql: 'group(cluster_infrastructure_provider{_id="",type="None"}) or 0 * group(cluster_version{_id=""})',
} as const;

/** A running update service. */
export interface UpdateService {
  /** Graph URL (`…/api/upgrades_info/v1/graph`), what ClusterVersion spec.upstream points at. */
  upstream: string;
  channel: string;
  /** Prometheus URL the risks are evaluated against. */
  prometheus: string;
  /** The version reachable only through the conditional edge. */
  conditionalVersion: string;
  server: GraphServer;
  promql: PromQLServer;
  close(): Promise<void>;
}

function bump(version: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (m === null) throw new TypeError(`update service: ${version} is not a semantic version`);
  return `${m[1] ?? ''}.${m[2] ?? ''}.${Number(m[3]) + 1}`;
}

/** Starts the PromQL endpoint and the graph server; both on 127.0.0.1. */
export async function startUpdateService(opts: UpdateServiceOptions): Promise<UpdateService> {
  const [major, minor] = opts.to.version.split('.');
  const channel = opts.channel ?? `stable-${major ?? '4'}.${minor ?? '0'}`;
  const c = bump(opts.to.version);
  const meta = { 'io.openshift.upgrades.graph.release.channels': channel };
  const releases: ReleaseInput[] = [
    { version: opts.from.version, payload: opts.from.payload, previous: [], metadata: meta },
    { version: opts.to.version, payload: opts.to.payload, previous: [opts.from.version], metadata: meta },
    // C exists only in the graph (it is offered, never applied): its pull spec names a digest no registry serves
    {
      version: c,
      payload: `${opts.to.payload.replace(/@sha256:.*$/, '')}@sha256:${'c'.repeat(64)}`,
      previous: [opts.from.version, opts.to.version],
      metadata: meta,
    },
  ];
  const esc = opts.from.version.replaceAll('.', '\\.');
  const graphData: GraphData = {
    version: '1.2.0',
    rawMetadata: {},
    blockedEdges: [],
    conditionalEdges: [
      {
        file: `blocked-edges/${c}-${REHEARSAL_RISK.name}.yaml`,
        from: esc,
        to: c,
        risk: {
          url: REHEARSAL_RISK.url,
          name: REHEARSAL_RISK.name,
          message: REHEARSAL_RISK.message,
          matchingRules: [{ type: 'PromQL', promql: { promql: REHEARSAL_RISK.promql } }],
        },
      },
    ],
    channels: [{ file: `channels/${channel}.yaml`, name: channel, versions: [opts.from.version, opts.to.version, c] }],
    warnings: [],
  };
  const series =
    opts.series ??
    ((): Series[] => [
      { name: 'cluster_infrastructure_provider', labels: { type: 'None', region: '' }, value: 1 },
      { name: 'cluster_version', labels: { type: 'current', version: opts.from.version }, value: 1 },
    ]);
  const promql = await startPromQLServer(series);
  const server = createGraphServer({ releases, graphData, prefix: '/api/upgrades_info' });
  let base: string;
  try {
    base = await server.listen(0, '127.0.0.1');
  } catch (e) {
    await promql.close();
    throw e;
  }
  return {
    upstream: `${base.replace(/\/$/, '')}/api/upgrades_info/v1/graph`,
    channel,
    prometheus: promql.url,
    conditionalVersion: c,
    server,
    promql,
    close: async () => {
      await server.close();
      await promql.close();
    },
  };
}

/** Available updates of `version` as the CVO would show them: recommended, and conditional with `Recommended`. */
export interface EvaluatedUpdates {
  recommended: string[];
  conditional: { version: string; risks: string[]; recommended: Condition | undefined }[];
}

/** Fetches the graph and evaluates its conditional risks against the PromQL endpoint (what `oc adm upgrade` shows). */
export async function evaluateUpdates(
  upstream: string,
  channel: string,
  version: string,
  prometheus?: string,
): Promise<EvaluatedUpdates> {
  const client = new UpdateGraphClient({});
  try {
    const result = await client.fetch({ upstream, channel, version });
    const registry = createRiskRegistry(prometheus !== undefined ? { url: prometheus } : undefined, {
      minBetweenMatchesMs: -1,
    });
    const ev = await evaluateConditionalUpdates(result.conditionalUpdates, { registry, updates: result.updates });
    return {
      recommended: result.updates.map((u) => u.version),
      conditional: ev.conditionalUpdates.map((cu) => ({
        version: cu.release.version,
        risks: cu.risks.map((r) => r.name),
        recommended: cu.conditions[0],
      })),
    };
  } finally {
    await client.close();
  }
}
