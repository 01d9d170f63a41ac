/** The HTTP front end: routing, discovery, content negotiation, verbs, watch streaming. */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { Cluster, WatchEventType } from './cluster.js';
import { forbiddenFor, requestAttributes, type Identity } from './authz.js';
import { impersonate } from './impersonation.js';
import { authorize, type UserInfo } from './rbac.js';
import { accessReview, selfSubjectReview, selfSubjectRulesReview } from './access-review.js';
import { checkDepth, checkTypedBody, MAX_BODY_DEPTH, readBody, RequestTooLargeError } from './body.js';
import { ApiError, badRequest, methodNotAllowed, notFound } from './errors.js';
import { decodeProtobufObject } from './protobuf.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { toTable, wantsTable } from './tables.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';
import { isObject, must } from './util.js';

/** Extra request handlers (patch/apply, subresources) plugged in by the sandbox. */
export interface Handlers {
  patch(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    q: URLSearchParams,
    fieldManager: string,
    subresource: string | undefined,
  ): KubeObject;
  subresource(
    t: ResourceType,
    ns: string | undefined,
    name: string,
    sub: string,
    method: string,
    body: unknown,
    q: URLSearchParams,
  ): { code: number; body: unknown } | null;
  openapi(path: string): unknown;
  /** Unknown-field check per `fieldValidation` (Strict throws 400; Warn returns warnings). */
  fieldValidation(t: ResourceType, obj: unknown, q: URLSearchParams): string[];
}

/** Identity of a request: its user (`system:anonymous` without credentials), or bad credentials (401). */
export type Authenticator = (req: IncomingMessage) => Identity;

/** Server version reported by `/version`. */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-keelson-sandbox',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, err: ApiError, extra: Record<string, string> = {}): void {
  const headers: Record<string, string> = { ...extra };
  if (err.httpCode === 429 && err.details?.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(err.details.retryAfterSeconds);
  sendJson(res, err.httpCode, err.toStatus(), headers);
}

function parseBody(buf: Buffer, contentType: string): unknown {
  const ct = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (ct === 'application/vnd.kubernetes.protobuf') return buf.length ? decodeProtobufObject(buf) : undefined;
  const text = buf.toString('utf8');
  if (text.trim() === '') return undefined;
  if (!(ct.endsWith('json') || ct.endsWith('yaml') || ct === '' || ct === 'text/plain'))
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    );
  let parsed: unknown;
  try {
    parsed = ct.endsWith('yaml') ? (parseYaml(text, { maxAliasCount: 100 }) as unknown) : (JSON.parse(text) as unknown);
  } catch (e) {
    if (e instanceof RangeError)
      throw badRequest(`error decoding request body: exceeded max depth of ${MAX_BODY_DEPTH}`);
    throw badRequest(`error decoding request body: ${(e as Error).message}`);
  }
  checkDepth(parsed);
  return parsed;
}

/** Default field manager derived from the User-Agent, as the real server does. */
export function managerFromUserAgent(ua: string | undefined): string {
  if (!ua) return 'unknown';
  const first = (ua.split('/')[0] ?? '').trim();
  return first.slice(0, 128) || 'unknown';
}

interface Route {
  t: ResourceType;
  ns: string | undefined;
  name: string | undefined;
  sub: string | undefined;
  watchPath: boolean;
}

/** The request router for one sandbox. */
export class ApiHttp {
  /** Millisecond interval between watch bookmarks (when requested). */
  bookmarkIntervalMs = 10_000;
  constructor(
    private readonly cluster: Cluster,
    private readonly handlers: Handlers,
    private readonly authenticate: Authenticator,
    private readonly hostPort: () => string,
  ) {}

  /** Node request listener. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof RequestTooLargeError) {
        // the rest of the upload is being discarded; close once the answer is out
        sendError(res, err, { Connection: 'close' });
        return;
      }
      if (err instanceof ApiError) sendError(res, err);
      else
        sendError(
          res,
          new ApiError(
            500,
            'InternalError',
            `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
    });
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const who = this.authenticate(req);
    if (who === 'unauthorized') {
      sendJson(res, 401, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
      return;
    }
    let user: UserInfo;
    try {
      user = impersonate(this.cluster, who, req);
    } catch (e) {
      if (e instanceof ApiError && e.httpCode === 403) {
        sendError(res, e, { 'X-Content-Type-Options': 'nosniff' });
        return;
      }
      throw e;
    }
    const attrs = requestAttributes(method, url);
    const decision = authorize(this.cluster, user, attrs);
    if (!decision.allowed) {
      sendError(res, forbiddenFor(user.name, attrs, decision.reason), { 'X-Content-Type-Options': 'nosniff' });
      return;
    }
    if (path === '/version') {
      sendJson(res, 200, SERVER_VERSION);
      return;
    }
    if (path === '/api') {
      sendJson(res, 200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.hostPort() }],
      });
      return;
    }
    if (path === '/apis') {
      sendJson(res, 200, this.groupList());
      return;
    }
    if (path.startsWith('/openapi/')) {
      const doc = this.handlers.openapi(path);
      if (doc === undefined) throw notFound({ group: '', resource: 'openapi' }, path);
      sendJson(res, 200, doc);
      return;
    }
    const segs = path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === 'api') {
      group = '';
      version = segs[1] ?? '';
      rest = segs.slice(2);
      if (version !== 'v1') throw this.pageNotFound();
    } else if (segs[0] === 'apis') {
      group = segs[1] ?? '';
      if (segs.length === 2) {
        const g = this.groupList().groups.find((x) => x.name === group);
        if (!g) throw this.pageNotFound();
        sendJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...g });
        return;
      }
      version = segs[2] ?? '';
      rest = segs.slice(3);
    } else throw this.pageNotFound();
    if (rest.length === 0) {
      if (method !== 'GET') throw methodNotAllowed();
      const list = this.resourceList(group, version);
      if (!list) throw this.pageNotFound();
      sendJson(res, 200, list);
      return;
    }
    const route = this.route(group, version, rest);
    const q = url.searchParams;
    const contentType = req.headers['content-type'] ?? 'application/json';
    const accept = req.headers['accept'];
    const fieldManager = q.get('fieldManager') ?? managerFromUserAgent(req.headers['user-agent']);
    const dryRun = q.getAll('dryRun').includes('All');
    const { t, ns, name, sub } = route;
    let body: unknown;
    if (method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE')
      body = parseBody(await readBody(req), contentType);
    if ((method === 'POST' || method === 'PUT') && !sub) checkTypedBody(t, body);

    if (sub && name) {
      if (!t.subresources.includes(sub)) throw this.pageNotFound();
      const r = this.handlers.subresource(t, ns, name, sub, method, body, q);
      if (r) {
        sendJson(res, r.code, r.body);
        return;
      }
      if (sub === 'status') {
        if (method === 'GET') {
          sendJson(res, 200, this.cluster.get(t, ns, name));
          return;
        }
        if (method === 'PUT') {
          sendJson(res, 200, this.cluster.update(t, ns, name, body, { dryRun, fieldManager, subresource: 'status' }));
          return;
        }
        if (method === 'PATCH') {
          sendJson(res, 200, this.handlers.patch(t, ns, name, contentType, body, q, fieldManager, 'status'));
          return;
        }
      }
      throw methodNotAllowed();
    }

    switch (method) {
      case 'GET': {
        if (route.watchPath || q.get('watch') === '1' || q.get('watch') === 'true') {
          if (!t.verbs.includes('watch')) throw methodNotAllowed();
          this.serveWatch(req, res, route, q, accept);
          return;
        }
        if (name) {
          const obj = this.cluster.get(t, ns, name);
          if (wantsTable(accept)) {
            sendJson(
              res,
              200,
              toTable(
                t,
                [obj],
                { resourceVersion: obj.metadata?.resourceVersion ?? '' },
                q.get('includeObject') ?? 'Metadata',
              ),
            );
            return;
          }
          sendJson(res, 200, obj);
          return;
        }
        const labelSel = q.get('labelSelector');
        const labels = labelSel ? parseLabelSelector(labelSel) : [];
        const fieldSel = q.get('fieldSelector');
        const fields = fieldSel ? parseFieldSelector(fieldSel, t.fields, t.kind) : [];
        const limitS = q.get('limit');
        const limit = limitS ? Number(limitS) : 0;
        if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitS ?? ''}`);
        const opts: Parameters<Cluster['list']>[2] = { labels, fields, limit };
        const cont = q.get('continue');
        if (cont) opts.continueToken = cont;
        const list = this.cluster.list(t, ns, opts);
        if (wantsTable(accept)) {
          sendJson(
            res,
            200,
            toTable(
              t,
              list['items'] as KubeObject[],
              list.metadata as Record<string, unknown>,
              q.get('includeObject') ?? 'Metadata',
            ),
          );
          return;
        }
        sendJson(res, 200, list);
        return;
      }
      case 'POST': {
        if (name) throw methodNotAllowed();
        if (t.crd && !t.verbs.includes('create')) {
          // apiextensions-apiserver refuses only creation while the CRD is terminating
          const d: Record<string, string> = { kind: t.plural };
          if (t.group) d['group'] = t.group;
          throw new ApiError(
            405,
            'MethodNotAllowed',
            'create not allowed while custom resource definition is terminating',
            d,
          );
        }
        if (!t.verbs.includes('create')) throw methodNotAllowed();
        if (t.group === 'authorization.k8s.io' && t.plural === 'selfsubjectaccessreviews') {
          sendJson(res, 201, accessReview(this.cluster, user, body));
          return;
        }
        if (t.group === 'authentication.k8s.io' && t.plural === 'selfsubjectreviews') {
          sendJson(res, 201, selfSubjectReview(user));
          return;
        }
        if (t.group === 'authorization.k8s.io' && t.plural === 'selfsubjectrulesreviews') {
          sendJson(res, 201, selfSubjectRulesReview(this.cluster, user, body));
          return;
        }
        const warnings = this.handlers.fieldValidation(t, body, q);
        const created = this.cluster.create(t, ns, body, { dryRun, fieldManager });
        sendJson(res, 201, created, warningHeaders(warnings));
        return;
      }
      case 'PUT': {
        if (!name) throw methodNotAllowed();
        const warnings = this.handlers.fieldValidation(t, body, q);
        sendJson(res, 200, this.cluster.update(t, ns, name, body, { dryRun, fieldManager }), warningHeaders(warnings));
        return;
      }
      case 'PATCH': {
        if (!name) throw methodNotAllowed();
        const before = this.cluster.peek(t, ns, name);
        const out = this.handlers.patch(t, ns, name, contentType, body, q, fieldManager, undefined);
        sendJson(res, before ? 200 : 201, out);
        return;
      }
      case 'DELETE': {
        const opts = isObject(body) ? body : {};
        const policy = (q.get('propagationPolicy') ?? opts['propagationPolicy']) as
          'Background' | 'Foreground' | 'Orphan' | undefined;
        const orphan = opts['orphanDependents'];
        const del: Parameters<Cluster['delete']>[3] = {
          dryRun: dryRun || (Array.isArray(opts['dryRun']) && opts['dryRun'].includes('All')),
        };
        if (policy) del.propagationPolicy = policy;
        else if (orphan === true) del.propagationPolicy = 'Orphan';
        if (isObject(opts['preconditions'])) del.preconditions = opts['preconditions'];
        if (name) {
          const r = this.cluster.delete(t, ns, name, del);
          // generic registry Store.Delete: the object when it stays (finalizers) or the store sets ReturnDeletedObject
          // (pods, namespaces, serviceaccounts); a Success Status otherwise, custom resources included
          // handlers.DeleteResource answers 202 only when the object stays and the client asked OrphanDependents=false
          const accepted = !r.deleted && orphan === false;
          if (
            !r.deleted ||
            (t.group === '' && (t.plural === 'pods' || t.plural === 'namespaces' || t.plural === 'serviceaccounts'))
          ) {
            sendJson(res, accepted ? 202 : 200, r.object);
            return;
          }
          const details: Record<string, unknown> = { name, kind: t.plural, uid: r.object.metadata?.uid };
          if (t.group) details['group'] = t.group;
          sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
          return;
        }
        if (!t.verbs.includes('deletecollection')) throw methodNotAllowed();
        const labelSel = q.get('labelSelector');
        const labels = labelSel ? parseLabelSelector(labelSel) : [];
        const fieldSel = q.get('fieldSelector');
        const fields = fieldSel ? parseFieldSelector(fieldSel, t.fields, t.kind) : [];
        const list = this.cluster.list(t, ns, { labels, fields });
        const items: KubeObject[] = [];
        for (const o of list['items'] as KubeObject[]) {
          try {
            items.push(this.cluster.delete(t, o.metadata?.namespace, o.metadata?.name ?? '', del).object);
          } catch (e) {
            if (!(e instanceof ApiError && e.httpCode === 404)) throw e;
          }
        }
        sendJson(res, 200, {
          kind: t.listKind,
          apiVersion: apiVersionOf(t.group, t.version),
          metadata: { resourceVersion: String(this.cluster.rv) },
          items,
        });
        return;
      }
      default:
        throw methodNotAllowed();
    }
  }

  private pageNotFound(): ApiError {
    return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  }

  private route(group: string, version: string, segs: string[]): Route {
    let watchPath = false;
    let s = segs;
    if (s[0] === 'watch') {
      watchPath = true;
      s = s.slice(1);
    }
    let ns: string | undefined;
    if (
      s[0] === 'namespaces' &&
      s.length >= 3 &&
      group === '' &&
      !(s.length === 3 && (s[2] === 'status' || s[2] === 'finalize'))
    ) {
      ns = s[1];
      s = s.slice(2);
    } else if (s[0] === 'namespaces' && s.length >= 3 && group !== '') {
      ns = s[1];
      s = s.slice(2);
    }
    const [plural, name, sub, ...extra] = s;
    if (!plural || extra.length) throw this.pageNotFound();
    const t = this.cluster.findType(group, version, plural);
    if (!t) throw this.pageNotFound();
    if (ns !== undefined && !t.namespaced) throw this.pageNotFound();
    if (t.namespaced && ns === undefined && name !== undefined) throw this.pageNotFound();
    return { t, ns, name, sub, watchPath };
  }

  /** `/apis` APIGroupList. */
  groupList(): {
    kind: string;
    apiVersion: string;
    groups: {
      name: string;
      versions: { groupVersion: string; version: string }[];
      preferredVersion: { groupVersion: string; version: string };
    }[];
  } {
    const byGroup = new Map<string, string[]>();
    for (const t of this.cluster.allTypes()) {
      if (t.group === '') continue;
      const vs = byGroup.get(t.group) ?? [];
      if (!vs.includes(t.version)) vs.push(t.version);
      byGroup.set(t.group, vs);
    }
    const groups = [...byGroup.entries()].map(([name, vs]) => {
      const sorted = sortVersions(vs);
      const versions = sorted.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
      return { name, versions, preferredVersion: must(versions[0], `preferred version of group ${name}`) };
    });
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }

  /** `/api/v1` or `/apis/<g>/<v>` APIResourceList, or null when the group/version is not served. */
  resourceList(group: string, version: string): KubeObject | null {
    const types = this.cluster.allTypes().filter((t) => t.group === group && t.version === version);
    if (types.length === 0) return null;
    const resources: Record<string, unknown>[] = [];
    for (const t of types.sort((a, b) => a.plural.localeCompare(b.plural))) {
      const r: Record<string, unknown> = {
        name: t.plural,
        singularName: t.singular,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: t.verbs,
      };
      if (t.shortNames.length) r['shortNames'] = t.shortNames;
      if (t.categories.length) r['categories'] = t.categories;
      const hash = this.storageVersionHash(t);
      if (hash) r['storageVersionHash'] = hash;
      resources.push(r);
      for (const sub of t.subresources) {
        if (sub === 'status')
          resources.push({
            name: `${t.plural}/status`,
            singularName: '',
            namespaced: t.namespaced,
            kind: t.kind,
            verbs: ['get', 'patch', 'update'],
          });
        else if (sub === 'scale')
          resources.push({
            name: `${t.plural}/scale`,
            singularName: '',
            namespaced: t.namespaced,
            group: 'autoscaling',
            version: 'v1',
            kind: 'Scale',
            verbs: ['get', 'patch', 'update'],
          });
        else if (sub === 'eviction')
          resources.push({
            name: `${t.plural}/eviction`,
            singularName: '',
            namespaced: t.namespaced,
            group: 'policy',
            version: 'v1',
            kind: 'Eviction',
            verbs: ['create'],
          });
        else if (sub === 'finalize')
          resources.push({
            name: `${t.plural}/finalize`,
            singularName: '',
            namespaced: t.namespaced,
            kind: t.kind,
            verbs: ['update'],
          });
        else if (sub === 'token')
          resources.push({
            name: `${t.plural}/token`,
            singularName: '',
            namespaced: t.namespaced,
            group: 'authentication.k8s.io',
            version: 'v1',
            kind: 'TokenRequest',
            verbs: ['create'],
          });
      }
    }
    const out: KubeObject = { kind: 'APIResourceList', groupVersion: apiVersionOf(group, version), resources };
    if (group !== '') out.apiVersion = 'v1';
    return out;
  }

  /**
   * `storageVersionHash` of a resource: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>") of the
   * version objects are stored in (apiserver `discovery.StorageVersionHash`); none for kinds that are not stored.
   */
  private storageVersionHash(t: ResourceType): string | undefined {
    if (t.group === 'authorization.k8s.io' || t.group === 'authentication.k8s.io') return undefined;
    let gvk = `${t.group}/${t.version}/${t.kind}`;
    if (t.crd && !t.crd.storage) {
      const stored = this.cluster
        .allTypes()
        .find((x) => x.group === t.group && x.plural === t.plural && x.crd?.storage);
      if (stored) gvk = `${stored.group}/${stored.version}/${stored.kind}`;
    }
    if (t.storedAs) {
      const st = this.cluster.allTypes().find((x) => x.group === t.storedAs?.group && x.plural === t.storedAs.plural);
      if (st) gvk = `${st.group}/${st.version}/${st.kind}`;
    }
    return createHash('sha256').update(gvk).digest().subarray(0, 8).toString('base64');
  }

  private serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    q: URLSearchParams,
    accept: string | undefined,
  ): void {
    const { t, ns, name } = route;
    const labelSel = q.get('labelSelector');
    const labels = labelSel ? parseLabelSelector(labelSel) : [];
    const fieldSel = q.get('fieldSelector');
    const fields = fieldSel ? parseFieldSelector(fieldSel, t.fields, t.kind) : [];
    if (name) fields.push({ field: 'metadata.name', path: 'metadata.name', value: name, negate: false });
    const table = wantsTable(accept);
    const includeObject = q.get('includeObject') ?? 'Metadata';
    const bookmarks = q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1';
    const timeoutS = q.get('timeoutSeconds');
    const timeoutMs = timeoutS ? Math.max(0, Number(timeoutS)) * 1000 : 30 * 60 * 1000;
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    let closed = false;
    let firstTable = true;
    const write = (type: WatchEventType, obj: unknown): void => {
      if (closed) return;
      res.write(`{"type":${JSON.stringify(type)},"object":${jsonOf(obj)}}\n`);
    };
    const send = (type: WatchEventType, obj: KubeObject): void => {
      if (table && type !== 'BOOKMARK' && type !== 'ERROR') {
        write(
          type,
          toTable(t, [obj], { resourceVersion: obj.metadata?.resourceVersion ?? '' }, includeObject, firstTable),
        );
        firstTable = false;
      } else write(type, obj);
    };
    let stop: (() => void) | undefined;
    let removeCloser: (() => void) | undefined = undefined;
    const timers: NodeJS.Timeout[] = [];
    const finish = (): void => {
      if (closed) return;
      closed = true;
      stop?.();
      removeCloser?.();
      for (const tm of timers) clearTimeout(tm);
      res.end();
    };
    req.on('close', finish);
    res.on('close', finish);
    try {
      const w: Parameters<Cluster['watch']>[1] = { labels, fields, send };
      if (ns !== undefined) w.namespace = ns;
      stop = this.cluster.watch(t, w, q.get('resourceVersion') ?? undefined);
    } catch (e) {
      if (e instanceof ApiError) {
        write('ERROR', e.toStatus());
        finish();
        return;
      }
      throw e;
    }
    removeCloser = this.cluster.addCloser(finish);
    timers.push(setTimeout(finish, timeoutMs));
    if (bookmarks) {
      const iv = setInterval(() => {
        write('BOOKMARK', {
          kind: t.kind,
          apiVersion: apiVersionOf(t.group, t.version),
          metadata: { resourceVersion: String(this.cluster.rv), creationTimestamp: null },
        });
      }, this.bookmarkIntervalMs);
      timers.push(iv);
    }
  }
}

const jsonCache = new WeakMap<object, string>();
/** JSON of an object, cached per object identity (watch fan-out serializes each event once). */
function jsonOf(o: unknown): string {
  if (o === null || typeof o !== 'object') return JSON.stringify(o);
  let s = jsonCache.get(o);
  if (s === undefined) {
    s = JSON.stringify(o);
    jsonCache.set(o, s);
  }
  return s;
}

function warningHeaders(w: string[]): Record<string, string> {
  if (w.length === 0) return {};
  return { Warning: w.map((x) => `299 - ${JSON.stringify(x)}`).join(', ') };
}

/** Sorts versions by Kubernetes version priority (GA > beta > alpha, higher first). */
export function sortVersions(vs: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  return [...vs].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (const i of [0, 1, 2] as const) if (ra[i] !== rb[i]) return rb[i] - ra[i];
    return a.localeCompare(b);
  });
}
