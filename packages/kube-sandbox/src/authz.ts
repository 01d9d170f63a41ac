/**
 * The authorization filter's view of a request and its 403 answer, as kube-apiserver phrases them: the request
 * attributes (k8s.io/apiserver `RequestInfoFactory.NewRequestInfo`) the RBAC authorizer (`rbac.ts`) decides on, and
 * the `Forbidden` Status (`responsewriters.Forbidden`, `forbiddenMessage`) naming the user, verb, resource, API
 * group and namespace.
 */
import { ApiError } from './errors.js';
import type { UserInfo } from './rbac.js';

/** Identity of a request after authentication: a user (possibly `system:anonymous`) or bad credentials (401). */
export type Identity = UserInfo | 'unauthorized';

/** The user kube-apiserver gives requests without credentials (anonymous auth on). */
export const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** The authorizer's view of a request (k8s.io/apiserver `RequestInfo`). */
export interface RequestAttributes {
  resourceRequest: boolean;
  verb: string;
  path: string;
  group: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Derives the request attributes from method and URL (apiserver `RequestInfoFactory.NewRequestInfo`). */
export function requestAttributes(method: string, url: URL): RequestAttributes {
  const path = url.pathname;
  const base: RequestAttributes = {
    resourceRequest: false,
    verb: method.toLowerCase(),
    path,
    group: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  let parts = path
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .filter((p) => p !== '');
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return base;
  parts = parts.slice(1);
  let group = '';
  if (prefix === 'apis') {
    if (parts.length < 2) return base;
    group = parts[0] ?? '';
    parts = parts.slice(1);
  }
  if (parts.length < 2) return base; // discovery of a group version
  parts = parts.slice(1); // version
  const attrs: RequestAttributes = { ...base, resourceRequest: true, group };
  const verbs: Record<string, string> = {
    POST: 'create',
    GET: 'get',
    HEAD: 'get',
    PUT: 'update',
    PATCH: 'patch',
    DELETE: 'delete',
  };
  attrs.verb = verbs[method.toUpperCase()] ?? '';
  if (parts[0] === 'watch') {
    attrs.verb = 'watch';
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      attrs.namespace = parts[1] ?? '';
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? '')) parts = parts.slice(2);
    }
  }
  attrs.resource = parts[0] ?? '';
  attrs.name = parts[1] ?? '';
  attrs.subresource = parts[2] ?? '';
  if (attrs.name === '' && attrs.verb === 'get') {
    const w = url.searchParams.get('watch');
    attrs.verb = w === 'true' || w === '1' ? 'watch' : 'list';
    attrs.name = exactName(url.searchParams.get('fieldSelector'));
  } else if (attrs.verb === 'watch' && attrs.name === '') attrs.name = exactName(url.searchParams.get('fieldSelector'));
  if (attrs.name === '' && attrs.verb === 'delete') attrs.verb = 'deletecollection';
  return attrs;
}

/**
 * The name a list/watch is limited to by a `metadata.name=<name>` field selector (`RequiresExactMatch`), so that
 * rules with `resourceNames` cover it; '' when there is none or it is not a valid path segment.
 */
function exactName(fieldSelector: string | null): string {
  if (!fieldSelector) return '';
  for (const term of fieldSelector.split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term);
    if (m && !term.includes('!=')) {
      const name = m[1] ?? '';
      return name === '' || name === '.' || name === '..' || /[/%]/.test(name) ? '' : name;
    }
  }
  return '';
}

/**
 * The 403 kube-apiserver's authorization filter answers for a denied request of `user`; a non-empty authorizer
 * `reason` is appended after a colon, as `responsewriters.Forbidden` does.
 */
export function forbiddenFor(user: string, a: RequestAttributes, reason = ''): ApiError {
  let why: string;
  if (!a.resourceRequest) why = `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  else {
    const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
    why = `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(res)} in API group ${JSON.stringify(a.group)} ${scope}`;
  }
  if (reason !== '') why = `${why}: ${reason}`;
  if (!a.resourceRequest || a.resource === '') return new ApiError(403, 'Forbidden', `forbidden: ${why}`, {});
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const details: Record<string, string> = {};
  if (a.name) details['name'] = a.name;
  if (a.group) details['group'] = a.group;
  details['kind'] = a.resource;
  const head = a.name ? `${qualified} ${JSON.stringify(a.name)}` : qualified;
  return new ApiError(403, 'Forbidden', `${head} is forbidden: ${why}`, details);
}
