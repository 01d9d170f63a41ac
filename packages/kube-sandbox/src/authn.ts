/**
 * Request authentication as kube-apiserver's union authenticator does it: a bearer token is the sandbox's admin
 * token, a static token (`--token-auth-file`), or a ServiceAccount token; a client certificate verified by the
 * sandbox CA names the user (CN) and groups (O), as the x509 authenticator reads them; a request without
 * credentials is `system:anonymous`. Every authenticated user also gets the group `system:authenticated`
 * (`group.AuthenticatedGroupAdder`). Bad credentials are 'unauthorized' (401).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { ANONYMOUS, type Identity } from './authz.js';
import { SYSTEM_MASTERS, type UserInfo } from './rbac.js';
import type { ServiceAccountTokens } from './sa-token.js';

/** The user of the sandbox's admin token. */
export const ADMIN_USER: UserInfo = { name: 'keelson-admin', groups: [SYSTEM_MASTERS] };

/** A static bearer token and the user it stands for (kube-apiserver `--token-auth-file` rows). */
export interface StaticTokenUser {
  token: string;
  user: UserInfo;
}

function tokenEquals(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Adds `system:authenticated` (once). */
function authenticated(u: UserInfo): UserInfo {
  return u.groups.includes('system:authenticated') ? u : { ...u, groups: [...u.groups, 'system:authenticated'] };
}

function certUser(sock: TLSSocket): UserInfo | undefined {
  const subject = sock.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const cn = subject?.['CN'];
  const name = Array.isArray(cn) ? (cn[0] ?? '') : (cn ?? '');
  if (name === '') return undefined;
  const o = subject?.['O'];
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { name, groups };
}

/** Builds the sandbox's authenticator. */
export function makeAuthenticator(o: {
  adminToken: string;
  tls: boolean;
  serviceAccounts: ServiceAccountTokens;
  staticTokens?: readonly StaticTokenUser[];
}): (req: IncomingMessage) => Identity {
  return (req) => {
    const h = req.headers['authorization'];
    // other schemes and empty tokens are not credentials
    const bearer = typeof h === 'string' && /^bearer /i.test(h) ? h.slice(7).trim() : '';
    if (bearer !== '') {
      if (tokenEquals(bearer, o.adminToken)) return authenticated(ADMIN_USER);
      const st = o.staticTokens?.find((s) => tokenEquals(bearer, s.token));
      if (st) return authenticated(st.user);
      const sa = o.serviceAccounts.check(bearer);
      return sa !== undefined && 'user' in sa ? authenticated(sa.user) : 'unauthorized';
    }
    const sock = req.socket;
    if (o.tls && sock instanceof TLSSocket && sock.encrypted) {
      if (sock.authorized) {
        const u = certUser(sock);
        return u ? authenticated(u) : 'unauthorized';
      }
      // a client certificate the CA does not verify fails authentication (401); no certificate at all is anonymous
      const peer = sock.getPeerCertificate();
      if (Object.keys(peer).length > 0) return 'unauthorized';
    }
    return ANONYMOUS;
  };
}
