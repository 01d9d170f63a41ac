/**
 * `keelson upgrade plan --from A --to B`: a dry run of an update. Without a cluster it judges from release A; with
 * `--kubeconfig` it reads the live cluster (ClusterVersion, ClusterOperators, MachineConfigPools, MachineConfigs) and
 * judges the update with the CVO's own precondition and signature functions.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { MachineConfig } from '@keelson/machineconfig';
import { ADMIN_GATES, type AdminAckInput } from '@keelson/cluster-version';
import {
  featureGateState,
  openPayload,
  PayloadError,
  verifyTargetRelease,
  type ClusterFacts,
  type ReleasePayload,
} from '@keelson/release-payload';
import { parseAllDocuments, stringify as stringifyYaml } from 'yaml';
import { CliError } from '../errors.js';
import {
  computeClusterMachineConfigs,
  computeClusterPools,
  computeJudgedClusterVersion,
  liveManifestFacts,
  notUpgradeableOperators,
} from '../plan/cluster-facts.js';
import { readLiveCluster, type LiveCluster } from '../plan/cluster.js';
import { computeUpgradePlan, configsOf, DEFAULT_POOL_NODES, type UpgradePlanInput } from '../plan/compute-plan.js';
import { formatPlan } from '../plan/format.js';
import { consultUpdateService } from '../plan/graph.js';
import { DEFAULT_NODE_TIMES, type PoolInput } from '../plan/pools.js';
import type { GraphVerdict, SignatureVerdict } from '../plan/preconditions.js';
import { clientFromKubeconfig } from '../upgrade/cluster.js';

interface PlanOptions {
  from?: string;
  to: string;
  kubeconfig?: string | boolean;
  force?: boolean;
  machineconfigs?: string;
  pools?: string;
  output: string;
  upstream?: string;
  channel?: string;
  prometheus?: string;
  drainSeconds: string;
  applySeconds: string;
  rebootSeconds: string;
  featureSet?: string;
  featureGates?: string;
}

const MAX_FILE = 16 << 20;

async function readYamlDocs(path: string): Promise<unknown[]> {
  const text = await readFile(path, 'utf8').catch((e: unknown) => {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`, 1);
  });
  if (text.length > MAX_FILE) throw new CliError(`${path} is larger than 16 MiB`, 1);
  const docs = parseAllDocuments(text);
  const out: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    if (d.errors.length > 0) throw new CliError(`${path}: invalid YAML: ${d.errors[0]?.message ?? ''}`, 1);
    const v: unknown = d.toJS();
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/**
 * MachineConfigs from every .yaml/.yml/.json file of DIR (Lists unpacked). Two of the same name are refused: a cluster
 * holds one object per name (the second `oc apply` replaces the first), and rendering both would double their
 * kernel arguments.
 */
async function readMachineConfigs(dir: string): Promise<MachineConfig[]> {
  const seen = new Map<string, string>();
  const names = (
    await readdir(dir).catch((e: unknown) => {
      throw new CliError(`--machineconfigs ${dir}: ${(e as Error).message}`, 1);
    })
  )
    .filter((n) => /\.(ya?ml|json)$/.test(n))
    .sort();
  const out: MachineConfig[] = [];
  for (const n of names) {
    for (const doc of await readYamlDocs(join(dir, n))) {
      const items =
        (doc as { kind?: unknown; items?: unknown[] }).kind === 'List'
          ? ((doc as { items?: unknown[] }).items ?? [])
          : [doc];
      for (const it of items) {
        const o = it as { kind?: unknown; metadata?: { name?: unknown } };
        if (o.kind !== 'MachineConfig') continue;
        if (typeof o.metadata?.name !== 'string')
          throw new CliError(`${join(dir, n)}: a MachineConfig without metadata.name`, 1);
        const before = seen.get(o.metadata.name);
        if (before !== undefined)
          throw new CliError(
            `--machineconfigs ${dir}: two MachineConfigs named ${o.metadata.name} (${before} and ${join(dir, n)}): a cluster holds one object per name; keep one`,
            1,
          );
        seen.set(o.metadata.name, join(dir, n));
        out.push(it as MachineConfig);
      }
    }
  }
  return out;
}

/** Pools file: `pools: [{name, nodes, maxUnavailable?, paused?, machineConfigSelector?}]` (or the list itself). */
async function readPools(path: string): Promise<PoolInput[]> {
  const [doc] = await readYamlDocs(path);
  const list = Array.isArray(doc) ? doc : (doc as { pools?: unknown } | undefined)?.pools;
  if (!Array.isArray(list))
    throw new CliError(`${path}: expected "pools:" with a list of {name, nodes, maxUnavailable}`, 1);
  return list.map((p: unknown, i) => {
    const o = (p ?? {}) as Record<string, unknown>;
    const at = `${path}: pools[${i}]`;
    if (typeof o['name'] !== 'string' || o['name'] === '')
      throw new CliError(`${at}.name must be a non-empty string`, 1);
    const nodes = o['nodes'] ?? DEFAULT_POOL_NODES;
    if (typeof nodes !== 'number' || !Number.isInteger(nodes) || nodes < 0 || nodes > 100_000)
      throw new CliError(`${at}.nodes must be an integer 0..100000`, 1);
    const mu = o['maxUnavailable'];
    if (mu !== undefined && typeof mu !== 'number' && !(typeof mu === 'string' && /^\d+%?$/.test(mu)))
      throw new CliError(`${at}.maxUnavailable must be a count or a percentage like "20%"`, 1);
    return {
      name: o['name'],
      nodes,
      ...(mu !== undefined ? { maxUnavailable: mu } : {}),
      ...(o['paused'] === true ? { paused: true } : {}),
      ...(o['machineConfigSelector'] !== undefined
        ? { machineConfigSelector: o['machineConfigSelector'] as PoolInput['machineConfigSelector'] & object }
        : {}),
    };
  });
}

async function open(source: string, what: string): Promise<ReleasePayload> {
  try {
    return await openPayload(source);
  } catch (e) {
    if (e instanceof PayloadError) throw new CliError(`${what} ${source}: ${e.message}`, 1);
    throw e;
  }
}

/** B's signature as the CVO checks it (A's root of trust; the cluster's signature ConfigMaps and spec.signatureStores when live). */
async function signatureOf(
  from: ReleasePayload,
  to: ReleasePayload,
  live: LiveCluster | undefined,
): Promise<SignatureVerdict | undefined> {
  if (to.image === undefined) return undefined;
  const specStores = live?.clusterVersion.spec.signatureStores;
  const r = await verifyTargetRelease({
    image: to.releaseImage,
    current: from.manifests,
    ...(live !== undefined ? { signatureConfigMaps: live.signatureConfigMaps } : {}),
    ...(specStores !== undefined ? { signatureStores: specStores } : {}),
  });
  const s = r.result?.signatures[0];
  if (r.verified && s !== undefined)
    return {
      verified: true,
      detail: `signed by key ${s.fingerprint} (keyring ${s.keyring}), signature from ${s.store}`,
    };
  return { verified: false, detail: (r.error ?? 'no valid signature').replace(/^The update cannot be verified: /, '') };
}

function seconds(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new CliError(`${flag} must be a number of seconds >= 0, got ${JSON.stringify(v)}`, 2);
  return n;
}

async function readCluster(kubeconfig: string | boolean | undefined): Promise<LiveCluster | undefined> {
  if (kubeconfig === undefined || kubeconfig === false) return undefined;
  const client = await clientFromKubeconfig(typeof kubeconfig === 'string' ? kubeconfig : undefined);
  try {
    return await readLiveCluster(client);
  } catch (e) {
    throw new CliError(`cannot read the cluster: ${(e as Error).message}`, 1);
  }
}

async function graphOf(
  o: PlanOptions,
  from: ReleasePayload,
  live: LiveCluster | undefined,
): Promise<GraphVerdict | undefined> {
  if (o.upstream === undefined || o.channel === undefined) return undefined;
  try {
    const clusterId = live?.clusterVersion.spec.clusterID;
    return await consultUpdateService({
      upstream: o.upstream,
      channel: o.channel,
      version: from.metadata.version,
      ...(o.prometheus !== undefined ? { prometheus: o.prometheus } : {}),
      ...(clusterId !== undefined ? { clusterId } : {}),
    });
  } catch (e) {
    throw new CliError(`update service ${o.upstream}: ${(e as Error).message}`, 1);
  }
}

/** The plan's inputs from a live cluster: the judged ClusterVersion, its pools and its own MachineConfigs. */
function clusterInputs(live: LiveCluster, from: ReleasePayload, to: ReleasePayload): Partial<UpgradePlanInput> {
  const shipped = new Set([...configsOf(from), ...configsOf(to)].map((m) => m.metadata.name ?? ''));
  const pools = computeClusterPools(live.pools);
  // a cluster without admin-gates (no OpenShift CVO installed it) is not judged for acks
  const adminAcks =
    live.adminGates != null
      ? { history: live.clusterVersion.status?.history, gates: live.adminGates, acks: live.adminAcks ?? null }
      : undefined;
  return {
    ...(adminAcks !== undefined ? { adminAcks } : {}),
    cluster: {
      clusterVersion: computeJudgedClusterVersion(live.clusterVersion, live.operators, adminAcks),
      notUpgradeable: notUpgradeableOperators(live.operators),
    },
    userMachineConfigs: computeClusterMachineConfigs(live.machineConfigs, shipped),
    ...(pools.length > 0 ? { pools } : {}),
  };
}

const FEATURE_SETS = ['Default', 'TechPreviewNoUpgrade', 'DevPreviewNoUpgrade', 'CustomNoUpgrade', 'OKD'];

/**
 * The feature set and enabled gates the cluster's CVO filters manifests with: `--feature-set`/`--feature-gates`, else
 * FeatureGate `cluster` of the live cluster (the gates of the current version), else Default with no gates.
 */
export function planFacts(
  o: Pick<PlanOptions, 'featureSet' | 'featureGates'>,
  live: LiveCluster | undefined,
  version: string,
): ClusterFacts {
  if (o.featureSet !== undefined && !FEATURE_SETS.includes(o.featureSet))
    throw new CliError(
      `--feature-set must be one of ${FEATURE_SETS.join(', ')}, got ${JSON.stringify(o.featureSet)}`,
      2,
    );
  const cluster = featureGateState(live?.featureGate, version);
  const featureSet = o.featureSet !== undefined ? (o.featureSet === 'Default' ? '' : o.featureSet) : cluster.featureSet;
  const gates =
    o.featureGates !== undefined
      ? o.featureGates
          .split(',')
          .map((g) => g.trim())
          .filter((g) => g !== '')
      : cluster.enabledGates;
  // the capabilities (ClusterVersion status) and overrides (spec) the cluster's CVO filters with
  const fromCluster = live !== undefined ? liveManifestFacts(live.clusterVersion, live.featureGate) : {};
  return {
    featureSet,
    enabledFeatureGates: gates,
    ...(fromCluster.capabilities !== undefined ? { capabilities: fromCluster.capabilities } : {}),
    ...(fromCluster.overrides !== undefined ? { overrides: fromCluster.overrides } : {}),
  };
}

/** Release A's admin gates (the data of its `openshift-config-managed/admin-gates` manifests), with no acks: offline. */
export function releaseAdminAcks(from: ReleasePayload): AdminAckInput | undefined {
  const gates: Record<string, string> = {};
  let found = false;
  for (const m of from.manifests) {
    if (m.gvk.kind !== 'ConfigMap' || m.namespace !== ADMIN_GATES.namespace || m.name !== ADMIN_GATES.name) continue;
    found = true;
    for (const [k, v] of Object.entries((m.object['data'] ?? {}) as Record<string, unknown>))
      if (typeof v === 'string') gates[k] = v;
  }
  return found ? { history: [{ state: 'Completed', version: from.metadata.version }], gates, acks: {} } : undefined;
}

async function buildPlanInput(o: PlanOptions): Promise<UpgradePlanInput> {
  const times = {
    drain: seconds(o.drainSeconds, '--drain-seconds'),
    apply: seconds(o.applySeconds, '--apply-seconds'),
    reboot: seconds(o.rebootSeconds, '--reboot-seconds'),
  };
  const live = await readCluster(o.kubeconfig);
  const fromSource =
    o.from ??
    (live?.clusterVersion.status?.desired.image !== undefined && live.clusterVersion.status.desired.image !== ''
      ? `docker://${live.clusterVersion.status.desired.image}`
      : undefined);
  if (fromSource === undefined)
    throw new CliError(
      live === undefined
        ? '--from is required without --kubeconfig'
        : 'the cluster reports no desired image: give --from',
      2,
    );
  const [from, to] = await Promise.all([open(fromSource, '--from'), open(o.to, '--to')]);
  const graph = await graphOf(o, from, live);
  const signature = await signatureOf(from, to, live);
  const fromCluster = live !== undefined ? clusterInputs(live, from, to) : {};
  const offlineAcks = live === undefined ? releaseAdminAcks(from) : undefined;
  const userMcs = o.machineconfigs !== undefined ? await readMachineConfigs(o.machineconfigs) : [];
  const shipped = new Set([...configsOf(from), ...configsOf(to)].map((m) => m.metadata.name ?? ''));
  const clash = userMcs.find((m) => shipped.has(m.metadata.name ?? ''));
  if (clash !== undefined)
    throw new CliError(
      `--machineconfigs ${o.machineconfigs ?? ''}: MachineConfig ${clash.metadata.name ?? ''} has the name of one the release ships: the CVO would overwrite yours; give it another name`,
      1,
    );
  // yours replace the cluster's of the same name, as `oc apply` of them would
  const mine = new Set(userMcs.map((m) => m.metadata.name ?? ''));
  return {
    ...fromCluster,
    from,
    to,
    times,
    force: o.force === true,
    facts: planFacts(o, live, live?.clusterVersion.status?.desired.version ?? from.metadata.version),
    ...(offlineAcks !== undefined ? { adminAcks: offlineAcks } : {}),
    userMachineConfigs: [
      ...(fromCluster.userMachineConfigs ?? []).filter((m) => !mine.has(m.metadata.name ?? '')),
      ...userMcs,
    ],
    ...(o.pools !== undefined ? { pools: await readPools(o.pools) } : {}),
    ...(graph !== undefined ? { graph } : {}),
    ...(signature !== undefined ? { signature } : {}),
  };
}

/** Registers `plan` under `keelson upgrade`. */
export function registerUpgradePlanCommand(upgrade: Command): void {
  upgrade
    .command('plan')
    .description(
      'Dry-run an update: manifests, run levels, the CVO preconditions and verdict, risks, per-pool node rollout (offline, or against a cluster with --kubeconfig)',
    )
    .option(
      '--from <source>',
      "current release: directory, OCI layout, archive or docker://image (default with --kubeconfig: the cluster's desired image)",
    )
    .requiredOption('--to <source>', 'target release (same forms)')
    .option(
      '--kubeconfig [file]',
      'read the live cluster (ClusterVersion, ClusterOperators, MachineConfigPools, MachineConfigs); without FILE: KUBECONFIG, ~/.kube/config or in-cluster',
    )
    .option(
      '--force',
      'judge as desiredUpdate.force=true would (blocking preconditions and signature failures become accepted risks)',
    )
    .option(
      '--feature-set <set>',
      'cluster feature set the manifests are filtered with (Default, TechPreviewNoUpgrade, DevPreviewNoUpgrade, CustomNoUpgrade, OKD; default with --kubeconfig: FeatureGate cluster)',
    )
    .option(
      '--feature-gates <list>',
      'enabled feature gates, comma list (default with --kubeconfig: those FeatureGate cluster enables for the current version)',
    )
    .option('--machineconfigs <dir>', 'your MachineConfigs (YAML/JSON), rendered into the pools with each release')
    .option(
      '--pools <file>',
      "pools and sizes: {pools: [{name, nodes, maxUnavailable, paused, machineConfigSelector}]} (overrides the cluster's)",
    )
    .option('--upstream <url>', 'update service graph URL, for recommended updates and risks')
    .option('--channel <name>', 'channel for --upstream')
    .option('--prometheus <url>', 'evaluate PromQL risks against this Prometheus/Thanos URL')
    .option('--drain-seconds <n>', 'per-node drain time for the estimate', String(DEFAULT_NODE_TIMES.drain))
    .option('--apply-seconds <n>', 'per-node time to write the config', String(DEFAULT_NODE_TIMES.apply))
    .option('--reboot-seconds <n>', 'per-node reboot time', String(DEFAULT_NODE_TIMES.reboot))
    .option('-o, --output <format>', 'text, json or yaml', 'text')
    .action(async (o: PlanOptions) => {
      if (o.output !== 'text' && o.output !== 'json' && o.output !== 'yaml')
        throw new CliError(`-o must be text, json or yaml, got ${o.output}`, 2);
      if ((o.upstream === undefined) !== (o.channel === undefined))
        throw new CliError('--upstream and --channel go together', 2);
      const plan = computeUpgradePlan(await buildPlanInput(o));
      process.stdout.write(
        o.output === 'json'
          ? `${JSON.stringify(plan, null, 2)}\n`
          : o.output === 'yaml'
            ? stringifyYaml(plan)
            : formatPlan(plan),
      );
    });
}
