/**
 * Anonymous requests, as kube-apiserver (anonymous auth on, RBAC) answers them: the request is attributed to
 * `system:anonymous`, which the default RBAC policy allows only the public-info paths; anything else is a 403
 * whose message names the verb, resource, API group and namespace the way the authorization filter phrases it.
 */
import { ApiError } from './errors.js';

/** Identity of a request after authentication. */
export type Identity = 'admin' | 'anonymous' | 'unauthorized';

/** Paths `system:public-info-viewer` grants to everyone (including `system:anonymous`). */
const PUBLIC_INFO_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

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
  const base: RequestAttributes = { resourceRequest: false, verb: method.toLowerCase(), path, group: '', namespace: '', resource: '', subresource: '', name: '' };
  let parts = path.replace(/^\/+|\/+$/g, '').split('/').filter((p) => p !== '');
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
  const verbs: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
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
  }
  if (attrs.name === '' && attrs.verb === 'delete') attrs.verb = 'deletecollection';
  return attrs;
}

/** Whether `system:anonymous` may make this request under the default RBAC policy. */
export function anonymousAllowed(method: string, url: URL): boolean {
  return method.toUpperCase() === 'GET' && PUBLIC_INFO_PATHS.has(url.pathname);
}

/** The 403 kube-apiserver's authorization filter answers for a denied request of `user`. */
export function forbiddenFor(user: string, a: RequestAttributes): ApiError {
  let why: string;
  if (!a.resourceRequest) why = `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  else {
    const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
    why = `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(res)} in API group ${JSON.stringify(a.group)} ${scope}`;
  }
  if (!a.resourceRequest || a.resource === '') return new ApiError(403, 'Forbidden', `forbidden: ${why}`, {});
  const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
  const details: Record<string, string> = {};
  if (a.name) details['name'] = a.name;
  if (a.group) details['group'] = a.group;
  details['kind'] = a.resource;
  const head = a.name ? `${qualified} ${JSON.stringify(a.name)}` : qualified;
  return new ApiError(403, 'Forbidden', `${head} is forbidden: ${why}`, details);
}
