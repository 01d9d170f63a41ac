/**
 * `keelson rehearse --kubeconfig FILE`: the rehearsal against an existing API server (a real kube-apiserver, kind, k3s,
 * or the embedded one started by `keelson sandbox start`) instead of an embedded one it starts itself. Before anything
 * is written the server is checked: the kubeconfig's identity must hold the rights the installer's bootstrap and the
 * CVO need (it applies ClusterRoles and CRDs; RBAC lets only a holder of a permission grant it), and the cluster must
 * be empty of OpenShift objects (a rehearsal installs its own ClusterVersion, pools and operators). The components
 * reach the server through the rehearsal's counting proxy; the proxy's admin token stands for the kubeconfig's own
 * credentials (token, client certificate or exec plugin), which never leave this process.
 */
import { randomBytes } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { isNotFound, KubeApiError, KubeClient, KubeConfig } from '@keelson/kube';
import type { ProxyUpstream } from './api-proxy.js';

/** Why a `--kubeconfig` cluster cannot be rehearsed against. */
export type RehearsalTargetErrorCode = 'KUBECONFIG' | 'UNREACHABLE' | 'NO_RIGHTS' | 'NOT_EMPTY';

/** A `--kubeconfig` cluster the rehearsal refuses (nothing was written to it). */
export class RehearsalTargetError extends Error {
  constructor(
    message: string,
    readonly code: RehearsalTargetErrorCode,
  ) {
    super(message);
    this.name = 'RehearsalTargetError';
  }
}

/** An existing API server, reached with the credentials of a kubeconfig. */
export interface TargetCluster {
  /** The kubeconfig file it was read from. */
  readonly file: string;
  /** The server URL of the kubeconfig's current context. */
  readonly server: string;
  /** A client with the kubeconfig's own credentials (no proxy): bootstrap, observer, cleanup. */
  readonly client: KubeClient;
  /** How the rehearsal's proxy connects to the server and authenticates its admin token. */
  readonly upstream: ProxyUpstream;
  /** Resolves the admin credentials again (a new exec-plugin token once the old one expires). */
  refresh(): Promise<void>;
}

/** How often a rehearsal against an existing server resolves the admin credentials again. */
export const CREDENTIALS_REFRESH_MS = 60_000;

/** Opens the kubeconfig (current context) and resolves its credentials; nothing is sent to the server yet. */
export async function openTarget(file: string): Promise<TargetCluster> {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (e) {
    throw new RehearsalTargetError(`--kubeconfig ${file}: cannot load it: ${(e as Error).message}`, 'KUBECONFIG');
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null || cluster.server === '')
    throw new RehearsalTargetError(
      `--kubeconfig ${file}: its current-context names no cluster with a server URL`,
      'KUBECONFIG',
    );
  const first = await resolveCredentials(kc, file);
  const upstream: ProxyUpstream = { adminToken: randomBytes(24).toString('hex'), ...first };
  return {
    file,
    server: cluster.server,
    client: KubeClient.fromKubeconfigFile(file, { userAgent: 'keelson-rehearse' }),
    upstream,
    refresh: async () => {
      // an exec plugin's token expires (client-node caches it until then and runs the plugin again)
      upstream.admin = (await resolveCredentials(kc, file)).admin;
    },
  };
}

/** The CA, TLS verification and admin credentials of the kubeconfig's current context (exec plugins run). */
async function resolveCredentials(kc: KubeConfig, file: string): Promise<Omit<ProxyUpstream, 'adminToken'>> {
  const https: RequestOptions = {};
  try {
    await kc.applyToHTTPSOptions(https);
  } catch (e) {
    throw new RehearsalTargetError(
      `--kubeconfig ${file}: cannot resolve the credentials of user ${kc.getCurrentUser()?.name ?? '?'}: ${(e as Error).message}`,
      'KUBECONFIG',
    );
  }
  const pem = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
  const headers = (https.headers ?? {}) as Record<string, unknown>;
  const authorization = headers['Authorization'] ?? headers['authorization'];
  const ca = pem(https.ca);
  const cert = pem(https.cert);
  const key = pem(https.key);
  return {
    ...(ca !== undefined ? { ca } : {}),
    ...(https.rejectUnauthorized === false ? { insecureSkipTlsVerify: true } : {}),
    admin: {
      ...(typeof authorization === 'string' ? { authorization } : {}),
      ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
    },
  };
}

/** A permission the rehearsal needs, as a SelfSubjectAccessReview asks it. */
interface Permission {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  /** What it is needed for, in the refusal. */
  why: string;
}

/**
 * What the rehearsal does with the admin's identity: the installer's bootstrap (CRDs, namespaces, the CVO's RBAC),
 * the virtual machines' kubelets (Nodes), the components' ServiceAccount tokens, and the CVO applying a whole release
 * (any kind, ClusterRoles included: RBAC's escalation check only lets a subject grant what it holds).
 */
export const REQUIRED_PERMISSIONS: readonly Permission[] = [
  { verb: 'create', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', why: 'install the CRDs' },
  { verb: 'delete', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', why: 'clean up' },
  { verb: 'create', group: '', resource: 'namespaces', why: "create the CVO's namespaces" },
  { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', why: "the CVO's RBAC" },
  { verb: 'create', group: '', resource: 'nodes', why: "register the virtual machines' kubelets" },
  { verb: 'create', group: '', resource: 'serviceaccounts', subresource: 'token', why: "the components' identities" },
  {
    verb: '*',
    group: '*',
    resource: '*',
    why: 'the CVO applies every kind of a release, ClusterRoles granting anything',
  },
];

interface AccessReview {
  status?: { allowed?: boolean; reason?: string };
}

function describePermission(p: Permission): string {
  if (p.verb === '*' && p.resource === '*') return `use every verb on every resource of every group (${p.why})`;
  const res = `${p.resource}${p.subresource !== undefined ? `/${p.subresource}` : ''}`;
  return `${p.verb} ${p.group === '' ? res : `${res}.${p.group}`} (${p.why})`;
}

/** Asks the server, one SelfSubjectAccessReview per {@link REQUIRED_PERMISSIONS} entry; refuses when any is denied. */
export async function checkRights(t: TargetCluster): Promise<void> {
  const denied: string[] = [];
  for (const p of REQUIRED_PERMISSIONS) {
    let review: AccessReview;
    try {
      review = await t.client.request<AccessReview>('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              verb: p.verb,
              group: p.group,
              resource: p.resource,
              ...(p.subresource !== undefined ? { subresource: p.subresource } : {}),
            },
          },
        },
      });
    } catch (e) {
      throw reachError(t, e, 'a SelfSubjectAccessReview');
    }
    if (review.status?.allowed !== true) denied.push(describePermission(p));
  }
  if (denied.length > 0)
    throw new RehearsalTargetError(
      `--kubeconfig ${t.file}: the identity it authenticates as (at ${t.server}) lacks the rights a rehearsal needs ` +
        `(cluster-admin): cannot ${denied.join('; cannot ')}. Nothing was written`,
      'NO_RIGHTS',
    );
}

function reachError(t: TargetCluster, e: unknown, what: string): RehearsalTargetError {
  if (e instanceof KubeApiError && (e.status === 401 || e.status === 403))
    return new RehearsalTargetError(
      `--kubeconfig ${t.file}: ${t.server} refused ${what} (${e.status}): its credentials are not accepted or may not ask. Nothing was written`,
      e.status === 401 ? 'KUBECONFIG' : 'NO_RIGHTS',
    );
  return new RehearsalTargetError(
    `--kubeconfig ${t.file}: cannot reach ${t.server}: ${(e as Error).message}`,
    'UNREACHABLE',
  );
}

/** An API group of OpenShift's (`config.openshift.io`, `machineconfiguration.openshift.io`, ...). */
export function isOpenShiftGroup(group: string): boolean {
  return group === 'openshift.io' || group.endsWith('.openshift.io');
}

/** What a cluster holds that a rehearsal would collide with; empty lists: the cluster may be rehearsed against. */
export interface OpenShiftLeftovers {
  crds: string[];
  namespaces: string[];
  nodes: string[];
}

/** Lists the OpenShift CRDs, `openshift-*` namespaces and Nodes named as the rehearsal's machines. */
export async function findLeftovers(t: TargetCluster, nodeNames: readonly string[]): Promise<OpenShiftLeftovers> {
  type Named = { metadata?: { name?: string }; spec?: { group?: string } };
  let lists: Named[][];
  try {
    lists = await Promise.all(
      ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions', '/api/v1/namespaces', '/api/v1/nodes'].map(
        async (p) => (await t.client.request<{ items?: Named[] }>('GET', p)).items ?? [],
      ),
    );
  } catch (e) {
    throw reachError(t, e, 'a list of CRDs, namespaces and nodes');
  }
  const [crds = [], namespaces = [], nodes = []] = lists;
  const names = (xs: Named[]): string[] => xs.map((x) => x.metadata?.name ?? '').sort();
  const machines = new Set(nodeNames);
  return {
    crds: names(crds.filter((c) => isOpenShiftGroup(c.spec?.group ?? ''))),
    namespaces: names(namespaces.filter((n) => /^openshift(-|$)/.test(n.metadata?.name ?? ''))),
    nodes: names(nodes.filter((n) => machines.has(n.metadata?.name ?? ''))),
  };
}

function some(xs: readonly string[], what: string): string | undefined {
  if (xs.length === 0) return undefined;
  const shown = xs.slice(0, 5).join(', ');
  return `${xs.length} ${what} (${shown}${xs.length > 5 ? ', ...' : ''})`;
}

/** Refuses a cluster with OpenShift objects or Nodes of the rehearsal's names. */
export async function checkEmpty(t: TargetCluster, nodeNames: readonly string[]): Promise<void> {
  const l = await findLeftovers(t, nodeNames);
  const found = [
    some(l.crds, 'CustomResourceDefinitions of OpenShift API groups'),
    some(l.namespaces, 'openshift-* namespaces'),
    some(l.nodes, "Nodes with the names of the rehearsal's machines"),
  ].filter((x) => x !== undefined);
  if (found.length > 0)
    throw new RehearsalTargetError(
      `--kubeconfig ${t.file}: the cluster at ${t.server} is not empty of OpenShift objects: it has ${found.join(', ')}. ` +
        'A rehearsal installs its own; rehearse against a cluster without OpenShift (a rehearsal run with --keep leaves ' +
        'these behind: delete them first). Nothing was written',
      'NOT_EMPTY',
    );
}

/** Whether a GET says the object is there (false on 404). */
export async function exists(client: KubeClient, path: string): Promise<boolean> {
  try {
    await client.request('GET', path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
