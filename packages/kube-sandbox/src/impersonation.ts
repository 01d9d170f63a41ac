/**
 * User impersonation (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`, `Impersonate-Extra-<key>` headers;
 * `kubectl --as`, `--as-group`, `--as-uid`), as kube-apiserver's `WithImpersonation` filter (k8s.io/apiserver
 * `pkg/endpoints/filters/impersonation.go`): the requesting user must be allowed the `impersonate` verb on `users`
 * (or `serviceaccounts` for a ServiceAccount user name), `groups`, `userextras/<key>` and `uids` (the last two in API
 * group `authentication.k8s.io`), each by name; the request then runs as the impersonated user.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestAttributes } from './authz.js';
import { forbiddenFor } from './authz.js';
import type { Cluster } from './cluster.js';
import { badRequest } from './errors.js';
import { authorize, type UserInfo } from './rbac.js';

const SA_PREFIX = 'system:serviceaccount:';

function headerValues(req: IncomingMessage, name: string): string[] {
  const v = req.headersDistinct[name];
  return (v ?? []).map((x) => x.trim()).filter((x) => x !== '');
}

const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';

function impersonateAttrs(
  resource: string,
  name: string,
  namespace = '',
  group = '',
  subresource = '',
): RequestAttributes {
  return { resourceRequest: true, verb: 'impersonate', path: '', group, namespace, resource, subresource, name };
}

/**
 * The `Impersonate-Extra-<key>` headers as user extras: the key lower-cased and percent-decoded (upstream
 * `unescapeExtraKey`: a key that does not decode is kept as written), every value of every occurrence kept.
 */
function extraHeaders(req: IncomingMessage): Map<string, string[]> {
  const extra = new Map<string, string[]>();
  for (const [header, values] of Object.entries(req.headersDistinct)) {
    if (!header.startsWith(EXTRA_PREFIX) || values === undefined) continue;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    extra.set(key, [...(extra.get(key) ?? []), ...values]);
  }
  return extra;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** The attributes checked for impersonating `name`: a ServiceAccount by namespace and name, else a user. */
function userAttrs(name: string): RequestAttributes {
  if (name.startsWith(SA_PREFIX)) {
    const [ns = '', sa = ''] = name.slice(SA_PREFIX.length).split(':');
    if (ns !== '' && sa !== '') return impersonateAttrs('serviceaccounts', sa, ns);
  }
  return impersonateAttrs('users', name);
}

/** The groups of the impersonated user: those requested, a ServiceAccount's own, and `system:authenticated`. */
function impersonatedGroups(name: string, requested: string[]): string[] {
  const groups = [...requested];
  if (requested.length === 0 && name.startsWith(SA_PREFIX)) {
    const ns = name.slice(SA_PREFIX.length).split(':')[0] ?? '';
    groups.push('system:serviceaccounts', `system:serviceaccounts:${ns}`);
  }
  const anonymous = name === 'system:anonymous';
  const marker = anonymous ? 'system:unauthenticated' : 'system:authenticated';
  if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push(marker);
  return groups;
}

/**
 * The user a request runs as: `who` itself without impersonation headers, else the impersonated user once every
 * impersonation is authorized (403 phrased by the authorizer otherwise; 400 for groups or a uid without a user).
 */
export function impersonate(cluster: Cluster, who: UserInfo, req: IncomingMessage): UserInfo {
  const users = headerValues(req, 'impersonate-user');
  const groups = headerValues(req, 'impersonate-group');
  const uids = headerValues(req, 'impersonate-uid');
  const extra = extraHeaders(req);
  if (users.length === 0 && groups.length === 0 && uids.length === 0 && extra.size === 0) return who;
  const name = users[0];
  if (name === undefined)
    throw badRequest('requested impersonation of groups, user extras or a uid without impersonating a user');
  const checks = [
    userAttrs(name),
    ...groups.map((g) => impersonateAttrs('groups', g)),
    ...[...extra].flatMap(([key, values]) =>
      values.map((v) => impersonateAttrs('userextras', v, '', AUTHN_GROUP, key)),
    ),
    ...uids.map((u) => impersonateAttrs('uids', u, '', AUTHN_GROUP)),
  ];
  for (const a of checks) {
    const d = authorize(cluster, who, a);
    if (!d.allowed) throw forbiddenFor(who.name, a, d.reason);
  }
  const out: UserInfo = {
    name,
    groups: impersonatedGroups(name, groups),
    ...(uids[0] !== undefined ? { uid: uids[0] } : {}),
    ...(extra.size > 0 ? { extra: Object.fromEntries(extra) } : {}),
  };
  return out;
}
