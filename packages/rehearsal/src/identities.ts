/**
 * Who each rehearsal component runs as. As in a cluster, a component runs as the ServiceAccount its workload
 * manifest names (`spec.template.spec.serviceAccountName`, `default` when absent) with only the RBAC the release
 * ships for it: the rehearsal waits until the CVO has created that ServiceAccount and a binding naming it (as a pod
 * cannot start before its ServiceAccount exists), mints it a token (TokenRequest) and hands the component a
 * kubeconfig with that token. A missing permission then fails the rehearsal as it would fail a cluster.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, type KubeClient } from '@keelson/kube';
import type { ReleasePayload } from '@keelson/release-payload';

/** A ServiceAccount. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** The workload (as shipped in the release) whose pods a rehearsal component stands for. */
export interface Workload {
  kind: 'Deployment' | 'DaemonSet';
  namespace: string;
  name: string;
}

const MCO_NS = 'openshift-machine-config-operator';

/** The workloads of the components the rehearsal starts from the release. */
export const COMPONENT_WORKLOADS = {
  'cluster-version-operator': {
    kind: 'Deployment',
    namespace: 'openshift-cluster-version',
    name: 'cluster-version-operator',
  },
  'machine-config-operator': { kind: 'Deployment', namespace: MCO_NS, name: 'machine-config-operator' },
  'machine-config-controller': { kind: 'Deployment', namespace: MCO_NS, name: 'machine-config-controller' },
  'machine-config-server': { kind: 'DaemonSet', namespace: MCO_NS, name: 'machine-config-server' },
  'machine-config-daemon': { kind: 'DaemonSet', namespace: MCO_NS, name: 'machine-config-daemon' },
} as const satisfies Record<string, Workload>;

/** A component the rehearsal runs from a release workload. */
export type ReleaseComponent = keyof typeof COMPONENT_WORKLOADS;

/** The ServiceAccount the release's workload manifest runs as; undefined when the release ships no such workload. */
export function workloadServiceAccount(
  payload: Pick<ReleasePayload, 'manifests'>,
  w: Workload,
): ServiceAccountRef | undefined {
  const m = payload.manifests.find(
    (x) => x.gvk.group === 'apps' && x.gvk.kind === w.kind && x.namespace === w.namespace && x.name === w.name,
  );
  if (m === undefined) return undefined;
  return { namespace: w.namespace, name: podServiceAccount(m.object) };
}

/** The ServiceAccount a workload object's pod template runs as (`default` when it names none). */
function podServiceAccount(obj: unknown): string {
  const spec = (obj as { spec?: { template?: { spec?: { serviceAccountName?: unknown; serviceAccount?: unknown } } } })
    .spec?.template?.spec;
  if (typeof spec?.serviceAccountName === 'string' && spec.serviceAccountName !== '') return spec.serviceAccountName;
  if (typeof spec?.serviceAccount === 'string' && spec.serviceAccount !== '') return spec.serviceAccount;
  return 'default';
}

/** Thrown when an operand workload never appears (its operator did not deploy it). */
export class WorkloadMissing extends Error {}

/**
 * The ServiceAccount of a workload an operator deploys (not the release: upstream's machine-config-operator renders
 * and applies the daemon DaemonSet, the controller Deployment and the server DaemonSet itself): waits (up to
 * `deadline`, epoch ms) until the workload exists in the cluster, as its pods cannot start before it does.
 */
export async function waitForClusterWorkload(
  client: KubeClient,
  w: Workload,
  deadline: number,
  stopped: () => boolean = () => false,
): Promise<ServiceAccountRef> {
  const plural = w.kind === 'Deployment' ? 'deployments' : 'daemonsets';
  const path = `/apis/apps/v1/namespaces/${w.namespace}/${plural}/${encodeURIComponent(w.name)}`;
  let last: string;
  for (;;) {
    try {
      return { namespace: w.namespace, name: podServiceAccount(await client.request('GET', path)) };
    } catch (e) {
      // absent until its operator gets to it; any other error (an API hiccup) is retried like the absence
      last = isNotFound(e) ? 'not found' : (e as Error).message;
    }
    if (Date.now() > deadline || stopped())
      throw new WorkloadMissing(
        `${w.kind.toLowerCase()} ${w.namespace}/${w.name} was not deployed (the operator that owns it did not get to it; last GET: ${last})`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The RBAC kinds the installer creates from the CVO's own `manifests/` before the CVO runs. */
const BOOTSTRAP_RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

/** The CVO's own ServiceAccount and RBAC manifests (`manifests/`), in payload order. */
export function cvoBootstrapRbac(payload: Pick<ReleasePayload, 'manifests'>): ReleasePayload['manifests'] {
  return payload.manifests.filter(
    (m) =>
      m.dir === 'manifests' &&
      BOOTSTRAP_RBAC_KINDS.has(m.gvk.kind) &&
      (m.gvk.group === '' || m.gvk.group === 'rbac.authorization.k8s.io'),
  );
}

interface BindingLike {
  metadata?: { labels?: Record<string, string> };
  roleRef?: { kind?: string; name?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
}

/**
 * Whether a binding names the ServiceAccount (or one of its groups); the API server's own bootstrap bindings
 * (label `kubernetes.io/bootstrapping: rbac-defaults`, e.g. issuer discovery for `system:serviceaccounts`) do not count.
 */
export function bindsServiceAccount(b: BindingLike, bindingNamespace: string, sa: ServiceAccountRef): boolean {
  if (b.metadata?.labels?.['kubernetes.io/bootstrapping'] === 'rbac-defaults') return false;
  return (b.subjects ?? []).some((s) => {
    if (s.kind === 'ServiceAccount')
      return (
        s.name === sa.name &&
        (s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace) === sa.namespace
      );
    if (s.kind === 'Group')
      return s.name === 'system:serviceaccounts' || s.name === `system:serviceaccounts:${sa.namespace}`;
    return s.kind === 'User' && s.name === `system:serviceaccount:${sa.namespace}:${sa.name}`;
  });
}

/** Whether the role a binding references exists (a binding created before its role grants nothing yet). */
async function roleExists(client: KubeClient, b: BindingLike, bindingNamespace: string): Promise<boolean> {
  const name = encodeURIComponent(b.roleRef?.name ?? '');
  const path =
    b.roleRef?.kind === 'Role'
      ? `/apis/rbac.authorization.k8s.io/v1/namespaces/${bindingNamespace}/roles/${name}`
      : `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
  return exists(client, path);
}

/** A RoleBinding or ClusterRoleBinding a release ships (namespace '' for a ClusterRoleBinding). */
export interface ShippedBinding {
  namespace: string;
  name: string;
  binding: BindingLike;
}

/** The release's bindings that name the ServiceAccount: what it will be allowed once they are all applied. */
export function shippedBindings(payload: Pick<ReleasePayload, 'manifests'>, sa: ServiceAccountRef): ShippedBinding[] {
  return payload.manifests.flatMap((m) => {
    if (
      m.gvk.group !== 'rbac.authorization.k8s.io' ||
      (m.gvk.kind !== 'RoleBinding' && m.gvk.kind !== 'ClusterRoleBinding')
    )
      return [];
    const ns = m.gvk.kind === 'RoleBinding' ? m.namespace : '';
    const b = m.object as BindingLike;
    return bindsServiceAccount(b, ns, sa) ? [{ namespace: ns, name: m.name, binding: b }] : [];
  });
}

async function exists(client: KubeClient, path: string): Promise<boolean> {
  try {
    await client.request('GET', path);
    return true;
  } catch {
    return false;
  }
}

/** Whether a shipped binding and the role it references exist in the cluster. */
async function shippedBindingApplied(client: KubeClient, s: ShippedBinding): Promise<boolean> {
  const base = '/apis/rbac.authorization.k8s.io/v1';
  const path =
    s.namespace === ''
      ? `${base}/clusterrolebindings/${encodeURIComponent(s.name)}`
      : `${base}/namespaces/${s.namespace}/rolebindings/${encodeURIComponent(s.name)}`;
  return (await exists(client, path)) && (await roleExists(client, s.binding, s.namespace));
}

/**
 * Whether the ServiceAccount exists with its RBAC: every binding of `shipped` (the release's bindings naming it) and
 * the roles they reference; without shipped bindings, any RoleBinding or ClusterRoleBinding naming it (other than the
 * API server's bootstrap policy) whose role exists.
 */
export async function serviceAccountReady(
  client: KubeClient,
  sa: ServiceAccountRef,
  shipped: readonly ShippedBinding[] = [],
): Promise<boolean> {
  if (!(await exists(client, `/api/v1/namespaces/${sa.namespace}/serviceaccounts/${sa.name}`))) return false;
  if (shipped.length > 0) {
    for (const s of shipped) if (!(await shippedBindingApplied(client, s))) return false;
    return true;
  }
  const crbs = await client.request<{ items?: BindingLike[] }>(
    'GET',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  );
  for (const b of crbs.items ?? [])
    if (bindsServiceAccount(b, '', sa) && (await roleExists(client, b, ''))) return true;
  const rbs = await client.request<{ items?: BindingLike[] }>(
    'GET',
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${sa.namespace}/rolebindings`,
  );
  for (const b of rbs.items ?? [])
    if (bindsServiceAccount(b, sa.namespace, sa) && (await roleExists(client, b, sa.namespace))) return true;
  return false;
}

/** Thrown when a component's ServiceAccount never appears (the CVO did not get to its manifests). */
export class ServiceAccountMissing extends Error {}

/**
 * Waits (up to `deadline`, epoch ms) until the ServiceAccount exists with its RBAC (see {@link serviceAccountReady});
 * `stopped` ends the wait early (the rehearsal is over).
 */
export async function waitForServiceAccount(
  client: KubeClient,
  sa: ServiceAccountRef,
  deadline: number,
  shipped: readonly ShippedBinding[] = [],
  stopped: () => boolean = () => false,
): Promise<void> {
  for (;;) {
    if (await serviceAccountReady(client, sa, shipped)) return;
    if (Date.now() > deadline || stopped())
      throw new ServiceAccountMissing(
        `serviceaccount ${sa.namespace}/${sa.name} was not created and bound (the release's manifests for it were not applied)`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Seconds a component's token lives (a rehearsal never lasts this long; kubelet would rotate it). */
export const COMPONENT_TOKEN_SECONDS = 7 * 24 * 3600;

/**
 * Mints a token for the ServiceAccount through its TokenRequest subresource (as the kubelet does for a pod's
 * projected token) and writes a kubeconfig for `server` with it; returns the file's path.
 */
export async function writeServiceAccountKubeconfig(
  client: KubeClient,
  server: string,
  sa: ServiceAccountRef,
  dir: string,
  file: string,
): Promise<string> {
  const tr = await client.request<{ status?: { token?: string } }>(
    'POST',
    `/api/v1/namespaces/${sa.namespace}/serviceaccounts/${sa.name}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: [], expirationSeconds: COMPONENT_TOKEN_SECONDS },
      },
    },
  );
  const token = tr.status?.token ?? '';
  if (token === '') throw new Error(`no token issued for serviceaccount ${sa.namespace}/${sa.name}`);
  const user = `system:serviceaccount:${sa.namespace}:${sa.name}`;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': user,
    clusters: [{ name: 'rehearsal', cluster: { server } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: 'rehearsal', user, namespace: sa.namespace } }],
  };
  const path = join(dir, file);
  await writeFile(path, JSON.stringify(doc, null, 2), { mode: 0o600 });
  return path;
}
