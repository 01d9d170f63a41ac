/**
 * The default RBAC policy kube-apiserver reconciles at start (its `rbac/bootstrap-roles` post-start hook), limited
 * to the roles a sandbox client meets: `cluster-admin` for `system:masters`, discovery, basic-user, public-info and
 * service-account-issuer discovery for everyone authenticated, and `system:auth-delegator` (bound by operators'
 * manifests). Upstream: kubernetes `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go` (`ClusterRoles`,
 * `ClusterRoleBindings`). Plus the ClusterRole aggregation controller (kube-controller-manager
 * `pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go` `syncClusterRole`), which fills the
 * rules of every ClusterRole with an `aggregationRule` from the ClusterRoles its selectors match.
 */
import { matchLabelRequirements } from '@keelson/api';
import type { Cluster } from './cluster.js';
import { rulesOf, type PolicyRule } from './rbac.js';
import { requirementsFromSelector } from './selectors.js';
import { grKey, type KubeObject, type ResourceType } from './types.js';
import { clone, deepEqual, isObject } from './util.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const BOOTSTRAP_META = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

const get = (urls: string[]): PolicyRule => ({ verbs: ['get'], nonResourceURLs: urls });

/** The bootstrap ClusterRoles (rules as upstream's policy.go states them). */
export const BOOTSTRAP_CLUSTER_ROLES: Readonly<Record<string, PolicyRule[]>> = {
  'cluster-admin': [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ],
  'system:discovery': [
    get([
      '/api',
      '/api/*',
      '/apis',
      '/apis/*',
      '/healthz',
      '/livez',
      '/openapi',
      '/openapi/*',
      '/readyz',
      '/version',
      '/version/',
    ]),
  ],
  'system:public-info-viewer': [get(['/healthz', '/livez', '/readyz', '/version', '/version/'])],
  'system:basic-user': [
    {
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ],
  'system:auth-delegator': [
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] },
  ],
  'system:service-account-issuer-discovery': [
    get([
      '/.well-known/openid-configuration',
      '/.well-known/openid-configuration/',
      '/openid/v1/jwks',
      '/openid/v1/jwks/',
    ]),
  ],
};

/** The bootstrap ClusterRoleBindings: binding (= role) name → group subjects. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: Readonly<Record<string, string[]>> = {
  'cluster-admin': ['system:masters'],
  'system:discovery': ['system:authenticated'],
  'system:basic-user': ['system:authenticated'],
  'system:public-info-viewer': ['system:authenticated', 'system:unauthenticated'],
  'system:service-account-issuer-discovery': ['system:serviceaccounts'],
};

/** The rule as the API stores it: empty lists omitted, as Go's `omitempty` writes them. */
function ruleObject(r: PolicyRule): Record<string, unknown> {
  const o: Record<string, unknown> = { verbs: r.verbs };
  if (r.apiGroups?.length) o['apiGroups'] = r.apiGroups;
  if (r.resources?.length) o['resources'] = r.resources;
  if (r.resourceNames?.length) o['resourceNames'] = r.resourceNames;
  if (r.nonResourceURLs?.length) o['nonResourceURLs'] = r.nonResourceURLs;
  return o;
}

function rbacType(cluster: Cluster, plural: string): ResourceType | undefined {
  return cluster.findType(RBAC_GROUP, 'v1', plural);
}

/** Creates the bootstrap roles and bindings that are missing (existing ones are left as they are). */
export function ensureBootstrapPolicy(cluster: Cluster): void {
  const roles = rbacType(cluster, 'clusterroles');
  const bindings = rbacType(cluster, 'clusterrolebindings');
  if (!roles || !bindings) return;
  for (const [name, rules] of Object.entries(BOOTSTRAP_CLUSTER_ROLES)) {
    if (cluster.peek(roles, undefined, name)) continue;
    cluster.create(
      roles,
      undefined,
      {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'ClusterRole',
        metadata: { name, ...clone(BOOTSTRAP_META) },
        rules: rules.map(ruleObject),
      },
      { fieldManager: 'kube-apiserver' },
    );
  }
  for (const [name, groups] of Object.entries(BOOTSTRAP_CLUSTER_ROLE_BINDINGS)) {
    if (cluster.peek(bindings, undefined, name)) continue;
    cluster.create(
      bindings,
      undefined,
      {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name, ...clone(BOOTSTRAP_META) },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
        subjects: groups.map((g) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: g })),
      },
      { fieldManager: 'kube-apiserver' },
    );
  }
}

/** Whether a ClusterRole's labels match one of the aggregation rule's selectors. */
function selectedBy(selectors: unknown[], role: KubeObject): boolean {
  const labels = role.metadata?.labels ?? {};
  return selectors.some((sel) => {
    const reqs = requirementsFromSelector(sel);
    return reqs !== null && matchLabelRequirements(reqs, labels);
  });
}

/**
 * The rules an aggregated ClusterRole should carry: for each selector in order, the rules of the matching
 * ClusterRoles sorted by name (itself excluded), each rule once (`syncClusterRole`).
 */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): Record<string, unknown>[] {
  const agg = isObject(role['aggregationRule']) ? role['aggregationRule'] : {};
  const selectors = Array.isArray(agg['clusterRoleSelectors']) ? agg['clusterRoleSelectors'] : [];
  const out: Record<string, unknown>[] = [];
  const sorted = [...all].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const sel of selectors) {
    for (const other of sorted) {
      if (other.metadata?.name === role.metadata?.name || !selectedBy([sel], other)) continue;
      for (const r of rulesOf(other).map(ruleObject)) if (!out.some((x) => deepEqual(x, r))) out.push(r);
    }
  }
  return out;
}

/** Passes after which an aggregation that keeps changing (roles aggregating each other) is left for the next change. */
const MAX_AGGREGATION_PASSES = 10;

/** The ClusterRole aggregation controller: runs (asynchronously) after any ClusterRole change. */
export class ClusterRoleAggregator {
  private scheduled = false;
  private readonly unsubscribe: () => void;
  constructor(private readonly cluster: Cluster) {
    const key = grKey(RBAC_GROUP, 'clusterroles');
    this.unsubscribe = cluster.onChange((e) => {
      if (e.gr === key) this.schedule();
    });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.syncAll();
    });
  }

  /** One pass over every aggregated ClusterRole; writes only those whose rules differ. */
  syncAll(): void {
    const t = rbacType(this.cluster, 'clusterroles');
    if (!t) return;
    for (let pass = 0; pass < MAX_AGGREGATION_PASSES; pass++) {
      let changed = false;
      const all = this.cluster.peekAll(t);
      for (const role of all) {
        if (!isObject(role['aggregationRule'])) continue;
        const rules = aggregatedRules(role, this.cluster.peekAll(t));
        const current = Array.isArray(role['rules']) ? role['rules'] : [];
        if (deepEqual(current, rules)) continue;
        const next = clone(role);
        next['rules'] = rules;
        this.cluster.applyUpdate(t, role, next, { fieldManager: 'clusterrole-aggregation-controller' });
        changed = true;
      }
      if (!changed) return;
    }
  }

  stop(): void {
    this.unsubscribe();
  }
}
