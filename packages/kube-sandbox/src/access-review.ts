/**
 * `SelfSubjectAccessReview` answered by the same authorizer as requests (kube-apiserver
 * `pkg/registry/authorization/selfsubjectaccessreview/rest.go` `REST.Create`, validation from
 * `pkg/apis/authorization/validation` `ValidateSelfSubjectAccessReviewSpec`): `kubectl auth can-i` as any user; and
 * `SelfSubjectReview` (`pkg/registry/authentication/selfsubjectreview/rest.go`): `kubectl auth whoami`.
 */
import type { RequestAttributes } from './authz.js';
import type { Cluster } from './cluster.js';
import { invalid } from './errors.js';
import { authorize, rulesFor, type UserInfo } from './rbac.js';
import { isObject } from './util.js';

const str = (o: Record<string, unknown>, k: string): string => (typeof o[k] === 'string' ? o[k] : '');

/** The attributes a review asks about (`ResourceAttributesFrom` / `NonResourceAttributesFrom`). */
function reviewAttributes(spec: Record<string, unknown>): RequestAttributes {
  const r = spec['resourceAttributes'];
  if (isObject(r)) {
    return {
      resourceRequest: true,
      verb: str(r, 'verb'),
      path: '',
      group: str(r, 'group'),
      namespace: str(r, 'namespace'),
      resource: str(r, 'resource'),
      subresource: str(r, 'subresource'),
      name: str(r, 'name'),
    };
  }
  const n = isObject(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : {};
  return {
    resourceRequest: false,
    verb: str(n, 'verb'),
    path: str(n, 'path'),
    group: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
}

/** Evaluates a SelfSubjectAccessReview body for `user`; 422 when it names neither or both kinds of attributes. */
export function accessReview(cluster: Cluster, user: UserInfo, body: unknown): Record<string, unknown> {
  const review = isObject(body) ? body : {};
  const spec = isObject(review['spec']) ? review['spec'] : {};
  const hasResource = isObject(spec['resourceAttributes']);
  const hasNonResource = isObject(spec['nonResourceAttributes']);
  if (hasResource && hasNonResource)
    throw invalid('authorization.k8s.io', 'SelfSubjectAccessReview', '', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.nonResourceAttributes',
        value: spec['nonResourceAttributes'],
        detail: 'cannot be specified in combination with resourceAttributes',
      },
    ]);
  if (!hasResource && !hasNonResource)
    throw invalid('authorization.k8s.io', 'SelfSubjectAccessReview', '', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.resourceAttributes',
        value: 'null',
        detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ]);
  const d = authorize(cluster, user, reviewAttributes(spec));
  const status: Record<string, unknown> = { allowed: d.allowed };
  if (d.reason !== '') status['reason'] = d.reason;
  return {
    ...review,
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec,
    status,
  };
}

/** `SelfSubjectReview` (authentication.k8s.io/v1, `kubectl auth whoami`): the requesting user's attributes. */
export function selfSubjectReview(user: UserInfo): Record<string, unknown> {
  const userInfo: Record<string, unknown> = { username: user.name };
  if (user.uid !== undefined && user.uid !== '') userInfo['uid'] = user.uid;
  userInfo['groups'] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) userInfo['extra'] = user.extra;
  return {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    status: { userInfo },
  };
}

/**
 * `SelfSubjectRulesReview` (`kubectl auth can-i --list`): the RBAC rules of the user in `spec.namespace`, split into
 * resource and non-resource rules as the RBAC authorizer's `RulesFor` does (`incomplete` is false: RBAC is the only
 * authorizer).
 */
export function selfSubjectRulesReview(cluster: Cluster, user: UserInfo, body: unknown): Record<string, unknown> {
  const review = isObject(body) ? body : {};
  const spec = isObject(review['spec']) ? review['spec'] : {};
  const rules = rulesFor(cluster, user, str(spec, 'namespace'));
  const resourceRules = rules
    .filter((r) => (r.nonResourceURLs ?? []).length === 0)
    .map((r) => ({
      verbs: r.verbs,
      ...(r.apiGroups?.length ? { apiGroups: r.apiGroups } : {}),
      ...(r.resources?.length ? { resources: r.resources } : {}),
      ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
    }));
  const nonResourceRules = rules
    .filter((r) => (r.nonResourceURLs ?? []).length > 0)
    .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs }));
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: { resourceRules, nonResourceRules, incomplete: false },
  };
}
