// node:http, node:https and node:tls are imported on first use: importing node:http from an ES module costs ~45 ms
// of CPU (its exports pull in Node's bundled undici), which every command reading a payload directory paid for nothing
import type { ClientRequest, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import { PayloadError, RegistryTlsError } from './errors.js';
import { openTunnel, proxyAuthorization, proxyFor, type ProxySettings } from './proxy.js';

/** TLS settings for registry access, modelled on containers/image (skopeo, podman). */
export interface RegistryTlsOptions {
  /** PEM file of extra CA certificates trusted for the registry (added to Node's built-in roots). */
  caFile?: string;
  /**
   * Directory holding the registry's certificates, like skopeo's `--cert-dir`: every `*.crt` is a trusted CA,
   * every `*.cert` + `*.key` pair is a client certificate. When unset, `<root>/<host[:port]>` is used for each of
   * {@link RegistryTlsOptions.certsDirs}.
   */
  certDir?: string;
  /**
   * Roots of per-registry certificate directories (`<root>/<host[:port]>/ca.crt`, `client.cert`, `client.key`);
   * default `$HOME/.config/containers/certs.d`, `/etc/containers/certs.d`, `/etc/docker/certs.d`.
   */
  certsDirs?: string[];
  /**
   * `false` allows plain HTTP and unverified TLS (skopeo `--tls-verify=false`): HTTPS without certificate checks is
   * tried first, plain HTTP if the registry does not speak TLS. Default `true`.
   */
  tlsVerify?: boolean;
  /** Same as `tlsVerify: false`. */
  insecure?: boolean;
  /**
   * Per-registry CA bundles keyed `host` or `host:port` (also `host..port`, the key form of OpenShift's
   * `image.config.openshift.io` `spec.additionalTrustedCA` ConfigMap), added to the trusted roots for that registry.
   */
  registryCAs?: Readonly<Record<string, string>>;
  /** PEM bundle trusted for every registry and proxy (the cluster Proxy's `spec.trustedCA`, a node's system trust). */
  trustedCA?: string;
}

/** Default roots of per-registry certificate directories, as containers/image looks them up. */
export function defaultCertsDirs(): string[] {
  return [join(homedir(), '.config', 'containers', 'certs.d'), '/etc/containers/certs.d', '/etc/docker/certs.d'];
}

/** Resolved TLS material for one registry host. */
export interface HostTls {
  ca?: string[];
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  /** Files the material came from (for error messages). */
  sources: string[];
}

const CERT_ERRORS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/** True when `e` is a certificate verification failure (never retried, never downgraded). */
export function isCertificateError(e: unknown): e is Error & { code: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CERT_ERRORS.has(code);
}

/** True when `e` says the peer does not speak TLS (e.g. a plain-HTTP registry). */
export function isNotTlsError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  const msg = (e as Error | null)?.message ?? '';
  return (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    /wrong version number|packet length too long/i.test(msg)
  );
}

/** True when the registry ended the TLS handshake with an alert (e.g. it wants a client certificate). */
export function isTlsAlert(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^ERR_SSL_.*ALERT/.test(code);
}

async function readPem(file: string, host: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new RegistryTlsError(
      host,
      'UNREADABLE',
      `registry ${host}: cannot read ${what} ${file}: ${(e as Error).message}; fix the path given to --ca-file / --cert-dir`,
    );
  }
  if (!/-----BEGIN [A-Z ]+-----/.test(text)) {
    throw new RegistryTlsError(
      host,
      'NOT_PEM',
      `registry ${host}: ${what} ${file} is not PEM (no -----BEGIN ...----- block); give a PEM file`,
    );
  }
  return text;
}

function pemOrThrow(text: string, host: string, what: string): string {
  if (!/-----BEGIN [A-Z ]+-----/.test(text))
    throw new RegistryTlsError(host, 'NOT_PEM', `registry ${host}: ${what} is not PEM (no -----BEGIN ...----- block)`);
  return text;
}

/** Loads the TLS material for `host` (`host[:port]`) from the options and the certs.d directories. */
export async function loadHostTls(host: string, opts: RegistryTlsOptions): Promise<HostTls> {
  const out: HostTls = { rejectUnauthorized: opts.tlsVerify !== false && !opts.insecure, sources: [] };
  const cas: string[] = [];
  if (opts.caFile) {
    cas.push(await readPem(opts.caFile, host, 'CA file'));
    out.sources.push(opts.caFile);
  }
  if (host.includes('/') || host.includes('..'))
    throw new PayloadError('RegistryError', `invalid registry host ${JSON.stringify(host)}`, host);
  const dirs = opts.certDir ? [opts.certDir] : (opts.certsDirs ?? defaultCertsDirs()).map((r) => join(r, host));
  for (const dir of dirs) {
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch (e) {
      if (opts.certDir)
        throw new RegistryTlsError(
          host,
          'UNREADABLE',
          `registry ${host}: cannot read certificate directory ${dir}: ${(e as Error).message}`,
        );
      continue;
    }
    for (const n of names.filter((x) => x.endsWith('.crt'))) {
      cas.push(await readPem(join(dir, n), host, 'CA certificate'));
      out.sources.push(join(dir, n));
    }
    for (const n of names.filter((x) => x.endsWith('.cert'))) {
      const keyName = n.slice(0, -5) + '.key';
      if (!names.includes(keyName))
        throw new RegistryTlsError(
          host,
          'MISSING_KEY',
          `registry ${host}: client certificate ${join(dir, n)} has no matching key ${join(dir, keyName)}`,
        );
      if (out.cert) continue; // first pair wins
      out.cert = await readPem(join(dir, n), host, 'client certificate');
      out.key = await readPem(join(dir, keyName), host, 'client key');
      out.sources.push(join(dir, n));
    }
    for (const n of names.filter((x) => x.endsWith('.key'))) {
      if (!names.includes(n.slice(0, -4) + '.cert'))
        throw new RegistryTlsError(
          host,
          'MISSING_CERT',
          `registry ${host}: client key ${join(dir, n)} has no matching certificate ${join(dir, n.slice(0, -4))}.cert`,
        );
    }
    if (opts.certDir === undefined && names.length > 0) break; // the first certs.d root holding the host wins
  }
  const perRegistry = opts.registryCAs?.[host] ?? opts.registryCAs?.[host.replace(':', '..')];
  if (perRegistry !== undefined) {
    cas.push(pemOrThrow(perRegistry, host, `CA bundle for ${host}`));
    out.sources.push(`additionalTrustedCA[${host}]`);
  }
  if (opts.trustedCA !== undefined && opts.trustedCA.trim() !== '') {
    cas.push(pemOrThrow(opts.trustedCA, host, 'trusted CA bundle'));
    out.sources.push('trusted CA bundle');
  }
  if (cas.length > 0) out.ca = [...(await import('node:tls')).rootCertificates, ...cas];
  return out;
}

/** Explains a certificate failure or TLS alert for `host` and what to do about it. */
export function tlsFailure(host: string, e: Error & { code: string }, tlsCfg: HostTls): RegistryTlsError {
  const what = e.message.replace(/\s+/g, ' ').trim();
  if (isTlsAlert(e)) {
    return new RegistryTlsError(
      host,
      e.code,
      `registry ${host} refused the TLS handshake: ${what} [${e.code}]. ${tlsCfg.cert ? 'The client certificate given was not accepted; check it was issued by a CA the registry trusts' : 'If it requires a client certificate, put client.cert + client.key in --cert-dir <dir> (or /etc/containers/certs.d/' + host + '/)'}`,
    );
  }
  const trusted = tlsCfg.sources.length > 0 ? ` (trusted extra CAs: ${tlsCfg.sources.join(', ')})` : '';
  return new RegistryTlsError(
    host,
    e.code,
    `cannot verify the TLS certificate of registry ${host}: ${what} [${e.code}]${trusted}. ` +
      `Pass the registry's CA certificate with --ca-file <ca.pem> (option caFile), or --cert-dir <dir> / /etc/containers/certs.d/${host}/ca.crt; ` +
      `--tls-verify=false skips verification (unsafe)`,
  );
}

/** Default connect deadline (like containers/image and oc: a dialer with a 30 s timeout). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default idle deadline: no byte received for this long fails the request (headers or body). */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** Deadlines of one request. */
export interface Deadlines {
  /** TCP (and TLS) connection establishment; default {@link DEFAULT_CONNECT_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
  /** Longest silence once connected (waiting for headers or between body chunks); default {@link DEFAULT_IDLE_TIMEOUT_MS}. */
  idleTimeoutMs?: number;
}

/** A request that missed a deadline: `phase` says which (`connect`: the host did not answer at all). */
export class DeadlineError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(
    readonly phase: 'connect' | 'idle',
    readonly host: string,
    readonly timeoutMs: number,
  ) {
    super(
      phase === 'connect'
        ? `no connection to ${host} within ${timeoutMs / 1000} s`
        : `${host} sent nothing for ${timeoutMs / 1000} s`,
    );
    this.name = 'DeadlineError';
  }
}

type TlsSocketOptions = { rejectUnauthorized: boolean; ca?: string[]; cert?: string; key?: string };

/** TLS to `target` over an established proxy tunnel (SNI and certificate checks against the target's name). */
function tunnelTls(
  connect: typeof import('node:tls').connect,
  tunnel: Duplex,
  target: URL,
  o: TlsSocketOptions,
): Duplex {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return connect({ socket: tunnel, host, ...(isIP(host) ? {} : { servername: host }), ...o });
}

/** A plain-HTTP request sent to the proxy with the absolute URL as its target. */
function plainViaProxy(
  request: typeof import('node:http').request,
  via: URL,
  target: URL,
  common: { method: string; headers: Record<string, string>; timeout: number },
): ClientRequest {
  const auth = proxyAuthorization(via);
  return request({
    host: via.hostname.replace(/^\[|\]$/g, ''),
    port: via.port || 80,
    path: target.href,
    method: common.method,
    timeout: common.timeout,
    headers: { ...common.headers, host: target.host, ...(auth ? { 'proxy-authorization': auth } : {}) },
  });
}

/**
 * Minimal fetch over node:http/https with per-host TLS, redirects (auth dropped across origins), a connect deadline
 * and an idle deadline (also while the body streams).
 */
export async function tlsFetch(
  url: string,
  init: { headers?: Record<string, string> },
  tlsCfg: HostTls,
  deadlines: Deadlines = {},
  proxy?: ProxySettings,
): Promise<Response> {
  const connectMs = deadlines.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const idleMs = deadlines.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const [{ request: httpRequest }, { request: httpsRequest }, { connect: tlsConnect }] = await Promise.all([
    import('node:http'),
    import('node:https'),
    import('node:tls'),
  ]);
  let current = new URL(url);
  let headers = { ...(init.headers ?? {}) };
  for (let hop = 0; hop <= 10; hop++) {
    const via = proxyFor(current, proxy);
    const target = current;
    const tunnel =
      via && target.protocol === 'https:'
        ? await openTunnel(
            via,
            `${target.hostname}:${target.port || '443'}`,
            tlsCfg.ca,
            connectMs,
            () => new DeadlineError('connect', via.host, connectMs),
          )
        : undefined;
    const msg = await new Promise<IncomingMessage>((resolve, reject) => {
      const common = { method: 'GET', headers, timeout: idleMs };
      const tlsOpts = {
        rejectUnauthorized: tlsCfg.rejectUnauthorized,
        ...(tlsCfg.ca ? { ca: tlsCfg.ca } : {}),
        ...(tlsCfg.cert ? { cert: tlsCfg.cert } : {}),
        ...(tlsCfg.key ? { key: tlsCfg.key } : {}),
      };
      const req = tunnel
        ? httpsRequest(target, {
            ...common,
            ...tlsOpts,
            createConnection: () => tunnelTls(tlsConnect, tunnel, target, tlsOpts),
          })
        : via
          ? plainViaProxy(httpRequest, via, target, common)
          : target.protocol === 'https:'
            ? httpsRequest(target, { ...common, ...tlsOpts })
            : httpRequest(target, common);
      req.on('response', resolve);
      req.on('error', reject);
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        // the idle timer would also fire while connecting; the connect deadline is the one that applies there
        socket.setTimeout(0);
        const timer = setTimeout(() => req.destroy(new DeadlineError('connect', current.host, connectMs)), connectMs);
        const connected = (): void => {
          clearTimeout(timer);
          socket.setTimeout(idleMs);
        };
        socket.once(current.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
        socket.once('close', () => {
          clearTimeout(timer);
        });
      });
      req.on('timeout', () => req.destroy(new DeadlineError('idle', current.host, idleMs)));
      req.end();
    });
    const status = msg.statusCode ?? 0;
    const location = msg.headers.location;
    if ([301, 302, 303, 307, 308].includes(status) && location) {
      msg.resume();
      const next = new URL(location, current);
      if (next.protocol !== 'https:' && next.protocol !== 'http:')
        throw new PayloadError('RegistryError', `${current.href}: redirect to unsupported URL ${next.protocol}`, url);
      if (current.protocol === 'https:' && next.protocol === 'http:')
        throw new PayloadError(
          'RegistryError',
          `${current.href}: refusing a redirect from HTTPS to plain HTTP (${next.host})`,
          url,
        );
      if (next.origin !== current.origin) {
        const { authorization: _drop, ...rest } = headers;
        headers = rest;
      }
      current = next;
      continue;
    }
    const h = new Headers();
    for (const [k, v] of Object.entries(msg.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) h.append(k, one);
    }
    const body = status === 204 || status === 304 ? null : (Readable.toWeb(msg) as ReadableStream<Uint8Array>);
    if (body === null) msg.resume();
    return new Response(body, { status, headers: h });
  }
  throw new PayloadError('RegistryError', `${url}: too many redirects`, url);
}
