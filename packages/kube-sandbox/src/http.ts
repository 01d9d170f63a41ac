/** The HTTP front end: the request pipeline (authn/authz, discovery, routing) and the resource verbs. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from './cluster.js';
import { forbiddenFor, requestAttributes, type Identity } from './authz.js';
import { impersonate } from './impersonation.js';
import { authorize, type UserInfo } from './rbac.js';
import { accessReview, selfSubjectReview, selfSubjectRulesReview } from './access-review.js';
import { checkTypedBody, readBody, RequestTooLargeError } from './body.js';
import { groupList, resourceList, type ApiGroupList } from './discovery.js';
import { ApiError, badRequest, methodNotAllowed, notFound } from './errors.js';
import { pageNotFound, parseBody, sendError, sendJson, warningHeaders } from './http-send.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { toTable, wantsTable } from './tables.js';
import { apiVersionOf, type KubeObject, type ResourceType } from './types.js';
import { isObject } from './util.js';
import { serveWatch } from './watch-stream.js';

export { sortVersions } from './discovery.js';

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

interface ApiPath {
  group: string;
  version: string;
  rest: string[];
}

/** One resource request once routed and its body decoded. */
interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  user: UserInfo;
  method: string;
  q: URLSearchParams;
  route: Route;
  body: unknown;
  contentType: string;
  accept: string | undefined;
  fieldManager: string;
  dryRun: boolean;
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

  /** The request pipeline: health probes, authentication and authorization, discovery, then the resource verbs. */
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const user = this.admit(req, res, method, url);
    if (!user || this.serveNonResource(res, path)) return;
    const api = this.apiPath(res, path);
    if (!api) return;
    if (api.rest.length === 0) {
      if (method !== 'GET') throw methodNotAllowed();
      const list = resourceList(this.cluster, api.group, api.version);
      if (!list) throw pageNotFound();
      sendJson(res, 200, list);
      return;
    }
    const route = this.route(api.group, api.version, api.rest);
    await this.serveResource(req, res, user, method, url.searchParams, route);
  }

  /** Authenticates, impersonates and authorizes; answers 401/403 itself and then returns undefined. */
  private admit(req: IncomingMessage, res: ServerResponse, method: string, url: URL): UserInfo | undefined {
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
      return undefined;
    }
    let user: UserInfo;
    try {
      user = impersonate(this.cluster, who, req);
    } catch (e) {
      if (e instanceof ApiError && e.httpCode === 403) {
        sendError(res, e, { 'X-Content-Type-Options': 'nosniff' });
        return undefined;
      }
      throw e;
    }
    const attrs = requestAttributes(method, url);
    const decision = authorize(this.cluster, user, attrs);
    if (!decision.allowed) {
      sendError(res, forbiddenFor(user.name, attrs, decision.reason), { 'X-Content-Type-Options': 'nosniff' });
      return undefined;
    }
    return user;
  }

  /** `/version`, `/api`, `/apis` and `/openapi/...`; false when `path` is none of them. */
  private serveNonResource(res: ServerResponse, path: string): boolean {
    if (path === '/version') sendJson(res, 200, SERVER_VERSION);
    else if (path === '/api')
      sendJson(res, 200, {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.hostPort() }],
      });
    else if (path === '/apis') sendJson(res, 200, this.groupList());
    else if (path.startsWith('/openapi/')) {
      const doc = this.handlers.openapi(path);
      if (doc === undefined) throw notFound({ group: '', resource: 'openapi' }, path);
      sendJson(res, 200, doc);
    } else return false;
    return true;
  }

  /** Group, version and the rest of an `/api/v1/...` or `/apis/<g>/<v>/...` path; answers `/apis/<g>` itself. */
  private apiPath(res: ServerResponse, path: string): ApiPath | undefined {
    const segs = path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    if (segs[0] === 'api') {
      const version = segs[1] ?? '';
      if (version !== 'v1') throw pageNotFound();
      return { group: '', version, rest: segs.slice(2) };
    }
    if (segs[0] !== 'apis') throw pageNotFound();
    const group = segs[1] ?? '';
    if (segs.length === 2) {
      const g = this.groupList().groups.find((x) => x.name === group);
      if (!g) throw pageNotFound();
      sendJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...g });
      return undefined;
    }
    return { group, version: segs[2] ?? '', rest: segs.slice(3) };
  }

  /** Decodes the body, then answers a subresource request or dispatches on the verb. */
  private async serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    user: UserInfo,
    method: string,
    q: URLSearchParams,
    route: Route,
  ): Promise<void> {
    const contentType = req.headers['content-type'] ?? 'application/json';
    let body: unknown;
    if (method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE')
      body = parseBody(await readBody(req), contentType);
    if ((method === 'POST' || method === 'PUT') && !route.sub) checkTypedBody(route.t, body);
    const r: ResourceRequest = {
      req,
      res,
      user,
      method,
      q,
      route,
      body,
      contentType,
      accept: req.headers['accept'],
      fieldManager: q.get('fieldManager') ?? managerFromUserAgent(req.headers['user-agent']),
      dryRun: q.getAll('dryRun').includes('All'),
    };
    if (route.sub && route.name) {
      this.serveSubresource(r, route.name, route.sub);
      return;
    }
    const serve = Object.hasOwn(this.verbs, method) ? this.verbs[method] : undefined;
    if (!serve) throw methodNotAllowed();
    serve(r);
  }

  /** The handler of each verb on a resource or collection path. */
  private readonly verbs: Readonly<Record<string, (r: ResourceRequest) => void>> = {
    GET: (r) => {
      this.serveGet(r);
    },
    POST: (r) => {
      this.servePost(r);
    },
    PUT: (r) => {
      this.servePut(r);
    },
    PATCH: (r) => {
      this.servePatch(r);
    },
    DELETE: (r) => {
      this.serveDelete(r);
    },
  };

  /** `<resource>/<name>/<sub>`: the sandbox's subresource handlers first, then the generic `status`. */
  private serveSubresource(r: ResourceRequest, name: string, sub: string): void {
    const { res, method, q, body, route, dryRun, fieldManager } = r;
    const { t, ns } = route;
    if (!t.subresources.includes(sub)) throw pageNotFound();
    const answer = this.handlers.subresource(t, ns, name, sub, method, body, q);
    if (answer) {
      sendJson(res, answer.code, answer.body);
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
        sendJson(res, 200, this.handlers.patch(t, ns, name, r.contentType, body, q, fieldManager, 'status'));
        return;
      }
    }
    throw methodNotAllowed();
  }

  /** GET: a watch, one object or a (paged, selected) list; as a Table when the client asks for one. */
  private serveGet(r: ResourceRequest): void {
    const { req, res, q, route, accept } = r;
    const { t, ns, name } = route;
    if (route.watchPath || q.get('watch') === '1' || q.get('watch') === 'true') {
      if (!t.verbs.includes('watch')) throw methodNotAllowed();
      serveWatch(this.cluster, this.bookmarkIntervalMs, req, res, route, q, accept);
      return;
    }
    const includeObject = q.get('includeObject') ?? 'Metadata';
    if (name) {
      const obj = this.cluster.get(t, ns, name);
      if (wantsTable(accept)) {
        const meta = { resourceVersion: obj.metadata?.resourceVersion ?? '' };
        sendJson(res, 200, toTable(t, [obj], meta, includeObject));
        return;
      }
      sendJson(res, 200, obj);
      return;
    }
    const limitS = q.get('limit');
    const limit = limitS ? Number(limitS) : 0;
    if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${limitS ?? ''}`);
    const opts: Parameters<Cluster['list']>[2] = { ...selectorsOf(t, q), limit };
    const cont = q.get('continue');
    if (cont) opts.continueToken = cont;
    const list = this.cluster.list(t, ns, opts);
    if (wantsTable(accept)) {
      const meta = list.metadata as Record<string, unknown>;
      sendJson(res, 200, toTable(t, list['items'] as KubeObject[], meta, includeObject));
      return;
    }
    sendJson(res, 200, list);
  }

  /** POST: creation (refused on a terminating CRD) or one of the review kinds answered for the caller. */
  private servePost(r: ResourceRequest): void {
    const { res, user, body, q, route, dryRun, fieldManager } = r;
    const { t, ns, name } = route;
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
    const review = this.review(t, user, body);
    if (review !== undefined) {
      sendJson(res, 201, review);
      return;
    }
    const warnings = this.handlers.fieldValidation(t, body, q);
    const created = this.cluster.create(t, ns, body, { dryRun, fieldManager });
    sendJson(res, 201, created, warningHeaders(warnings));
  }

  /** The answer to a self-subject access/rules review or a self-subject review; undefined for other kinds. */
  private review(t: ResourceType, user: UserInfo, body: unknown): unknown {
    if (t.group === 'authorization.k8s.io' && t.plural === 'selfsubjectaccessreviews')
      return accessReview(this.cluster, user, body);
    if (t.group === 'authentication.k8s.io' && t.plural === 'selfsubjectreviews') return selfSubjectReview(user);
    if (t.group === 'authorization.k8s.io' && t.plural === 'selfsubjectrulesreviews')
      return selfSubjectRulesReview(this.cluster, user, body);
    return undefined;
  }

  private servePut(r: ResourceRequest): void {
    const { t, ns, name } = r.route;
    if (!name) throw methodNotAllowed();
    const warnings = this.handlers.fieldValidation(t, r.body, r.q);
    const updated = this.cluster.update(t, ns, name, r.body, { dryRun: r.dryRun, fieldManager: r.fieldManager });
    sendJson(r.res, 200, updated, warningHeaders(warnings));
  }

  /** PATCH: 201 when an apply patch created the object, 200 otherwise. */
  private servePatch(r: ResourceRequest): void {
    const { t, ns, name } = r.route;
    if (!name) throw methodNotAllowed();
    const before = this.cluster.peek(t, ns, name);
    const out = this.handlers.patch(t, ns, name, r.contentType, r.body, r.q, r.fieldManager, undefined);
    sendJson(r.res, before ? 200 : 201, out);
  }

  /** DELETE of one object (object or Success Status, 202 when it stays on request) or of a collection. */
  private serveDelete(r: ResourceRequest): void {
    const { res, body, q, route, dryRun } = r;
    const { t, ns, name } = route;
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
    if (!name) {
      this.serveDeleteCollection(r, del);
      return;
    }
    const out = this.cluster.delete(t, ns, name, del);
    // generic registry Store.Delete: the object when it stays (finalizers) or the store sets ReturnDeletedObject
    // (pods, namespaces, serviceaccounts); a Success Status otherwise, custom resources included
    // handlers.DeleteResource answers 202 only when the object stays and the client asked OrphanDependents=false
    const accepted = !out.deleted && orphan === false;
    if (
      !out.deleted ||
      (t.group === '' && (t.plural === 'pods' || t.plural === 'namespaces' || t.plural === 'serviceaccounts'))
    ) {
      sendJson(res, accepted ? 202 : 200, out.object);
      return;
    }
    const details: Record<string, unknown> = { name, kind: t.plural, uid: out.object.metadata?.uid };
    if (t.group) details['group'] = t.group;
    sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
  }

  /** DELETE of every selected object; those already gone meanwhile are skipped. */
  private serveDeleteCollection(r: ResourceRequest, del: Parameters<Cluster['delete']>[3]): void {
    const { t, ns } = r.route;
    if (!t.verbs.includes('deletecollection')) throw methodNotAllowed();
    const list = this.cluster.list(t, ns, selectorsOf(t, r.q));
    const items: KubeObject[] = [];
    for (const o of list['items'] as KubeObject[]) {
      try {
        items.push(this.cluster.delete(t, o.metadata?.namespace, o.metadata?.name ?? '', del).object);
      } catch (e) {
        if (!(e instanceof ApiError && e.httpCode === 404)) throw e;
      }
    }
    sendJson(r.res, 200, {
      kind: t.listKind,
      apiVersion: apiVersionOf(t.group, t.version),
      metadata: { resourceVersion: String(this.cluster.rv) },
      items,
    });
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
    if (!plural || extra.length) throw pageNotFound();
    const t = this.cluster.findType(group, version, plural);
    if (!t) throw pageNotFound();
    if (ns !== undefined && !t.namespaced) throw pageNotFound();
    if (t.namespaced && ns === undefined && name !== undefined) throw pageNotFound();
    return { t, ns, name, sub, watchPath };
  }

  /** `/apis` APIGroupList. */
  groupList(): ApiGroupList {
    return groupList(this.cluster);
  }

  /** `/api/v1` or `/apis/<g>/<v>` APIResourceList, or null when the group/version is not served. */
  resourceList(group: string, version: string): KubeObject | null {
    return resourceList(this.cluster, group, version);
  }
}

/** The `labelSelector` and `fieldSelector` of a list or delete-collection request. */
function selectorsOf(t: ResourceType, q: URLSearchParams): Parameters<Cluster['list']>[2] & object {
  const labelSel = q.get('labelSelector');
  const labels = labelSel ? parseLabelSelector(labelSel) : [];
  const fieldSel = q.get('fieldSelector');
  const fields = fieldSel ? parseFieldSelector(fieldSel, t.fields, t.kind) : [];
  return { labels, fields };
}
