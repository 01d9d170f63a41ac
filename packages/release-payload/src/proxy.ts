/**
 * HTTP(S) proxies for registry access, chosen as Go's `net/http.ProxyFromEnvironment` chooses them
 * (golang.org/x/net/http/httpproxy `Config.ProxyFunc`): HTTPS requests use `httpsProxy`, plain HTTP ones `httpProxy`,
 * `noProxy` exempts hosts, domains, IPs and CIDRs, and `localhost` / loopback addresses are never proxied. This is what
 * CRI-O does on a node with the cluster Proxy's settings in its environment, and what the CVO's own clients do.
 */
import type { Duplex } from 'node:stream';
import { isIP } from 'node:net';
import { PayloadError } from './errors.js';

/** Proxy settings, as the cluster `Proxy` object's status (or `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY`) gives them. */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

function parseProxyUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new PayloadError('ProxyError', `invalid proxy URL ${JSON.stringify(raw)}`, raw);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new PayloadError('ProxyError', `proxy ${raw}: only http:// and https:// proxies are supported`, raw);
  return u;
}

function ipToBigInt(ip: string): { v: bigint; bits: number } | undefined {
  const fam = isIP(ip);
  if (fam === 4) return { v: ip.split('.').reduce((a, o) => (a << 8n) | BigInt(Number(o)), 0n), bits: 32 };
  if (fam !== 6) return undefined;
  const [head = '', tail = ''] = ip.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = ip.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return { v: groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g || '0', 16)), 0n), bits: 128 };
}

function inCidr(ip: string, cidr: string): boolean {
  const [net = '', lenText = ''] = cidr.split('/');
  const a = ipToBigInt(ip);
  const b = ipToBigInt(net);
  const len = Number(lenText);
  if (!a || !b || a.bits !== b.bits || !Number.isInteger(len) || len < 0 || len > a.bits) return false;
  const shift = BigInt(a.bits - len);
  return a.v >> shift === b.v >> shift;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && ipToBigInt(host)?.v === 1n;
}

/** Whether `noProxy` exempts `host` (no brackets) on `port` (Go httpproxy `useProxy`). */
export function bypassesProxy(host: string, port: string, noProxy: string): boolean {
  const h = host.toLowerCase();
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (isIP(h) && inCidr(h, entry)) return true;
      continue;
    }
    const m = /^(\[[^\]]+\]|[^:]+|[0-9a-f:]+)(?::(\d+))?$/.exec(entry);
    let name = entry;
    let p = '';
    if (m && isIP(entry) === 0) {
      name = (m[1] ?? '').replace(/^\[|\]$/g, '');
      p = m[2] ?? '';
    }
    if (isIP(name)) {
      if (name === h && (p === '' || p === port)) return true;
      continue;
    }
    if (name.startsWith('*.')) name = name.slice(1);
    const matchHost = !name.startsWith('.');
    const dotted = matchHost ? `.${name}` : name;
    if ((h.endsWith(dotted) || (matchHost && h === name)) && (p === '' || p === port)) return true;
  }
  return false;
}

/** The proxy to use for `target`, or undefined for a direct connection. */
export function proxyFor(target: URL, settings: ProxySettings | undefined): URL | undefined {
  if (!settings) return undefined;
  const raw = target.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!raw) return undefined;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isLoopback(host)) return undefined;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (settings.noProxy && bypassesProxy(host, port, settings.noProxy)) return undefined;
  return parseProxyUrl(raw);
}

/** `Proxy-Authorization` for a proxy URL with user info, else undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '') return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/**
 * Opens a CONNECT tunnel to `target` (`host:port`) through `proxy`; `ca` is trusted for an `https://` proxy. Fails with
 * a `ProxyError` naming the proxy and the answer it gave, or with `onTimeout()`'s error after `connectMs`.
 */
export async function openTunnel(
  proxy: URL,
  target: string,
  ca: string[] | undefined,
  connectMs: number,
  onTimeout: () => Error,
): Promise<Duplex> {
  const mod = proxy.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const auth = proxyAuthorization(proxy);
  return new Promise((resolve, reject) => {
    const req = mod.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers: { host: target, ...(auth ? { 'proxy-authorization': auth } : {}) },
      ...(ca ? { ca } : {}),
    });
    const timer = setTimeout(() => req.destroy(onTimeout()), connectMs);
    req.on('connect', (res, socket) => {
      clearTimeout(timer);
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(
          new PayloadError(
            'ProxyError',
            `proxy ${proxy.host} refused to connect to ${target}: HTTP ${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trim(),
            proxy.host,
          ),
        );
        return;
      }
      resolve(socket);
    });
    req.on('error', (e: Error & { code?: string }) => {
      clearTimeout(timer);
      if (e.name === 'DeadlineError') reject(e);
      else
        reject(
          new PayloadError(
            'ProxyError',
            `proxy ${proxy.host}: ${e.message} (while connecting to ${target})`,
            proxy.host,
          ),
        );
    });
    req.end();
  });
}
