/** `startSandbox`: wires the cluster, strategies, controllers and HTTP(S) server together. */
import { matchLabelRequirements, type OpenShiftKind } from '@keelson/api';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { applyPatch } from './apply.js';
import { makeAuthenticator, type StaticTokenUser } from './authn.js';
import { Cluster } from './cluster.js';
import { computePdb, Controllers } from './controllers.js';
import { installStrategies } from './strategies/index.js';
import { ensureSystemPriorityClasses } from './priorityclass.js';
import { prune } from './crd.js';
import { ApiError, badRequest, invalid, methodNotAllowed, notFound, SandboxError } from './errors.js';
import { ApiHttp, type Handlers } from './http.js';
import { buildKubeconfig, kubeconfigYaml, writeKubeconfig, type Kubeconfig } from './kubeconfig.js';
import { buildOpenApiV2, buildOpenApiV3, openApiV3Paths } from './openapi.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { requirementsFromSelector, selectorString } from './selectors.js';
import {
  startOperatorSimulator,
  type OperatorSimulator,
  type OperatorSimulatorOptions,
} from './simulators/operator-simulator.js';
import { installOpenShiftCrds } from './openshift.js';
import { ClusterRoleAggregator, ensureBootstrapPolicy } from './rbac-bootstrap.js';
import { ServiceAccountTokens } from './sa-token.js';
import { generateTls, type TlsMaterial } from './tls.js';
import {
  addReviewTypes,
  listenOn,
  nodeReadySetter,
  settleCluster,
  setupPersistence,
  trackSockets,
} from './sandbox-setup.js';
import { apiVersionOf, type JsonObject, type KubeObject, type ResourceType } from './types.js';
import { clone, isObject, must } from './util.js';

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** TCP port on 127.0.0.1 (0 = any free port). */
  port?: number;
  /** Serve HTTPS with a generated CA (needs `openssl`); default false (plain HTTP). */
  tls?: boolean;
  /** Bearer token of the admin identity (user `keelson-admin`, group `system:masters`); random when omitted. */
  token?: string;
  /** More bearer tokens and their users, as kube-apiserver's `--token-auth-file` (authorized by RBAC). */
  staticTokens?: readonly StaticTokenUser[];
  /** Run the pod simulator (Deployments/ReplicaSets/DaemonSets get pods that become ready on ready nodes). */
  simulatePods?: boolean;
  /** Watch history length (events); older resourceVersions get 410 Gone. Default 10000. */
  historySize?: number;
  /** Interval of watch bookmarks in ms (default 10000). */
  bookmarkIntervalMs?: number;
  /**
   * Directory for durable state: a JSON snapshot plus a write-ahead log flushed before every write is acknowledged
   * (so acknowledged writes survive kill -9), loaded at start (both read as streams of lines) and compacted at start,
   * when the log grows (records or bytes), on stop and by `saveSnapshot()`.
   */
  persistDir?: string;
  /** Write-ahead log records after which it is compacted into the snapshot (default 5000). */
  walCompactRecords?: number;
  /** Write-ahead log size in bytes from which it is compacted, unless the snapshot is larger (default 64 MiB). */
  walCompactBytes?: number;
  /** Nodes to create at start (Ready). */
  nodes?: string[];
  /**
   * Run the SIMULATOR of cluster operators in-process, as an API client of this sandbox (`true` for the
   * defaults). It waits for Deployment rollouts only when `simulatePods` is on, unless told otherwise.
   */
  simulateOperators?: boolean | Omit<OperatorSimulatorOptions, 'kubeconfig' | 'client'>;
  /**
   * Serve the upstream OpenShift CRDs shipped in @keelson/api from the start: `true` for all of them, or the kinds
   * to install (e.g. `['ClusterOperator', 'MachineConfigPool']`). See also {@link installOpenShiftCrds}.
   */
  openshiftCrds?: boolean | readonly OpenShiftKind[];
}

/** A running sandbox API server. */
export interface Sandbox {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Bearer token accepted for the admin identity. */
  readonly token: string;
  /**
   * Mints a token for an existing ServiceAccount (user `system:serviceaccount:<ns>:<name>`), as its TokenRequest
   * subresource does; 404 ApiError when the ServiceAccount does not exist.
   */
  serviceAccountToken(namespace: string, name: string, opts?: { expirationSeconds?: number }): string;
  /** A kubeconfig (YAML) that authenticates as the ServiceAccount with a freshly minted token. */
  serviceAccountKubeconfig(namespace: string, name: string, opts?: { expirationSeconds?: number }): string;
  /** Kubeconfig document for this sandbox (token auth; client certificate too when TLS is on). */
  readonly kubeconfig: Kubeconfig;
  /** PEM CA certificate when TLS is on. */
  readonly caCert: string | undefined;
  /** The in-memory cluster (direct access for tests and controllers). */
  readonly cluster: Cluster;
  /** Writes the kubeconfig to a file (mode 0600) and returns its path. */
  writeKubeconfig(path: string): Promise<string>;
  /** The kubeconfig as YAML. */
  kubeconfigYaml(): string;
  /** Creates or updates a Node with a Ready condition. */
  setNodeReady(name: string, ready: boolean, labels?: Record<string, string>): KubeObject;
  /** Forgets watch history so that resuming any current watch position yields 410 Gone. */
  compactHistory(): void;
  /** Closes every open watch stream (clients must re-watch). */
  closeWatches(): void;
  /** Waits until controllers have settled (no pending pass). */
  settle(): Promise<void>;
  /** Compacts the write-ahead log into the JSON snapshot now (needs `persistDir`). */
  saveSnapshot(): Promise<void>;
  /** The in-process cluster-operator simulator, when `simulateOperators` was given. */
  readonly operatorSimulator: OperatorSimulator | undefined;
  /** Stops serving (closes watches and connections) and saves the snapshot when persistence is on. */
  stop(): Promise<void>;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Starts an embedded Kubernetes API server on 127.0.0.1. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const token = opts.token ?? randomBytes(24).toString('hex');
  const cluster = new Cluster(opts.historySize !== undefined ? { historySize: opts.historySize } : {});
  installStrategies(cluster);
  const controllers = new Controllers(cluster, { simulatePods: opts.simulatePods ?? false });
  let tls: TlsMaterial | undefined;
  if (opts.tls) tls = await generateTls();
  controllers.caBundle = tls?.caCert ?? '';

  const { restored, wal, compactNow } = setupPersistence(cluster, opts);
  const nsType = must(cluster.findType('', 'v1', 'namespaces'), 'built-in type v1/namespaces');
  if (!restored) for (const ns of DEFAULT_NAMESPACES) cluster.create(nsType, undefined, { metadata: { name: ns } });
  ensureSystemPriorityClasses(cluster);
  if (opts.openshiftCrds)
    await installOpenShiftCrds(cluster, opts.openshiftCrds === true ? undefined : opts.openshiftCrds);

  ensureBootstrapPolicy(cluster);
  const aggregator = new ClusterRoleAggregator(cluster);
  const serviceAccounts = new ServiceAccountTokens(cluster);
  must(cluster.findType('', 'v1', 'serviceaccounts'), 'built-in type v1/serviceaccounts').subresources.push('token');
  addReviewTypes(cluster);
  const authenticate = makeAuthenticator({
    adminToken: token,
    tls: tls !== undefined,
    serviceAccounts,
    ...(opts.staticTokens ? { staticTokens: opts.staticTokens } : {}),
  });

  let hostPort = '127.0.0.1:0';
  const handlers = makeHandlers(cluster, serviceAccounts);
  const api = new ApiHttp(cluster, handlers, authenticate, () => hostPort);
  if (opts.bookmarkIntervalMs !== undefined) api.bookmarkIntervalMs = opts.bookmarkIntervalMs;
  const { server, httpsServer } = createApiServer(api, tls);
  await listenOn(server, opts.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  hostPort = `127.0.0.1:${port}`;
  const url = `${tls ? 'https' : 'http'}://${hostPort}`;
  const kubeconfig = adminKubeconfig(url, token, tls);
  const setNodeReady = nodeReadySetter(cluster);
  for (const n of opts.nodes ?? []) setNodeReady(n, true);
  controllers.kick();
  await new Promise((r) => setImmediate(r));
  cluster.markWatchCacheStart();

  const saveSnapshot = async (): Promise<void> => {
    if (!wal) throw new SandboxError('NO_PERSIST_DIR', 'saveSnapshot needs the persistDir option');
    await Promise.resolve();
    compactNow();
  };

  let stopped = false;
  const sockets = trackSockets(server, httpsServer);

  const settle = (): Promise<void> => settleCluster(cluster, controllers);

  const operatorSimulator = await startSimulatorIfAsked(opts, kubeconfig);

  const serviceAccountToken = (namespace: string, name: string, o: { expirationSeconds?: number } = {}): string =>
    serviceAccounts.mint(namespace, name, o).token;
  const serviceAccountKubeconfig = (namespace: string, name: string, o: { expirationSeconds?: number } = {}): string =>
    serviceAccountKubeconfigYaml(url, tls, namespace, serviceAccountToken(namespace, name, o));

  return {
    url,
    token,
    serviceAccountToken,
    serviceAccountKubeconfig,
    kubeconfig,
    operatorSimulator,
    caCert: tls?.caCert,
    cluster,
    writeKubeconfig: (path) => writeKubeconfig(kubeconfig, path),
    kubeconfigYaml: () => kubeconfigYaml(kubeconfig),
    setNodeReady,
    compactHistory: () => {
      cluster.compact();
    },
    closeWatches: () => {
      cluster.closeAllWatches();
    },
    settle,
    saveSnapshot,
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      await operatorSimulator?.stop();
      // stop accepting requests first, so that no write lands after the final snapshot
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        for (const s of sockets) s.destroy();
      });
      controllers.stop();
      aggregator.stop();
      cluster.closeAllWatches();
      await closed;
      if (wal) {
        compactNow();
        wal.close();
      }
    },
  };
}

/** The operator simulator when `simulateOperators` asks for one, talking to the sandbox as admin. */
async function startSimulatorIfAsked(
  opts: SandboxOptions,
  kubeconfig: Kubeconfig,
): Promise<OperatorSimulator | undefined> {
  if (opts.simulateOperators === undefined || opts.simulateOperators === false) return undefined;
  const simOpts = opts.simulateOperators === true ? {} : opts.simulateOperators;
  return startOperatorSimulator({
    waitForDeployments: opts.simulatePods ?? false,
    ...simOpts,
    kubeconfig: kubeconfigYaml(kubeconfig),
  });
}

/** The HTTP server of the API, HTTPS (client certificates requested, not required) when TLS material is given. */
function createApiServer(
  api: ApiHttp,
  tls: TlsMaterial | undefined,
): { server: Server | HttpsServer; httpsServer: HttpsServer | undefined } {
  const httpsServer = tls
    ? createHttpsServer(
        { key: tls.serverKey, cert: tls.serverCert, ca: tls.caCert, requestCert: true, rejectUnauthorized: false },
        api.listener,
      )
    : undefined;
  const server: Server | HttpsServer = httpsServer ?? createServer(api.listener);
  server.keepAliveTimeout = 30_000;
  return { server, httpsServer };
}

/** The admin kubeconfig: bearer token, plus the CA and client certificate under TLS. */
function adminKubeconfig(url: string, token: string, tls: TlsMaterial | undefined): Kubeconfig {
  const kcOpts: Parameters<typeof buildKubeconfig>[0] = { server: url, token };
  if (tls) {
    kcOpts.caCert = tls.caCert;
    kcOpts.clientCert = tls.clientCert;
    kcOpts.clientKey = tls.clientKey;
  }
  return buildKubeconfig(kcOpts);
}

/** A kubeconfig (YAML) authenticating as a service account with a minted token. */
function serviceAccountKubeconfigYaml(
  url: string,
  tls: TlsMaterial | undefined,
  namespace: string,
  token: string,
): string {
  const sa: Parameters<typeof buildKubeconfig>[0] = { server: url, token, namespace };
  if (tls) sa.caCert = tls.caCert;
  return kubeconfigYaml(buildKubeconfig(sa));
}

/** Unknown-field handling for fieldValidation=Strict|Warn (custom resources). */
function unknownFields(t: ResourceType, obj: unknown): string[] {
  if (!t.crd?.schema || !isObject(obj)) return [];
  return prune(clone(obj), t.crd.schema);
}

function makeHandlers(cluster: Cluster, serviceAccounts: ServiceAccountTokens): Handlers {
  return {
    patch(t, ns, name, contentType, body, q, fieldManager, subresource) {
      const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
      const dryRun = q.getAll('dryRun').includes('All');
      const opts: { dryRun: boolean; fieldManager: string; subresource?: string } = { dryRun, fieldManager };
      if (subresource) opts.subresource = subresource;
      if (
        media === 'application/apply-patch+yaml' ||
        media === 'application/apply-patch+json' ||
        media === 'application/apply-patch+cbor'
      ) {
        if (!q.get('fieldManager'))
          throw badRequest(
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
          );
        return applyPatch(cluster, t, ns, name, body, { ...opts, force: q.get('force') === 'true' });
      }
      const existing = cluster.peek(t, ns, name);
      if (!existing) throw notFound({ group: t.group, resource: t.plural }, name);
      const base = cluster.view(t, existing);
      let patched: unknown;
      if (media === 'application/merge-patch+json') patched = mergePatch(base, body);
      else if (media === 'application/json-patch+json') patched = jsonPatch(base, body);
      else if (media === 'application/strategic-merge-patch+json') {
        if (t.crd)
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
          );
        patched = strategicMergePatch(base, body, (p) => t.lists[p.replace(/\[\]$/, '')] ?? t.lists[p]);
      } else
        throw new ApiError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${t.crd ? '' : ', application/strategic-merge-patch+json'}`,
        );
      strictFields(t, patched, q);
      if (!isObject(patched)) throw badRequest('the patch produced a non-object');
      const md = (isObject(patched['metadata']) ? patched['metadata'] : {}) as JsonObject;
      if (md['resourceVersion'] !== undefined && md['resourceVersion'] !== existing.metadata?.resourceVersion)
        throw new ApiError(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${t.group ? `${t.plural}.${t.group}` : t.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          { name, ...(t.group ? { group: t.group } : {}), kind: t.plural },
        );
      return cluster.applyUpdate(t, existing, clone(patched as KubeObject), opts);
    },
    subresource(t, ns, name, sub, method, body, q) {
      const dryRun = q.getAll('dryRun').includes('All');
      if (sub === 'eviction' && t.group === '' && t.plural === 'pods') {
        if (method !== 'POST') throw methodNotAllowed();
        return evict(cluster, t, ns, name, body, dryRun);
      }
      if (sub === 'scale') return scale(cluster, t, ns, name, method, body, q, dryRun);
      if (sub === 'token' && t.group === '' && t.plural === 'serviceaccounts') {
        if (method !== 'POST') throw methodNotAllowed();
        return serviceAccounts.tokenRequest(ns ?? '', name, body);
      }
      if (sub === 'finalize' && t.plural === 'namespaces') {
        if (method !== 'PUT') throw methodNotAllowed();
        const old = cluster.peek(t, undefined, name);
        if (!old) throw notFound({ group: '', resource: 'namespaces' }, name);
        const next = clone(old);
        next['spec'] = {
          ...(isObject(next['spec']) ? next['spec'] : {}),
          finalizers: (isObject(body) && isObject(body['spec']) ? body['spec']['finalizers'] : []) ?? [],
        };
        return { code: 200, body: cluster.applyUpdate(t, old, next, { dryRun, subresource: 'finalize' }) };
      }
      return null;
    },
    openapi(path) {
      if (path === '/openapi/v2') return buildOpenApiV2(cluster);
      if (path === '/openapi/v3') return openApiV3Paths(cluster);
      const m = /^\/openapi\/v3\/(apis\/[^/]+\/[^/]+|api\/v1)$/.exec(path);
      if (m) return buildOpenApiV3(cluster, m[1] ?? '');
      return undefined;
    },
    fieldValidation(t, obj, q) {
      return strictFields(t, obj, q);
    },
  };
}

function strictFields(t: ResourceType, obj: unknown, q: URLSearchParams): string[] {
  const mode = q.get('fieldValidation') ?? 'Warn';
  if (mode === 'Ignore') return [];
  const unknown = unknownFields(t, obj);
  if (unknown.length === 0) return [];
  if (mode === 'Strict') {
    const msg =
      unknown.length === 1
        ? `strict decoding error: unknown field "${unknown[0] ?? ''}"`
        : `strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`;
    throw badRequest(msg);
  }
  return unknown.map((u) => `unknown field "${u}"`);
}

function evict(
  cluster: Cluster,
  podType: ResourceType,
  ns: string | undefined,
  name: string,
  body: unknown,
  dryRun: boolean,
): { code: number; body: unknown } {
  const pod = cluster.peek(podType, ns, name);
  if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
  const phase = (pod['status'] as JsonObject | undefined)?.['phase'];
  const pdbType = must(
    cluster.findType('policy', 'v1', 'poddisruptionbudgets'),
    'built-in type policy/v1/poddisruptionbudgets',
  );
  if (!pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') {
    const pdbs = cluster.peekAll(pdbType, ns).filter((pdb) => {
      const reqs = requirementsFromSelector((pdb['spec'] as JsonObject | undefined)?.['selector']);
      return reqs && reqs.length > 0 && matchLabelRequirements(reqs, pod.metadata?.labels);
    });
    if (pdbs.length > 1)
      throw new ApiError(
        500,
        'InternalError',
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    const pdb = pdbs[0];
    if (pdb) {
      const s = computePdb(cluster, pdb);
      if (s.allowed <= 0)
        throw new ApiError(
          429,
          'TooManyRequests',
          "Cannot evict pod as it would violate the pod's disruption budget.",
          {
            causes: [
              {
                reason: 'DisruptionBudget',
                message: `The disruption budget ${pdb.metadata?.name ?? ''} needs ${s.desired} healthy pods and has ${s.current} currently`,
              },
            ],
          },
        );
    }
  }
  const delOpts = isObject(body) && isObject(body['deleteOptions']) ? body['deleteOptions'] : {};
  const o: Parameters<Cluster['delete']>[3] = { dryRun };
  if (isObject(delOpts['preconditions'])) o.preconditions = delOpts['preconditions'];
  cluster.delete(podType, ns, name, o);
  return { code: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}

function scale(
  cluster: Cluster,
  t: ResourceType,
  ns: string | undefined,
  name: string,
  method: string,
  body: unknown,
  q: URLSearchParams,
  dryRun: boolean,
): { code: number; body: unknown } {
  const obj = cluster.peek(t, ns, name);
  if (!obj) throw notFound({ group: t.group, resource: t.plural }, name);
  const specPath = t.crd?.scale?.specReplicasPath ?? '.spec.replicas';
  const statusPath = t.crd?.scale?.statusReplicasPath ?? '.status.replicas';
  const selPath = t.crd?.scale?.labelSelectorPath;
  const read = (o: unknown, p: string): unknown =>
    p
      .split('.')
      .filter((s) => s)
      .reduce<unknown>((a, k) => (isObject(a) ? a[k] : undefined), o);
  const toScale = (o: KubeObject): KubeObject => {
    const md = o.metadata ?? {};
    const reqs = requirementsFromSelector((o['spec'] as JsonObject | undefined)?.['selector']);
    const status: JsonObject = { replicas: Number(read(o, statusPath) ?? 0) };
    const sel = selPath ? read(o, selPath) : reqs ? selectorString(reqs) : undefined;
    if (typeof sel === 'string' && sel) status['selector'] = sel;
    const meta: JsonObject = {
      name: md.name,
      uid: md.uid,
      resourceVersion: md.resourceVersion,
      creationTimestamp: md.creationTimestamp,
    };
    if (md.namespace) meta['namespace'] = md.namespace;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: meta,
      spec: { replicas: Number(read(o, specPath) ?? 0) },
      status,
    };
  };
  if (method === 'GET') return { code: 200, body: toScale(obj) };
  let desired: unknown;
  if (method === 'PUT') desired = isObject(body) && isObject(body['spec']) ? body['spec']['replicas'] : undefined;
  else if (method === 'PATCH') {
    const cur = toScale(obj);
    const patched = mergePatch(cur, body);
    desired = isObject(patched) && isObject(patched['spec']) ? patched['spec']['replicas'] : undefined;
    const rv = isObject(patched) && isObject(patched['metadata']) ? patched['metadata']['resourceVersion'] : undefined;
    if (rv !== undefined && rv !== obj.metadata?.resourceVersion)
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${t.group ? `${t.plural}.${t.group}` : t.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
  } else throw methodNotAllowed();
  if (method === 'PUT' && isObject(body) && isObject(body['metadata'])) {
    const rv = body['metadata']['resourceVersion'];
    if (typeof rv === 'string' && rv !== '' && rv !== obj.metadata?.resourceVersion)
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${t.group ? `${t.plural}.${t.group}` : t.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
  }
  if (typeof desired !== 'number' || !Number.isInteger(desired) || desired < 0)
    throw invalid('autoscaling', 'Scale', name, [
      {
        field: 'spec.replicas',
        type: 'FieldValueInvalid',
        value: desired,
        detail: 'must be greater than or equal to 0',
      },
    ]);
  const next = clone(obj);
  const segs = specPath.split('.').filter((s) => s);
  let cur: JsonObject = next;
  for (const s of segs.slice(0, -1)) cur = isObject(cur[s]) ? cur[s] : (cur[s] = {});
  cur[must(segs[segs.length - 1], `scale path ${specPath}`)] = desired;
  const updated = cluster.applyUpdate(t, obj, next, { dryRun, fieldManager: q.get('fieldManager') ?? 'kubectl-scale' });
  return { code: 200, body: toScale(updated) };
}

export { apiVersionOf };
