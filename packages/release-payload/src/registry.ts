import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadError, UnsafeArchiveError } from './errors.js';
import {
  MEDIA_TYPES,
  assertDigest,
  readImage,
  sha256,
  type BlobReader,
  type Descriptor,
  type ImagePayload,
  type PlatformSelector,
} from './oci.js';
import type { ExtractLimits } from './layers.js';
import { matchLength, pullSources, type MirrorRule } from './mirrors.js';
import type { ProxySettings } from './proxy.js';
import {
  DeadlineError,
  isCertificateError,
  isNotTlsError,
  isTlsAlert,
  loadHostTls,
  tlsFailure,
  tlsFetch,
  type Deadlines,
  type HostTls,
  type RegistryTlsOptions,
} from './transport.js';

/** Options for registry access. */
export interface RegistryOptions extends RegistryTlsOptions {
  /** docker `config.json` / pull secret with `auths`; default `$REGISTRY_AUTH_FILE`, `$DOCKER_CONFIG/config.json`, `~/.docker/config.json`. */
  authFile?: string;
  /** Content-addressed blob cache directory; default `$XDG_CACHE_HOME/keelson/blobs` (or `~/.cache/keelson/blobs`). */
  cacheDir?: string;
  /**
   * Use plain HTTP. Without it, `localhost` / `127.0.0.1` registries get HTTPS when they speak TLS (verified as
   * usual) and plain HTTP when they do not.
   */
  plainHttp?: boolean;
  /** Attempts per request on network errors, 429 and 5xx (default 3). A host that does not accept the connection within the connect deadline is not retried. */
  retries?: number;
  /** Connection deadline (default 30 s, like oc and skopeo). */
  connectTimeoutMs?: number;
  /** Longest silence once connected, headers or body (default 30 s). */
  idleTimeoutMs?: number;
  /** Called before each retry, so that a command can say what it retries (e.g. on stderr). */
  onRetry?: (info: RetryInfo) => void;
  /** HTTP(S) proxy (Go `ProxyFromEnvironment` rules: loopback and `noProxy` hosts go direct). */
  proxy?: ProxySettings;
  /**
   * Registry mirrors (IDMS/ITMS/ICSP or a registries.conf): a matching reference is pulled from its mirrors first,
   * then from its source unless the source is blocked.
   */
  mirrors?: readonly MirrorRule[];
  /** Scopes (`host[:port][/path]`, `*.domain`) pulled without TLS verification (registries.conf `insecure`). */
  insecureRegistries?: readonly string[];
  /** Scopes never contacted as a source (registries.conf `blocked`; image.config `blockedRegistries`); mirrors still are. */
  blockedRegistries?: readonly string[];
  /** When set, only references in these scopes may be pulled (image.config `allowedRegistries`, as policy.json). */
  allowedRegistries?: readonly string[];
}

/** What {@link RegistryOptions.onRetry} is told. */
export interface RetryInfo {
  url: string;
  /** The attempt about to be made (2 = first retry). */
  attempt: number;
  attempts: number;
  /** Why: `HTTP 503`, or the network error. */
  reason: string;
  /** Wait before the attempt. */
  delayMs: number;
}

/** A parsed image reference. */
export interface ImageReference {
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
}

/** Parses `host[:port]/repo[:tag][@sha256:…]`; Docker Hub short names are expanded. */
export function parseImageReference(ref: string): ImageReference {
  let rest = ref.replace(/^docker:\/\//, '');
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = assertDigest(rest.slice(at + 1), `image reference ${ref}`);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const first = rest.split('/')[0] ?? '';
  let registry = 'docker.io';
  let repository = rest;
  if (rest.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first;
    repository = rest.slice(first.length + 1);
  } else if (!rest.includes('/')) {
    repository = `library/${rest}`;
  }
  if (!/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(repository)) {
    throw new PayloadError('RegistryError', `invalid repository name ${JSON.stringify(repository)} in ${ref}`, ref);
  }
  if (tag !== undefined && !/^[\w][\w.-]{0,127}$/.test(tag))
    throw new PayloadError('RegistryError', `invalid tag ${JSON.stringify(tag)} in ${ref}`, ref);
  const out: ImageReference = { registry, repository };
  if (tag !== undefined) out.tag = tag;
  if (digest !== undefined) out.digest = digest;
  if (!tag && !digest) out.tag = 'latest';
  return out;
}

interface Creds {
  username: string;
  password: string;
}

async function loadCredentials(registry: string, authFile?: string): Promise<Creds | undefined> {
  const candidates = authFile
    ? [authFile]
    : [
        process.env['REGISTRY_AUTH_FILE'],
        process.env['DOCKER_CONFIG'] ? join(process.env['DOCKER_CONFIG'], 'config.json') : undefined,
        join(homedir(), '.docker', 'config.json'),
      ].filter((x): x is string => !!x);
  for (const file of candidates) {
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(file, 'utf8'));
    } catch (e) {
      if (authFile)
        throw new PayloadError('RegistryError', `cannot read auth file ${file}: ${(e as Error).message}`, file);
      continue;
    }
    const auths =
      (doc as { auths?: Record<string, { auth?: string; username?: string; password?: string }> }).auths ?? {};
    const keys =
      registry === 'docker.io'
        ? ['docker.io', 'https://index.docker.io/v1/', 'index.docker.io', 'registry-1.docker.io']
        : [registry, `https://${registry}`, `http://${registry}`];
    for (const k of keys) {
      const a = auths[k];
      if (!a) continue;
      if (a.auth) {
        const dec = Buffer.from(a.auth, 'base64').toString('utf8');
        const i = dec.indexOf(':');
        if (i > 0) return { username: dec.slice(0, i), password: dec.slice(i + 1) };
      }
      if (a.username && a.password) return { username: a.username, password: a.password };
    }
  }
  return undefined;
}

function parseChallenge(h: string): { scheme: string; params: Record<string, string> } {
  const sp = h.indexOf(' ');
  const scheme = (sp < 0 ? h : h.slice(0, sp)).toLowerCase();
  const params: Record<string, string> = {};
  const re = /(\w+)="([^"]*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(h)) !== null) params[m[1] ?? ''] = m[2] ?? '';
  return { scheme, params };
}

/** A minimal OCI distribution v2 client: auth, retries, digest verification, blob cache. */
export class RegistryClient {
  private authHeader: string | undefined;
  private creds: Creds | undefined | null = null;
  private base = '';
  private tlsCfg: HostTls = { rejectUnauthorized: true, sources: [] };
  private ready: Promise<void> | undefined;
  private readonly host: string;

  constructor(
    readonly ref: ImageReference,
    private readonly opts: RegistryOptions = {},
  ) {
    this.host = ref.registry === 'docker.io' ? 'registry-1.docker.io' : ref.registry;
  }

  /** Loads TLS material and picks the scheme (HTTPS, or HTTP for plain loopback / insecure registries). */
  private async prepare(): Promise<void> {
    this.ready ??= (async () => {
      this.tlsCfg = await loadHostTls(this.ref.registry, this.opts);
      const host = this.host;
      if (this.opts.plainHttp) {
        this.base = `http://${host}`;
        return;
      }
      const loopback = /^(localhost|127\.0\.0\.1)(:\d+)?$/.test(host);
      const verify = this.tlsCfg.rejectUnauthorized;
      this.base = `https://${host}`;
      if (verify && !loopback) return;
      try {
        const res = await tlsFetch(`https://${host}/v2/`, {}, this.tlsCfg, this.deadlines(), this.opts.proxy);
        await res.body?.cancel();
      } catch (e) {
        if (isCertificateError(e) || isTlsAlert(e)) throw tlsFailure(host, e as Error & { code: string }, this.tlsCfg);
        // not TLS at all (or, when verification is off, any failure): fall back to plain HTTP like containers/image
        if (!verify || isNotTlsError(e) || (e as { code?: string }).code === 'ECONNREFUSED')
          this.base = `http://${host}`;
      }
    })();
    return this.ready;
  }

  private async credentials(): Promise<Creds | undefined> {
    if (this.creds === null) this.creds = await loadCredentials(this.ref.registry, this.opts.authFile);
    return this.creds;
  }

  private async authenticate(challenge: string): Promise<void> {
    const { scheme, params } = parseChallenge(challenge);
    const creds = await this.credentials();
    if (scheme === 'basic') {
      if (!creds)
        throw new PayloadError(
          'RegistryError',
          `${this.ref.registry} requires credentials; add them to your auth file (docker config.json)`,
          this.ref.registry,
        );
      this.authHeader = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
      return;
    }
    if (scheme !== 'bearer' || !params['realm'])
      throw new PayloadError(
        'RegistryError',
        `${this.ref.registry}: unsupported auth challenge ${challenge}`,
        this.ref.registry,
      );
    const u = new URL(params['realm']);
    if (params['service']) u.searchParams.set('service', params['service']);
    u.searchParams.set('scope', params['scope'] ?? `repository:${this.ref.repository}:pull`);
    const headers: Record<string, string> = {};
    if (creds)
      headers['authorization'] = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    const res = await this.fetchRetry(u.toString(), { headers });
    if (!res.ok)
      throw new PayloadError(
        'RegistryError',
        `token request to ${u.origin}${u.pathname} failed: HTTP ${res.status}; check your credentials`,
        this.ref.registry,
      );
    const body = (await res.json()) as { token?: string; access_token?: string };
    const tok = body.token ?? body.access_token;
    if (!tok)
      throw new PayloadError('RegistryError', `token response from ${u.origin} has no token`, this.ref.registry);
    this.authHeader = `Bearer ${tok}`;
  }

  private deadlines(): Deadlines {
    return {
      ...(this.opts.connectTimeoutMs !== undefined ? { connectTimeoutMs: this.opts.connectTimeoutMs } : {}),
      ...(this.opts.idleTimeoutMs !== undefined ? { idleTimeoutMs: this.opts.idleTimeoutMs } : {}),
    };
  }

  private async backoff(url: string, i: number, attempts: number, reason: string): Promise<void> {
    const delayMs = 100 * 4 ** i;
    this.opts.onRetry?.({ url, attempt: i + 2, attempts, reason, delayMs });
    await new Promise((r) => setTimeout(r, delayMs));
  }

  private async fetchRetry(url: string, init: RequestInit): Promise<Response> {
    const attempts = Math.max(1, this.opts.retries ?? 3);
    let last: unknown;
    for (let i = 0; i < attempts; i++) {
      try {
        const res = await tlsFetch(
          url,
          init.headers ? { headers: init.headers as Record<string, string> } : {},
          this.tlsCfg,
          this.deadlines(),
          this.opts.proxy,
        );
        if ((res.status >= 500 || res.status === 429) && i < attempts - 1) {
          await res.body?.cancel();
          await this.backoff(url, i, attempts, `HTTP ${res.status}`);
          continue;
        }
        return res;
      } catch (e) {
        if (isCertificateError(e) || isTlsAlert(e))
          throw tlsFailure(new URL(url).host, e as Error & { code: string }, this.tlsCfg);
        if (e instanceof PayloadError) throw e;
        if (e instanceof DeadlineError && e.phase === 'connect') {
          throw new PayloadError(
            'RegistryError',
            `${e.message}: is the registry reachable (proxy, firewall, address)? --timeout raises the deadline`,
            url,
          );
        }
        last = e;
        if (i < attempts - 1) await this.backoff(url, i, attempts, (e as Error).message);
      }
    }
    throw new PayloadError(
      'RegistryError',
      `request to ${url} failed after ${attempts} attempts: ${(last as Error)?.message ?? 'server error'}`,
      url,
    );
  }

  /** GET with auth negotiation. */
  async get(path: string, accept?: string): Promise<Response> {
    await this.prepare();
    const url = `${this.base}/v2/${this.ref.repository}/${path}`;
    const mk = (): RequestInit => {
      const headers: Record<string, string> = {};
      if (accept) headers['accept'] = accept;
      if (this.authHeader) headers['authorization'] = this.authHeader;
      return { headers };
    };
    let res = await this.fetchRetry(url, mk());
    if (res.status === 401) {
      const ch = res.headers.get('www-authenticate');
      await res.body?.cancel();
      if (!ch) throw new PayloadError('RegistryError', `${url}: 401 Unauthorized without a challenge`, url);
      await this.authenticate(ch);
      res = await this.fetchRetry(url, mk());
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new PayloadError(
        'RegistryError',
        `${url}: HTTP ${res.status}${res.status === 404 ? ' (no such image, tag or blob)' : res.status === 401 || res.status === 403 ? ' (check credentials / pull secret)' : ''}`,
        url,
      );
    }
    return res;
  }

  /**
   * The repository's tags (distribution API `GET /v2/<name>/tags/list`), page after page as the registry's
   * `Link: <…>; rel="next"` header says; at most {@link MAX_TAGS} tags and 4 MiB a page.
   */
  async tags(pageSize = 1000): Promise<string[]> {
    const out: string[] = [];
    const seen = new Set<string>();
    let page: string | undefined = `tags/list?n=${String(pageSize)}`;
    while (page !== undefined) {
      if (seen.has(page)) throw new PayloadError('RegistryError', `tags/list: the registry sent page ${page} twice`);
      seen.add(page);
      const res = await this.get(page, 'application/json');
      const body = await boundedJson(res, 4 * 1024 * 1024, `${this.ref.repository} tags/list`);
      const tags = isTagList(body) ? (body.tags ?? []) : undefined;
      if (tags === undefined)
        throw new PayloadError('RegistryError', `${this.ref.repository} tags/list: expected {"name", "tags": [...]}`);
      out.push(...tags);
      if (out.length > MAX_TAGS)
        throw new PayloadError('RegistryError', `${this.ref.repository} has more than ${String(MAX_TAGS)} tags`);
      page = nextTagsPage(res.headers.get('link'), this.ref.repository);
    }
    return out;
  }

  /** Fetches a manifest by tag or digest; verifies its digest. */
  async manifest(reference: string): Promise<{ bytes: Uint8Array; digest: string; mediaType?: string }> {
    const accept = [
      MEDIA_TYPES.ociIndex,
      MEDIA_TYPES.ociManifest,
      MEDIA_TYPES.dockerList,
      MEDIA_TYPES.dockerManifest,
    ].join(', ');
    const res = await this.get(`manifests/${reference}`, accept);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > 4 * 1024 * 1024)
      throw new PayloadError('RegistryError', `manifest ${reference} is larger than 4 MiB`, reference);
    const digest = sha256(bytes);
    if (reference.startsWith('sha256:') && digest !== reference) {
      throw new UnsafeArchiveError(
        'DigestMismatch',
        `manifest ${reference}: registry returned content with digest ${digest}`,
        reference,
      );
    }
    const header = res.headers.get('docker-content-digest');
    if (header && header.startsWith('sha256:') && header !== digest) {
      throw new UnsafeArchiveError(
        'DigestMismatch',
        `manifest ${reference}: Docker-Content-Digest ${header} does not match content ${digest}`,
        reference,
      );
    }
    const ct = res.headers.get('content-type')?.split(';')[0];
    return ct ? { bytes, digest, mediaType: ct } : { bytes, digest };
  }

  private cacheDir(): string {
    return this.opts.cacheDir ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'keelson', 'blobs');
  }

  /** Ensures a blob is in the cache (downloaded and verified); returns its path. */
  async cachedBlob(desc: Descriptor, onBytes?: (n: number) => void): Promise<string> {
    const digest = assertDigest(desc.digest, 'blob');
    const dir = join(this.cacheDir(), 'sha256');
    const file = join(dir, digest.slice(7));
    if (await stat(file).catch(() => null)) {
      onBytes?.(desc.size ?? 0);
      return file;
    }
    await mkdir(dir, { recursive: true });
    const res = await this.get(`blobs/${digest}`);
    if (!res.body) throw new PayloadError('RegistryError', `blob ${digest}: empty response`, digest);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const h = createHash('sha256');
    let n = 0;
    const max = desc.size;
    const counter = new Transform({
      transform(chunk: Buffer, _e, cb) {
        h.update(chunk);
        n += chunk.length;
        if (max !== undefined && n > max) {
          cb(
            new UnsafeArchiveError('DigestMismatch', `blob ${digest}: more data than the declared size ${max}`, digest),
          );
          return;
        }
        onBytes?.(chunk.length);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(res.body), counter, createWriteStream(tmp));
      const got = `sha256:${h.digest('hex')}`;
      if (got !== digest)
        throw new UnsafeArchiveError(
          'DigestMismatch',
          `blob ${digest}: downloaded content has digest ${got}; refusing it`,
          digest,
        );
      await rename(tmp, file);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    return file;
  }

  /** A {@link BlobReader} backed by the cache. */
  blobReader(onBytes?: (n: number) => void): BlobReader {
    return {
      read: async (desc) => {
        const data = await readFile(await this.cachedBlob(desc));
        if (sha256(data) !== desc.digest) {
          await rm(join(this.cacheDir(), 'sha256', desc.digest.slice(7)), { force: true });
          throw new UnsafeArchiveError(
            'DigestMismatch',
            `cached blob ${desc.digest} is corrupt; it was removed, retry`,
            desc.digest,
          );
        }
        return data;
      },
      applyLayer: async (tree, desc, label) => {
        const file = await this.cachedBlob(desc, onBytes);
        await tree.applyLayer(createReadStream(file), desc.digest, label);
      },
    };
  }
}

/** The most tags {@link RegistryClient.tags} reads from one repository. */
export const MAX_TAGS = 100_000;

function isTagList(v: unknown): v is { tags?: string[] | null } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const tags = (v as { tags?: unknown }).tags;
  return tags === undefined || tags === null || (Array.isArray(tags) && tags.every((t) => typeof t === 'string'));
}

/** A JSON body of at most `max` bytes. */
async function boundedJson(res: Response, max: number, what: string): Promise<unknown> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    throw new PayloadError('RegistryError', `${what}: response larger than ${String(max)} bytes`);
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length > max) throw new PayloadError('RegistryError', `${what}: response larger than ${String(max)} bytes`);
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch (e) {
    throw new PayloadError('RegistryError', `${what}: invalid JSON: ${(e as Error).message}`);
  }
}

/**
 * The next page of a tag list from the `Link` header (RFC 5988, as distribution sends it:
 * `</v2/<name>/tags/list?last=…&n=…>; rel="next"`), as a path below `/v2/<name>/`; undefined on the last page.
 */
export function nextTagsPage(link: string | null, repository: string): string | undefined {
  if (link === null) return undefined;
  for (const part of link.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!m || !/(^|;)\s*rel="?next"?\s*(;|$)/.test(m[2] ?? '')) continue;
    const target = new URL(m[1] ?? '', 'http://registry.invalid');
    const prefix = `/v2/${repository}/`;
    if (!target.pathname.startsWith(prefix))
      throw new PayloadError('RegistryError', `tags/list: next page ${m[1] ?? ''} is outside ${prefix}`);
    return `${target.pathname.slice(prefix.length)}${target.search}`;
  }
  return undefined;
}

/** The tags of a registry repository (`host/repo`, with or without `docker://`). */
export async function listRepositoryTags(repository: string, opts: RegistryOptions = {}): Promise<string[]> {
  const name = repository.replace(/^docker:\/\//, '');
  if (name.includes('@') || name.slice(name.lastIndexOf('/') + 1).includes(':'))
    throw new PayloadError('RegistryError', `${repository}: name a repository, without a tag or digest`);
  return new RegistryClient(parseImageReference(name), opts).tags();
}

type ReadRegistryOptions = RegistryOptions & {
  platform?: PlatformSelector;
  limits?: ExtractLimits;
  onProgress?: (done: number, total: number) => void;
};

/**
 * Reads a release image from a registry: resolves tag/digest, manifest lists by platform, verified layers. With
 * {@link RegistryOptions.mirrors}, each pull source is tried in order (mirrors, then the source unless blocked), as
 * CRI-O does; when all fail, the error names every source and why it failed.
 */
export async function readRegistryImage(reference: string, opts: ReadRegistryOptions = {}): Promise<ImagePayload> {
  const name = imageName(reference);
  if (opts.allowedRegistries && !inScopes(name, opts.allowedRegistries))
    throw new PayloadError(
      'RegistryError',
      `Source image rejected: ${reference} is not in the allowed registries (${opts.allowedRegistries.join(', ')})`,
      reference,
    );
  const rules = [...(opts.mirrors ?? [])];
  for (const scope of opts.blockedRegistries ?? []) {
    const same = rules.findIndex((r) => r.source === scope);
    if (same >= 0) rules[same] = { ...(rules[same] as MirrorRule), blocked: true };
    else rules.push({ source: scope, mirrors: [], blocked: true });
  }
  const sources = rules.length > 0 ? pullSources(reference, rules) : undefined;
  if (!sources || (sources.length === 1 && sources[0]?.reference === reference))
    return readOneRegistryImage(reference, opts);
  const failures: string[] = [];
  for (const src of sources) {
    try {
      return await readOneRegistryImage(src.reference, opts);
    } catch (e) {
      if (!(e instanceof PayloadError)) throw e;
      failures.push(`${src.reference}${src.mirror ? ' (mirror)' : ''}: ${e.message}`);
    }
  }
  const blocked = !sources.some((s) => !s.mirror);
  throw new PayloadError(
    'RegistryError',
    sources.length === 0
      ? `${reference}: the source is blocked (NeverContactSource or a blocked registry) and no mirror applies to this reference`
      : `${reference}: every pull source failed${blocked ? ' (the source itself is blocked: NeverContactSource or a blocked registry)' : ''}: ${failures.join('; ')}`,
    reference,
  );
}

/** `host/repo` of a reference (no tag or digest). */
function imageName(reference: string): string {
  const r = parseImageReference(reference.replace(/^docker:\/\//, ''));
  return `${r.registry}/${r.repository}`;
}

function inScopes(name: string, scopes: readonly string[]): boolean {
  return scopes.some((s) => matchLength(name, s) >= 0);
}

async function readOneRegistryImage(reference: string, opts: ReadRegistryOptions): Promise<ImagePayload> {
  const ref = parseImageReference(reference);
  const insecure = opts.insecureRegistries && inScopes(`${ref.registry}/${ref.repository}`, opts.insecureRegistries);
  const client = new RegistryClient(ref, insecure ? { ...opts, tlsVerify: false } : opts);
  const top = await client.manifest(ref.digest ?? ref.tag ?? 'latest');
  let total = 0;
  let done = 0;
  const report = opts.onProgress;
  const onBytes = report
    ? (n: number) => {
        done += n;
        report(done, total);
      }
    : undefined;
  const blobs = client.blobReader(onBytes);
  const o: Parameters<typeof readImage>[3] = {
    fetchManifest: async (d) => (await client.manifest(d.digest)).bytes,
    onLayers: (layers) => {
      total = layers.reduce((s, l) => s + (l.size ?? 0), 0);
    },
  };
  if (opts.platform) o.platform = opts.platform;
  if (opts.limits) o.limits = opts.limits;
  const pretty = `${ref.registry}/${ref.repository}${ref.tag && !ref.digest ? ':' + ref.tag : ''}@${top.digest}`;
  return readImage(blobs, top, pretty, o);
}
