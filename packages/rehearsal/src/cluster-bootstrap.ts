/**
 * What the installer creates before the CVO runs (CRDs, namespaces, RBAC, CA bundles, cluster configuration,
 * ClusterVersion), the rehearsal's node inventory and the `--pools` custom pools.
 */
import { randomUUID } from 'node:crypto';
import { isAlreadyExists, KubeClient } from '@keelson/kube';
import {
  clusterCABundleObjects,
  operatorSimulatorManifests,
  type KubeObject,
  type Sandbox,
} from '@keelson/kube-sandbox';
import { filterManifests } from '@keelson/release-payload';
import { installCrds } from './bootstrap-crds.js';
import { cvoBootstrapRbac } from './identities.js';
import { rehearsalPullSecret } from './installer-objects.js';
import { installClusterConfig } from './cluster-config-install.js';
import type { IntOrPercent } from './max-unavailable.js';
import { type UpdateService } from './update-service.js';
import { bootstrapImageConfig } from './image-config.js';
import { bootstrapPriorityClasses } from './priority-classes.js';
import { type Release } from './options.js';

/** The node names and roles of the rehearsal cluster. */
export function nodeInventory(
  masters: number,
  workers: number,
  pools: Readonly<Record<string, number>>,
): { name: string; roles: string[] }[] {
  const out: { name: string; roles: string[] }[] = [];
  for (let i = 0; i < masters; i++) out.push({ name: `master-${i}`, roles: ['master'] });
  for (let i = 0; i < workers; i++) out.push({ name: `worker-${i}`, roles: ['worker'] });
  for (const [pool, n] of Object.entries(pools))
    for (let i = 0; i < n; i++) out.push({ name: `${pool}-${i}`, roles: ['worker', pool] });
  return out;
}

/** The sandbox's kubeconfig pointed at another server URL (the proxy). */
export function kubeconfigFor(sandbox: Sandbox, server: string): string {
  return sandbox.kubeconfigYaml().replace(/server: \S+/, `server: ${server}`);
}

/**
 * A custom pool as OpenShift's documentation has admins define one: nodes labelled `node-role.kubernetes.io/<name>`,
 * MachineConfigs of role worker and <name>; with `spec.maxUnavailable` when given.
 */
export function customPool(name: string, maxUnavailable?: IntOrPercent): Record<string, unknown> {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: {
      machineConfigSelector: {
        matchExpressions: [{ key: 'machineconfiguration.openshift.io/role', operator: 'In', values: ['worker', name] }],
      },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
      ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    },
  };
}

/**
 * The `--pools` custom pools, created with the cluster (as install-time manifests are) so that their machines, which
 * fetch `/config/<pool>` from the machine-config-server when they boot, find a rendered config.
 */
export async function createCustomPools(
  client: KubeClient,
  pools: Readonly<Record<string, number>>,
  maxUnavailable: Readonly<Record<string, IntOrPercent>>,
): Promise<void> {
  for (const name of Object.keys(pools)) {
    await client.request('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools', {
      body: customPool(name, maxUnavailable[name]),
    });
  }
}

/** Creates what the installer creates before the CVO runs: the payload's CRDs, the CVO's namespace, the cluster's CA ConfigMaps, ClusterVersion `version`. */
export async function bootstrapCluster(
  client: KubeClient,
  a: Pick<Release, 'payload'>,
  svc: Pick<UpdateService, 'channel' | 'upstream'>,
  caObjects?: readonly KubeObject[],
): Promise<void> {
  const crds = filterManifests(a.payload).included.filter((m) => m.gvk.kind === 'CustomResourceDefinition');
  await installCrds(
    client,
    crds.map((m) => m.object),
  );
  // the image configuration of an installed cluster (mirror sets reach nodes through the MCO)
  await bootstrapImageConfig(client);
  // openshift-user-critical, which the CVO's version Pod names (kube-apiserver's Priority admission needs it)
  await bootstrapPriorityClasses(client);
  // the CVO's own namespaces (rendered from its manifests/ by the installer's bootstrap, where its Lease lives)
  for (const m of a.payload.manifests.filter(
    (x) => x.dir === 'manifests' && x.gvk.group === '' && x.gvk.kind === 'Namespace',
  )) {
    try {
      await client.request('POST', '/api/v1/namespaces', { body: m.object });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  // the CVO's ServiceAccount and RBAC (the installer creates them with the CVO's Deployment), and the identity of the
  // cluster-operator simulator
  const objects = [...cvoBootstrapRbac(a.payload).map((m) => m.object), ...operatorSimulatorManifests()];
  for (const o of objects) await createIfMissing(client, o);
  // the CA bundles of an installed cluster (the installer's root-ca and initial serving CA, the kube-apiserver
  // operator's client CA, bootstrap complete): the machine-config-operator reads them into its ControllerConfig
  for (const o of caObjects ?? (await clusterCABundleObjects())) {
    const path =
      o.kind === 'Namespace' ? '/api/v1/namespaces' : `/api/v1/namespaces/${o.metadata?.namespace ?? ''}/configmaps`;
    try {
      await client.request('POST', path, { body: o });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  // the installer's cluster configuration (Infrastructure, Network, Proxy, DNS, APIServer, Image) the MCO reads
  await installClusterConfig(client);
  // the installer's global pull secret, which ControllerConfig spec.pullSecret names
  await client
    .request('POST', '/api/v1/namespaces/openshift-config/secrets', { body: rehearsalPullSecret() })
    .catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  await client.request('POST', '/apis/config.openshift.io/v1/clusterversions', {
    body: {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: randomUUID(), channel: svc.channel, upstream: svc.upstream },
    },
  });
}

const RBAC_PLURALS: Record<string, string> = {
  ServiceAccount: 'serviceaccounts',
  Namespace: 'namespaces',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
};

/** Creates a Namespace, ServiceAccount or RBAC object unless it exists. */
async function createIfMissing(
  client: KubeClient,
  o: { apiVersion?: unknown; kind?: unknown; metadata?: { namespace?: string } },
): Promise<void> {
  const plural = RBAC_PLURALS[String(o.kind)];
  if (plural === undefined) throw new Error(`bootstrap: unexpected kind ${String(o.kind)}`);
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${String(o.apiVersion)}`;
  const ns = o.metadata?.namespace;
  const path =
    ns !== undefined &&
    ns !== '' &&
    plural !== 'namespaces' &&
    plural !== 'clusterroles' &&
    plural !== 'clusterrolebindings'
      ? `${base}/namespaces/${ns}/${plural}`
      : `${base}/${plural}`;
  try {
    await client.request('POST', path, { body: o });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}
