/**
 * The RBAC authorizer as kube-apiserver runs it (`--authorization-mode=RBAC`, behind the `system:masters`
 * privileged-group short cut): the rules of every ClusterRoleBinding and, for namespaced requests, every
 * RoleBinding of the request's namespace whose subjects match the user are visited until one allows the request.
 * Upstream: kubernetes `plugin/pkg/auth/authorizer/rbac/rbac.go` (`RBACAuthorizer.Authorize`, `RuleAllows`,
 * `appliesToUser`), `pkg/apis/rbac/v1/evaluation_helpers.go` (`VerbMatches`, `APIGroupMatches`, `ResourceMatches`,
 * `ResourceNameMatches`, `NonResourceURLMatches`) and `pkg/registry/rbac/validation/rule.go`
 * (`DefaultRuleResolver.VisitRulesFor`).
 */
import type { RequestAttributes } from './authz.js';
import type { Cluster } from './cluster.js';
import type { KubeObject, ResourceType } from './types.js';
import { isObject } from './util.js';

/** An authenticated (or anonymous) user, as `user.Info`. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** One `rbac/v1` PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Outcome of {@link authorize}: allowed, or the reason RBAC appends to the 403 message ('' when none). */
export interface Decision {
  readonly allowed: boolean;
  readonly reason: string;
}

/** The group kube-apiserver lets through without consulting RBAC (`user.SystemPrivilegedGroup`). */
export const SYSTEM_MASTERS = 'system:masters';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The rules of a Role/ClusterRole object (tolerates missing or malformed fields as an empty rule). */
export function rulesOf(role: KubeObject): PolicyRule[] {
  const rules = Array.isArray(role['rules']) ? role['rules'] : [];
  return rules.filter(isObject).map((r) => ({
    verbs: strings(r['verbs']),
    apiGroups: strings(r['apiGroups']),
    resources: strings(r['resources']),
    resourceNames: strings(r['resourceNames']),
    nonResourceURLs: strings(r['nonResourceURLs']),
  }));
}

/** `VerbMatches`. */
function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes('*') || rule.verbs.includes(verb);
}

/** `APIGroupMatches`. */
function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  const gs = rule.apiGroups ?? [];
  return gs.includes('*') || gs.includes(group);
}

/**
 * `ResourceMatches`: `*`, the combined `resource/subresource`, or `*\/subresource` for any resource's subresource
 * (a rule naming only `pods` does not cover `pods/log`).
 */
function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource))
      return true;
  }
  return false;
}

/** `ResourceNameMatches`: an empty list matches any name (and requests without a name, such as list). */
function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `NonResourceURLMatches`: exact, `*`, or a prefix rule ending in `*`. */
function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** `RuleAllows`: whether one rule allows the request. */
export function ruleAllows(a: RequestAttributes, rule: PolicyRule): boolean {
  if (a.resourceRequest) {
    return (
      verbMatches(rule, a.verb) &&
      apiGroupMatches(rule, a.group) &&
      resourceMatches(rule, a.resource, a.subresource) &&
      resourceNameMatches(rule, a.name)
    );
  }
  return verbMatches(rule, a.verb) && nonResourceUrlMatches(rule, a.path);
}

/** `system:serviceaccount:<ns>:<name>`, the user name of a ServiceAccount (`serviceaccount.MakeUsername`). */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** `appliesToUser`: whether a binding subject names the user (ServiceAccount subjects default to the binding's namespace). */
export function subjectApplies(user: UserInfo, subject: unknown, bindingNamespace: string): boolean {
  if (!isObject(subject)) return false;
  const kind = subject['kind'];
  const name = typeof subject['name'] === 'string' ? subject['name'] : '';
  if (kind === 'User') return user.name === name;
  if (kind === 'Group') return user.groups.includes(name);
  if (kind === 'ServiceAccount') {
    const ns =
      typeof subject['namespace'] === 'string' && subject['namespace'] !== '' ? subject['namespace'] : bindingNamespace;
    return ns !== '' && user.name === serviceAccountUsername(ns, name);
  }
  return false;
}

/** The RBAC kinds the authorizer reads. */
interface RbacTypes {
  roles: ResourceType;
  clusterRoles: ResourceType;
  roleBindings: ResourceType;
  clusterRoleBindings: ResourceType;
}

function rbacTypes(cluster: Cluster): RbacTypes | undefined {
  const roles = cluster.findType(RBAC_GROUP, 'v1', 'roles');
  const clusterRoles = cluster.findType(RBAC_GROUP, 'v1', 'clusterroles');
  const roleBindings = cluster.findType(RBAC_GROUP, 'v1', 'rolebindings');
  const clusterRoleBindings = cluster.findType(RBAC_GROUP, 'v1', 'clusterrolebindings');
  if (!roles || !clusterRoles || !roleBindings || !clusterRoleBindings) return undefined;
  return { roles, clusterRoles, roleBindings, clusterRoleBindings };
}

/**
 * The rules a binding's roleRef grants, or the error `GetRoleReferenceRules` reports (a missing role, an unknown
 * kind); a RoleBinding may reference a Role of its namespace or a ClusterRole, a ClusterRoleBinding only a ClusterRole.
 */
function referencedRules(
  cluster: Cluster,
  types: RbacTypes,
  binding: KubeObject,
  namespace: string,
): PolicyRule[] | string {
  const ref = isObject(binding['roleRef']) ? binding['roleRef'] : {};
  const name = typeof ref['name'] === 'string' ? ref['name'] : '';
  if (ref['kind'] === 'ClusterRole') {
    const role = cluster.peek(types.clusterRoles, undefined, name);
    return role ? rulesOf(role) : `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;
  }
  if (ref['kind'] === 'Role' && namespace !== '') {
    const role = cluster.peek(types.roles, namespace, name);
    return role ? rulesOf(role) : `role.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;
  }
  return `unsupported role reference kind: ${JSON.stringify(typeof ref['kind'] === 'string' ? ref['kind'] : '')}`;
}

/** `describeSubject`: `Kind "name"`, or `Kind ns/name` for a subject of another namespace. */
function describeSubject(subject: Record<string, unknown>, bindingNamespace: string): string {
  const kind = typeof subject['kind'] === 'string' ? subject['kind'] : '';
  const name = typeof subject['name'] === 'string' ? subject['name'] : '';
  const ns = typeof subject['namespace'] === 'string' ? subject['namespace'] : '';
  return ns !== '' && ns !== bindingNamespace ? `${kind} ${ns}/${name}` : `${kind} ${JSON.stringify(name)}`;
}

/** `clusterRoleBindingDescriber` / `roleBindingDescriber`: where an allowing rule came from. */
function describeBinding(binding: KubeObject, subject: Record<string, unknown>, ns: string): string {
  const ref = isObject(binding['roleRef']) ? binding['roleRef'] : {};
  const refKind = typeof ref['kind'] === 'string' ? ref['kind'] : '';
  const refName = typeof ref['name'] === 'string' ? ref['name'] : '';
  const kind = ns === '' ? 'ClusterRoleBinding' : 'RoleBinding';
  return `${kind} ${JSON.stringify(binding.metadata?.name ?? '')} of ${refKind} ${JSON.stringify(refName)} to ${describeSubject(subject, ns)}`;
}

/**
 * Visits the rules that apply to the user, cluster-wide bindings first, then the request namespace's RoleBindings,
 * until `visit` returns false. Returns the errors met on the way (`VisitRulesFor`).
 */
function visitRulesFor(
  cluster: Cluster,
  types: RbacTypes,
  user: UserInfo,
  namespace: string,
  visit: (rule: PolicyRule, source: string) => boolean,
): string[] {
  const errors: string[] = [];
  const sources: { bindings: KubeObject[]; ns: string }[] = [
    { bindings: cluster.peekAll(types.clusterRoleBindings), ns: '' },
  ];
  if (namespace !== '') sources.push({ bindings: cluster.peekAll(types.roleBindings, namespace), ns: namespace });
  for (const { bindings, ns } of sources) {
    for (const b of bindings) {
      const subjects: unknown[] = Array.isArray(b['subjects']) ? b['subjects'] : [];
      const subject = subjects.find((s) => subjectApplies(user, s, ns));
      if (!isObject(subject)) continue;
      const rules = referencedRules(cluster, types, b, ns);
      if (typeof rules === 'string') {
        errors.push(rules);
        continue;
      }
      const source = describeBinding(b, subject, ns);
      for (const r of rules) if (!visit(r, source)) return errors;
    }
  }
  return errors;
}

/**
 * Authorizes a request: `system:masters` always; otherwise RBAC. An allowing RBAC decision's reason names the
 * binding (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`); a denial's reason is
 * `RBAC: <errors>` when bindings of the user referenced roles that do not exist, as the upstream authorizer
 * aggregates them, else empty.
 */
export function authorize(cluster: Cluster, user: UserInfo, a: RequestAttributes): Decision {
  if (user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
  const types = rbacTypes(cluster);
  if (!types) return { allowed: false, reason: '' };
  let allowedBy: string | undefined;
  const errors = visitRulesFor(cluster, types, user, a.namespace, (rule, source) => {
    if (ruleAllows(a, rule)) allowedBy = source;
    return allowedBy === undefined;
  });
  if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
  const unique = [...new Set(errors)];
  return {
    allowed: false,
    reason: unique.length === 0 ? '' : `RBAC: ${unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`}`,
  };
}

/** Every rule that applies to the user in a namespace (for SelfSubjectRulesReview-like answers and tests). */
export function rulesFor(cluster: Cluster, user: UserInfo, namespace: string): PolicyRule[] {
  const types = rbacTypes(cluster);
  if (!types) return [];
  const out: PolicyRule[] = [];
  visitRulesFor(cluster, types, user, namespace, (r) => {
    out.push(r);
    return true;
  });
  return out;
}
