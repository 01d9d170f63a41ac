/**
 * `computeUpgradePlan`: what an update from release A to release B will do. Pure: takes two loaded payloads (and
 * optional pools, user MachineConfigs, update-service answer, signature verdict, live cluster facts) and returns the
 * plan, judging acceptance with the CVO's own precondition functions.
 */
import type { ClusterVersion } from '@keelson/api';
import type { ControllerConfigInput, MachineConfig } from '@keelson/machineconfig';
import { computeRunLevels, type RunLevelPlan } from '@keelson/rehearsal';
import {
  diffPayloads,
  filterManifests,
  implicitlyEnabledCapabilities,
  type ClusterFacts,
  type Manifest,
  type ReleasePayload,
} from '@keelson/release-payload';
import { parseSemver } from '@keelson/update-graph';
import {
  adminAckPatchCommand,
  pendingAdminAcks,
  updateType,
  type AdminAckInput,
  type PendingAdminAck,
} from '@keelson/cluster-version';
import {
  computePoolPlan,
  DEFAULT_NODE_TIMES,
  type NodeTimes,
  type PoolInput,
  type PoolPlan,
  type Selector,
} from './pools.js';
import {
  computePreconditions,
  decideAcceptance,
  offlineClusterVersion,
  withGraphVerdict,
  type Acceptance,
  type GraphVerdict,
  type PreconditionResult,
  type SignatureVerdict,
} from './preconditions.js';

/** A manifest named by kind, namespace/name and file. */
export interface ManifestRef {
  kind: string;
  name: string;
  file: string;
}

/** Inputs of {@link computeUpgradePlan}. */
export interface UpgradePlanInput {
  from: ReleasePayload;
  to: ReleasePayload;
  /** MachineConfigs the user adds (e.g. from --machineconfigs DIR), applied to both sides. */
  userMachineConfigs?: readonly MachineConfig[];
  /** Pools with sizes; default: B's MachineConfigPools with {@link DEFAULT_POOL_NODES} nodes each. */
  pools?: readonly PoolInput[];
  times?: NodeTimes;
  graph?: GraphVerdict;
  /** B's signature check, when B came from an image. */
  signature?: SignatureVerdict;
  /** A live cluster: the ClusterVersion to judge (Upgradeable as the CVO computes it) and its blocking operators. */
  cluster?: { clusterVersion: ClusterVersion; notUpgradeable: { name: string; reason: string; message: string }[] };
  /** Judge as `desiredUpdate.force: true` would. */
  force?: boolean;
  /** What filters the manifests as the cluster's CVO does (feature set and enabled gates; default: Default, none). */
  facts?: ClusterFacts;
  /** The admin-ack gates and acknowledgements (the live cluster's, or release A's gates with no acks). */
  adminAcks?: AdminAckInput;
}

/** The plan. */
export interface UpgradePlan {
  from: string;
  to: string;
  /** The target pull spec (or source path) named in the CVO's messages. */
  toImage: string;
  /** Where the current state came from: a live cluster (`--kubeconfig`) or release A alone. */
  basis: 'cluster' | 'release';
  manifests: {
    changed: (ManifestRef & { paths: string[] })[];
    added: ManifestRef[];
    removed: ManifestRef[];
    deleted: ManifestRef[];
    unchanged: number;
  };
  images: { changed: number; os: { name: string; from?: string; to?: string }[] };
  runLevels: RunLevelPlan[];
  preconditions: PreconditionResult[];
  /** What the CVO would do with the request. */
  acceptance: Acceptance;
  /** ClusterOperators reporting Upgradeable=False (live clusters). */
  operatorsNotUpgradeable?: { name: string; reason: string; message: string }[];
  /** Admin acknowledgements a minor or major update needs first, and the `oc patch` that gives them all. */
  adminAcks?: { pending: PendingAdminAck[]; patch: string };
  /**
   * Capabilities the CVO enables implicitly when it loads B (upstream `GetImplicitlyEnabledCapabilities`): a resource
   * A manages under an enabled capability moved to one that is not (a live cluster's capabilities only).
   */
  implicitlyEnabledCapabilities?: string[];
  /** The update service's answer for the current version (with --upstream/--channel). */
  updates?: GraphVerdict;
  signature?: SignatureVerdict;
  pools: PoolPlan[];
  /** Pools roll out in parallel: the slowest pool's estimate, seconds. */
  estimatedSeconds: number;
  notes: string[];
}

/** Node count assumed for a pool when no --pools file says otherwise. */
export const DEFAULT_POOL_NODES = 3;

const ref = (m: Manifest): ManifestRef => ({
  kind: m.gvk.kind,
  name: m.namespace === '' ? m.name : `${m.namespace}/${m.name}`,
  file: m.filename,
});

/** The MachineConfig manifests a release ships (included for the default profile). */
export function configsOf(p: ReleasePayload, facts?: ClusterFacts): MachineConfig[] {
  return filterManifests(p, facts)
    .included.filter((m) => m.gvk.group === 'machineconfiguration.openshift.io' && m.gvk.kind === 'MachineConfig')
    .map((m) => m.object as unknown as MachineConfig);
}

/** ControllerConfig fields from the release's machine-config-osimageurl ConfigMap. */
export function controllerConfigOf(p: ReleasePayload): ControllerConfigInput {
  const cm = p.manifests.find(
    (m) =>
      m.gvk.kind === 'ConfigMap' &&
      m.name === 'machine-config-osimageurl' &&
      m.namespace === 'openshift-machine-config-operator',
  );
  const data = (cm?.object['data'] ?? {}) as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof data[k] === 'string' ? data[k] : undefined);
  const out: ControllerConfigInput = { releaseImageVersion: p.metadata.version };
  const os = str('baseOSContainerImage') ?? p.images['rhel-coreos'];
  const ext = str('baseOSExtensionsContainerImage') ?? p.images['rhel-coreos-extensions'];
  if (os !== undefined) out.baseOSContainerImage = os;
  if (ext !== undefined) out.baseOSExtensionsContainerImage = ext;
  return out;
}

/** Pools declared by a release (MachineConfigPool manifests), sized {@link DEFAULT_POOL_NODES}. */
export function poolsOf(p: ReleasePayload): PoolInput[] {
  return p.manifests
    .filter((m) => m.gvk.kind === 'MachineConfigPool')
    .map((m) => {
      const spec = (m.object['spec'] ?? {}) as {
        maxUnavailable?: number | string;
        paused?: boolean;
        machineConfigSelector?: Selector;
      };
      return {
        name: m.name,
        nodes: DEFAULT_POOL_NODES,
        ...(spec.maxUnavailable !== undefined ? { maxUnavailable: spec.maxUnavailable } : {}),
        ...(spec.paused !== undefined ? { paused: spec.paused } : {}),
        ...(spec.machineConfigSelector !== undefined ? { machineConfigSelector: spec.machineConfigSelector } : {}),
      };
    });
}

const imageOf = (p: ReleasePayload): string => (p.releaseImage !== '' ? p.releaseImage : p.source);

/** The acceptance half of the plan: preconditions judged by the CVO's functions, signature, the CVO's verdict. */
export function computeJudgement(
  input: UpgradePlanInput,
): Pick<UpgradePlan, 'preconditions' | 'acceptance'> & { notes: string[] } {
  const { from, to } = input;
  const notes: string[] = [];
  const live = input.cluster?.clusterVersion;
  if (input.graph === undefined && live === undefined)
    notes.push('no update service consulted: give --upstream URL --channel NAME [--prometheus URL] for graph risks');
  if (input.signature === undefined)
    notes.push(
      `${to.metadata.version} was not read from an image by digest, so its signature was not checked; the CVO verifies it before accepting`,
    );
  if (live !== undefined && live.status?.desired.version !== from.metadata.version) {
    notes.push(
      `the cluster's desired version is ${live.status?.desired.version ?? '(none)'}, but --from is ${from.metadata.version}: manifests and pools are planned from --from`,
    );
  }
  const base = live ?? offlineClusterVersion({ version: from.metadata.version, image: imageOf(from) });
  const cv = input.graph !== undefined ? withGraphVerdict(base, input.graph) : base;
  const pre = computePreconditions(cv, to.metadata.version, {
    live: live !== undefined,
    graph: input.graph !== undefined || live !== undefined,
  });
  const acceptance = decideAcceptance({
    version: to.metadata.version,
    image: imageOf(to),
    errors: pre.errors,
    force: input.force ?? false,
    notEvaluated: pre.results.filter((r) => r.state === 'NotEvaluated').map((r) => r.name),
    ...(input.signature !== undefined ? { signature: input.signature } : {}),
  });
  return { preconditions: pre.results, acceptance, notes };
}

function manifestChanges(
  from: ReleasePayload,
  to: ReleasePayload,
  diff: ReturnType<typeof diffPayloads>,
  facts?: ClusterFacts,
  toFacts: ClusterFacts | undefined = facts,
): UpgradePlan['manifests'] {
  const deletedBefore = new Set(filterManifests(from, facts).deletions.map((m) => m.id));
  const deleted = filterManifests(to, toFacts).deletions.filter((m) => !deletedBefore.has(m.id));
  return {
    changed: diff.manifests.changed.flatMap((c) => {
      const m = to.manifests.find((x) => x.id === c.id);
      return m === undefined ? [] : [{ ...ref(m), paths: c.changes.map((v) => v.path) }];
    }),
    added: diff.manifests.added.map(ref),
    removed: diff.manifests.removed.map(ref),
    deleted: deleted.map(ref),
    unchanged: diff.manifests.unchanged,
  };
}

/** The acks a minor or major update from A needs (upstream: Upgradeable=False AdminAckRequired blocks it). */
function adminAcksOf(input: UpgradePlanInput): Pick<UpgradePlan, 'adminAcks'> {
  if (input.adminAcks === undefined) return {};
  let kind: string;
  try {
    kind = updateType(parseSemver(input.from.metadata.version), parseSemver(input.to.metadata.version));
  } catch {
    return {};
  }
  if (kind !== 'Minor' && kind !== 'Major') return {};
  const pending = pendingAdminAcks(input.adminAcks);
  return pending.length > 0 ? { adminAcks: { pending, patch: adminAckPatchCommand(pending.map((p) => p.gate)) } } : {};
}

/**
 * The facts B's manifests are filtered with: A's, plus the capabilities the CVO enables implicitly when it loads B
 * (as cluster-version-operator `pkg/cvo/cvo.go` `loadReleasePayload` → `capability.SetFromImplicitlyEnabledCapabilities`).
 */
export function targetFacts(input: Pick<UpgradePlanInput, 'from' | 'to' | 'facts'>): {
  facts: ClusterFacts | undefined;
  implicit: string[];
} {
  const caps = input.facts?.capabilities;
  if (input.facts === undefined || caps === undefined) return { facts: input.facts, implicit: [] };
  const { capabilities: _caps, ...rest } = input.facts;
  const implicit = implicitlyEnabledCapabilities(input.to.manifests, input.from.manifests, caps, rest);
  if (implicit.length === 0) return { facts: input.facts, implicit };
  const enabled = [...new Set([...caps.enabled, ...implicit])].sort();
  return { facts: { ...input.facts, capabilities: { known: caps.known, enabled } }, implicit };
}

/** Computes the plan. */
export function computeUpgradePlan(input: UpgradePlanInput): UpgradePlan {
  const { from, to } = input;
  const target = targetFacts(input);
  const diff = diffPayloads(from, to);
  const user = input.userMachineConfigs ?? [];
  const pools = input.pools ?? poolsOf(to);
  const a = { configs: [...configsOf(from, input.facts), ...user], controllerConfig: controllerConfigOf(from) };
  const b = { configs: [...configsOf(to, target.facts), ...user], controllerConfig: controllerConfigOf(to) };
  const poolPlans = pools.map((p) => computePoolPlan(p, a, b, input.times ?? DEFAULT_NODE_TIMES));
  const judged = computeJudgement(input);
  const notes = [...judged.notes];
  if (pools.length === 0)
    notes.push(
      'no MachineConfigPools (the target release declares none and no cluster was read): give --pools FILE to plan node rollouts',
    );
  else if (input.pools === undefined)
    notes.push(
      `no cluster was read and no --pools given: assumed ${pools.map((p) => `${p.name} ${p.nodes} nodes`).join(', ')} (the pools ${to.metadata.version} declares, ${DEFAULT_POOL_NODES} nodes each); give --pools FILE or --kubeconfig for your sizes`,
    );
  return {
    from: from.metadata.version,
    to: to.metadata.version,
    toImage: imageOf(to),
    basis: input.cluster !== undefined ? 'cluster' : 'release',
    manifests: manifestChanges(from, to, diff, input.facts, target.facts),
    images: { changed: diff.images.length, os: diff.osImages },
    runLevels: computeRunLevels(from, to, target.facts),
    preconditions: judged.preconditions,
    acceptance: judged.acceptance,
    ...(input.cluster !== undefined ? { operatorsNotUpgradeable: input.cluster.notUpgradeable } : {}),
    ...adminAcksOf(input),
    ...(target.implicit.length > 0 ? { implicitlyEnabledCapabilities: target.implicit } : {}),
    ...(input.graph !== undefined ? { updates: input.graph } : {}),
    ...(input.signature !== undefined ? { signature: input.signature } : {}),
    pools: poolPlans,
    estimatedSeconds: Math.max(0, ...poolPlans.map((p) => p.estimatedSeconds)),
    notes,
  };
}
