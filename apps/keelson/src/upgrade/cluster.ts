/**
 * The I/O side of `keelson upgrade`: read ClusterVersion `version` (+ ClusterOperators, MachineConfigPools) and
 * write `spec.desiredUpdate` as oc's JSON merge patch. `requestUpgrade` is the programmatic entry point that
 * `keelson rehearse` shares with the command.
 */
import type { Node } from '@keelson/api';
import {
  ClusterOperators as ClusterOperatorsApi,
  ClusterVersions as ClusterVersionsApi,
  defineResource,
  isNotFound,
  KubeClient,
  MachineConfigPools as MachineConfigPoolsApi,
  MachineConfigs as MachineConfigsApi,
  type KubeObject,
} from '@keelson/kube';
import type { ClusterVersion, MachineConfigPool } from './api-types.js';
import {
  clearedMessage,
  desiredUpdatePatch,
  planUpgrade,
  UpgradeRequestError,
  validateUpgradeOptions,
  type UpgradeRequestOptions,
} from './request.js';
import { AlertsFetchError, fetchAlerts } from './alerts-fetch.js';
import { planRollback, type RollbackPlan } from './rollback.js';
import { NODE_ANNOTATIONS } from './status-nodes.js';
import { computeOcStatus, machineConfigNames, OcStatusError, type OcStatus } from './status-oc.js';
import { computeUpgradeStatus, type UpgradeStatusSummary } from './status-summary.js';

const NodesApi = defineResource<Node>({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false });

interface DeploymentLike extends KubeObject {
  spec?: { template?: { spec?: { containers?: { name: string; image?: string }[] } } };
}
const DeploymentsApi = defineResource<DeploymentLike>({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
});

/** The name of the one ClusterVersion. */
export const CLUSTER_VERSION_NAME = 'version';

/** oc's text when there is no ClusterVersion. */
export const NO_CLUSTER_VERSION =
  'No cluster version information available - you must be connected to an OpenShift version 4 server to fetch the current version';

/** Builds a client from `--kubeconfig FILE`, else `KUBECONFIG` / `~/.kube/config` / in-cluster. */
export async function clientFromKubeconfig(path: string | undefined): Promise<KubeClient> {
  try {
    return await Promise.resolve(KubeClient.fromKubeconfigFile(path, { userAgent: 'keelson-cli/0.1' }));
  } catch (e) {
    throw new UpgradeRequestError((e as Error).message);
  }
}

/** GETs ClusterVersion `version`; a 404 becomes oc's "No cluster version information available" error. */
export async function getClusterVersion(client: KubeClient): Promise<ClusterVersion> {
  try {
    return await client.resource(ClusterVersionsApi).get(CLUSTER_VERSION_NAME);
  } catch (e) {
    if (isNotFound(e)) throw new UpgradeRequestError(NO_CLUSTER_VERSION);
    throw e;
  }
}

/**
 * GETs ClusterVersion `version` as `oc adm upgrade status` and `rollback` do: their missing-ClusterVersion error is
 * worded in lower case, unlike `oc adm upgrade`'s ({@link NO_CLUSTER_VERSION}).
 */
async function getClusterVersionLowerCase(client: KubeClient): Promise<ClusterVersion> {
  try {
    return await client.resource(ClusterVersionsApi).get(CLUSTER_VERSION_NAME);
  } catch (e) {
    if (isNotFound(e))
      throw new UpgradeRequestError(NO_CLUSTER_VERSION.charAt(0).toLowerCase() + NO_CLUSTER_VERSION.slice(1));
    throw e;
  }
}

/** What {@link requestUpgrade} did. */
export interface UpgradeRequestResult {
  /** The merge patch sent, or undefined when nothing was written. */
  patch?: ReturnType<typeof desiredUpdatePatch>;
  /** Lines oc would print on stdout. */
  out: string[];
  /** Warnings oc would print on stderr. */
  err: string[];
  /** The ClusterVersion after the write (or as read when nothing was written). */
  clusterVersion: ClusterVersion;
}

/**
 * Requests (or clears) an update exactly as `oc adm upgrade --to/--to-image/--to-latest/--to-multi-arch/--clear`:
 * validates the flags, reads ClusterVersion `version`, chooses the target, applies the client-side guards and
 * writes `{"spec":{"desiredUpdate":…}}` as a JSON merge patch. Throws {@link UpgradeRequestError} with oc's texts.
 */
export async function requestUpgrade(client: KubeClient, opts: UpgradeRequestOptions): Promise<UpgradeRequestResult> {
  const warnings = validateUpgradeOptions(opts);
  const cv = await getClusterVersion(client);
  const plan = planUpgrade(cv, opts);
  if (plan === undefined)
    throw new UpgradeRequestError(
      'no update requested: pass --to, --to-image, --to-latest, --to-multi-arch or --clear',
      true,
    );
  const err = [...warnings, ...plan.err];
  if (plan.desiredUpdate === undefined) return { out: plan.out, err, clusterVersion: cv };
  const patch = desiredUpdatePatch(plan.desiredUpdate);
  let updated: ClusterVersion;
  try {
    updated = await client
      .resource(ClusterVersionsApi)
      .patch(cv.metadata.name ?? CLUSTER_VERSION_NAME, patch, { type: 'merge' });
  } catch (e) {
    throw new UpgradeRequestError(
      `${opts.clear === true ? 'Unable to cancel current rollout' : 'Unable to upgrade'}: ${(e as Error).message}`,
    );
  }
  const original = cv.spec.desiredUpdate;
  const out = opts.clear === true && original ? [clearedMessage(original, updated)] : plan.out;
  return { patch, out, err, clusterVersion: updated };
}

/** What {@link setChannel} did. */
export interface ChannelResult {
  out: string[];
  err: string[];
  changed: boolean;
}

/**
 * `oc adm upgrade channel NAME` (empty NAME clears): checks NAME against `status.desired.channels` and writes
 * `spec.channel` with an update of the ClusterVersion (as oc does; a conflicting concurrent write fails with 409).
 */
export async function setChannel(
  client: KubeClient,
  channel: string,
  allowExplicitChannel: boolean,
): Promise<ChannelResult> {
  const cv = await getClusterVersion(client);
  const current = cv.spec.channel ?? '';
  if (channel === current)
    return {
      out: [
        current === ''
          ? 'info: Cluster channel is already clear (no change)'
          : `info: Cluster is already in ${current} (no change)`,
      ],
      err: [],
      changed: false,
    };
  const err: string[] = [];
  const known = cv.status?.desired?.channels ?? [];
  if (known.length > 0) {
    if (channel === '') {
      if (known.includes(current) && !allowExplicitChannel)
        throw new UpgradeRequestError(
          `You are requesting to clear the update channel. The current channel ${JSON.stringify(current)} is one of the available channels, you must pass --allow-explicit-channel to continue\n`,
        );
    } else if (!known.includes(channel)) {
      if (!allowExplicitChannel)
        throw new UpgradeRequestError(
          `the requested channel ${JSON.stringify(channel)} is not one of the available channels (${known.join(', ')}), you must pass --allow-explicit-channel to continue\n`,
        );
      err.push(
        `warning: The requested channel ${JSON.stringify(channel)} is not one of the available channels (${known.join(', ')}). You have used --allow-explicit-channel to proceed anyway. Setting the update channel to ${JSON.stringify(channel)}.`,
      );
    }
  } else if (channel !== '') {
    err.push(
      `warning: No channels known to be compatible with the current version ${JSON.stringify(cv.status?.desired?.version ?? '')}; unable to validate ${JSON.stringify(channel)}. Setting the update channel to ${JSON.stringify(channel)} anyway.`,
    );
  }
  if (channel === '')
    err.push(
      `warning: Clearing channel ${JSON.stringify(current)}; cluster will no longer request available update recommendations.`,
    );
  const next: ClusterVersion = { ...cv, spec: { ...cv.spec, channel } };
  try {
    await client.resource(ClusterVersionsApi).update(next);
  } catch (e) {
    throw new UpgradeRequestError(`unable to set channel: ${(e as Error).message}`);
  }
  return { out: [], err, changed: true };
}

/** Reads what `keelson upgrade status` needs and computes the diagnosis. MachineConfigPools are optional. */
export async function readUpgradeStatus(
  client: KubeClient,
  now: number,
  previous?: UpgradeStatusSummary,
): Promise<UpgradeStatusSummary> {
  const cv = await getClusterVersion(client);
  const operators = (await client.resource(ClusterOperatorsApi).listAll()).items;
  let pools: MachineConfigPool[] = [];
  try {
    pools = (await client.resource(MachineConfigPoolsApi).listAll()).items;
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  const input: Parameters<typeof computeUpgradeStatus>[0] = { clusterVersion: cv, operators, pools, now };
  if (previous !== undefined) input.previous = previous;
  return computeUpgradeStatus(input);
}

/**
 * The MCO's own image from Deployment openshift-machine-config-operator/machine-config-operator (oc's
 * `getMCOImagePullSpec`); undefined when the Deployment does not exist (oc fails there; Keelson then skips the
 * `operator-image` comparison).
 */
async function mcoImage(client: KubeClient): Promise<string | undefined> {
  try {
    const d = await client.resource(DeploymentsApi).get('machine-config-operator', 'openshift-machine-config-operator');
    return d.spec?.template?.spec?.containers?.find((c) => c.name === 'machine-config-operator')?.image ?? '';
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** The `release-image-version` of each named MachineConfig (absent ones are skipped). */
async function machineConfigVersions(client: KubeClient, names: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of names) {
    try {
      const mc = await client.resource(MachineConfigsApi).get(name);
      out.set(name, mc.metadata.annotations?.[NODE_ANNOTATIONS.releaseImageVersion] ?? '');
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
  return out;
}

/** Lists a kind, an absent API (404: no MCO installed) being an empty list. */
async function listOrEmpty<T extends KubeObject>(fn: () => Promise<{ items: T[] }>): Promise<T[]> {
  try {
    return (await fn()).items;
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

/**
 * Reads what `oc adm upgrade status` reads (ClusterVersion, ClusterOperators, MachineConfigPools, Nodes, their
 * current/desired MachineConfigs, the MCO Deployment) and assesses the update as oc does. oc's refusals become
 * {@link UpgradeRequestError}.
 */
export async function readOcStatus(client: KubeClient, now: number, previous?: OcStatus): Promise<OcStatus> {
  const cv = await getClusterVersionLowerCase(client);
  const operators = (await client.resource(ClusterOperatorsApi).listAll()).items;
  const pools = await listOrEmpty(() => client.resource(MachineConfigPoolsApi).listAll());
  const nodes = (await client.resource(NodesApi).listAll()).items;
  const mcVersions = await machineConfigVersions(client, machineConfigNames(nodes));
  const image = await mcoImage(client);
  let alerts: { json: string } | { error: string };
  try {
    alerts = { json: await fetchAlerts(client) };
  } catch (e) {
    if (!(e instanceof AlertsFetchError)) throw e;
    alerts = { error: e.message };
  }
  try {
    return computeOcStatus({
      clusterVersion: cv,
      operators,
      pools,
      nodes,
      mcVersions,
      ...(image !== undefined ? { mcoImage: image } : {}),
      now,
      alerts,
      ...(previous !== undefined ? { previous } : {}),
    });
  } catch (e) {
    if (e instanceof OcStatusError) throw new UpgradeRequestError(e.message);
    throw e;
  }
}

/**
 * `keelson upgrade rollback` as `oc adm upgrade rollback`: reads ClusterVersion `version`, decides with
 * {@link planRollback} and writes `spec.desiredUpdate` with oc's JSON merge patch; returns the confirmation line.
 */
export async function requestRollback(client: KubeClient): Promise<{ out: string; plan: RollbackPlan }> {
  const cv = await getClusterVersionLowerCase(client);
  const plan = planRollback(cv);
  try {
    await client
      .resource(ClusterVersionsApi)
      .patch(cv.metadata.name ?? CLUSTER_VERSION_NAME, desiredUpdatePatch(plan.desiredUpdate), { type: 'merge' });
  } catch (e) {
    throw new UpgradeRequestError(`Unable to rollback: ${(e as Error).message}`);
  }
  return { out: `Requested rollback from ${plan.from} to ${plan.to}`, plan };
}
