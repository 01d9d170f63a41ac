/**
 * The kubelet of a rehearsal's virtual node for the CVO's payload-retrieval Pods (label
 * `k8s-app=retrieve-openshift-release`, bound to this node): it pulls the Pod's image as the node's CRI-O would —
 * through the node's `/etc/containers/registries.conf` mirrors (which the MCO renders from IDMS/ITMS/ICSP), its pull
 * secret `/var/lib/kubelet/config.json`, its `certs.d` registry CAs, its trust anchors and the proxy of
 * `/etc/mco/proxy.env` — then runs the init containers and containers in order against the node's directories
 * (container-exec.ts) and reports the Pod status as a kubelet does: `ErrImagePull` / `ImagePullBackOff` while the image
 * cannot be pulled, restarts on failure (`restartPolicy: OnFailure`), `Succeeded`, or `Failed` with `DeadlineExceeded`
 * once `activeDeadlineSeconds` passed. Only the Pods of that label are run; everything else stays with whoever
 * simulates ordinary pods.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, nullLogger, type KubeClient, type Logger } from '@keelson/kube';
import {
  insecureScopes,
  openPayload,
  parseRegistriesConf,
  writePayloadFiles,
  type OpenOptions,
  type ProxySettings,
} from '@keelson/release-payload';
import { RETRIEVE_POD_LABEL, type PodObject } from '../payload/pod-retrieval.js';
import { execContainer, type ContainerFs } from './container-exec.js';

/** Options of {@link startPayloadKubelet}. */
export interface PayloadKubeletOptions {
  client: KubeClient;
  nodeName: string;
  /** The node's root directory: hostPath volumes and the node's configuration files are under it. */
  root: string;
  log?: Logger;
  /** Divides `activeDeadlineSeconds` and the restart / pull back-off (the rehearsal's time scale). Default 1. */
  timeScale?: number;
  /**
   * The least wall time a scaled `activeDeadlineSeconds` allows (default 30 s): pulling and copying the payload is
   * real work, not simulated time, so a deadline scaled far below it (120 s at time scale 600 is 0.2 s) would fail
   * retrievals on a loaded machine that no real node would fail.
   */
  minDeadlineMs?: number;
}

/** A running virtual kubelet. */
export interface PayloadKubelet {
  /** Pods run so far (name → final phase). */
  readonly finished: ReadonlyMap<string, string>;
  stop(): Promise<void>;
}

interface Container {
  name: string;
  image?: string;
  command?: string[];
  workingDir?: string;
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  activeDeadlineSeconds?: number;
  restartPolicy?: string;
  initContainers?: Container[];
  containers?: Container[];
  volumes?: { name: string; hostPath?: { path: string; type?: string } }[];
}
type State =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: { exitCode: number; reason: string; startedAt?: string; finishedAt: string; message?: string } };

/** The kubelet status manager's `syncPeriod`: a failed status write is retried after it. */
export const STATUS_SYNC_PERIOD_MS = 10_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

async function exists(path: string): Promise<boolean> {
  return readdir(path).then(
    () => true,
    () =>
      readFile(path).then(
        () => true,
        () => false,
      ),
  );
}

function parseProxyEnv(text: string): ProxySettings | undefined {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_]+)=["']?([^"'\n]*)["']?\s*$/.exec(line);
    if (m) env[(m[1] ?? '').toUpperCase()] = m[2] ?? '';
  }
  const p: ProxySettings = {};
  if (env['HTTP_PROXY']) p.httpProxy = env['HTTP_PROXY'];
  if (env['HTTPS_PROXY']) p.httpsProxy = env['HTTPS_PROXY'];
  if (env['NO_PROXY']) p.noProxy = env['NO_PROXY'];
  return p.httpProxy || p.httpsProxy ? p : undefined;
}

/** How the node's container runtime pulls: its mirrors, pull secret, registry CAs, trust anchors and proxy. */
export async function nodePullOptions(root: string): Promise<Partial<OpenOptions>> {
  const o: Partial<OpenOptions> = {
    certsDirs: [join(root, 'etc/containers/certs.d'), join(root, 'etc/docker/certs.d')],
    cacheDir: join(root, 'var/lib/containers/keelson-blobs'),
  };
  const conf = join(root, 'etc/containers/registries.conf');
  const text = await readFile(conf, 'utf8').catch(() => undefined);
  if (text !== undefined) {
    o.mirrors = parseRegistriesConf(text, '/etc/containers/registries.conf');
    const insecure = insecureScopes(o.mirrors);
    if (insecure.length > 0) o.insecureRegistries = insecure;
  }
  const auth = join(root, 'var/lib/kubelet/config.json');
  if (await exists(auth)) o.authFile = auth;
  const anchors = join(root, 'etc/pki/ca-trust/source/anchors');
  const pems = await Promise.all(
    (await readdir(anchors).catch(() => [] as string[])).sort().map((n) => readFile(join(anchors, n), 'utf8')),
  );
  if (pems.length > 0) o.trustedCA = pems.join('\n');
  const proxy = parseProxyEnv(await readFile(join(root, 'etc/mco/proxy.env'), 'utf8').catch(() => ''));
  if (proxy) o.proxy = proxy;
  return o;
}

/** The message CRI-O gives for a failed pull (its "manifest unknown" text for a missing manifest). */
export function pullFailureMessage(image: string, e: Error): string {
  const missing = /\/manifests\/(\S+): HTTP 404/.exec(e.message);
  const at = image.lastIndexOf('@');
  const repo = at > 0 ? image.slice(0, at) : image;
  const desc = missing ? `reading manifest ${missing[1] ?? ''} in ${repo}: manifest unknown` : e.message;
  return `rpc error: code = Unknown desc = ${desc}`;
}

/** One Pod's run (status bookkeeping + the containers). */
class PodRun {
  private readonly startTime = now();
  private readonly init: { name: string; restartCount: number; state: State }[];
  private readonly main: { name: string; restartCount: number; state: State }[];
  private phase = 'Pending';
  private reason: string | undefined;
  private message: string | undefined;
  readonly abort = new AbortController();

  constructor(
    private readonly k: { o: PayloadKubeletOptions; log: Logger; scale: number; stopped: AbortSignal },
    private readonly pod: PodObject,
    private readonly spec: PodSpec,
  ) {
    const waiting = (reason: string): State => ({ waiting: { reason } });
    this.init = (spec.initContainers ?? []).map((c) => ({
      name: c.name,
      restartCount: 0,
      state: waiting('PodInitializing'),
    }));
    this.main = (spec.containers ?? []).map((c) => ({
      name: c.name,
      restartCount: 0,
      state: waiting('PodInitializing'),
    }));
  }

  private get path(): string {
    return `/api/v1/namespaces/${this.pod.metadata?.namespace ?? ''}/pods/${this.pod.metadata?.name ?? ''}`;
  }

  private cond(type: string, ok: boolean, reason?: string): Record<string, unknown> {
    return {
      type,
      status: ok ? 'True' : 'False',
      lastProbeTime: null,
      lastTransitionTime: now(),
      ...(reason ? { reason } : {}),
    };
  }

  /** Writes the status (PUT of the status subresource with the object read back). */
  async write(): Promise<void> {
    const image = (c: string): string =>
      [...(this.spec.initContainers ?? []), ...(this.spec.containers ?? [])].find((x) => x.name === c)?.image ?? '';
    const statuses = (list: typeof this.init, init: boolean): unknown[] =>
      list.map((c) => ({
        name: c.name,
        image: image(c.name),
        imageID: '',
        ready: !init && 'running' in c.state,
        started: 'running' in c.state,
        restartCount: c.restartCount,
        state: c.state,
      }));
    const initialized = this.init.every((c) => 'terminated' in c.state && c.state.terminated.exitCode === 0);
    const running = this.phase === 'Running';
    const status = {
      phase: this.phase,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.message ? { message: this.message } : {}),
      startTime: this.startTime,
      hostIP: '10.0.0.1',
      qosClass: 'Burstable',
      conditions: [
        this.cond('Initialized', initialized, initialized ? undefined : 'ContainersNotInitialized'),
        this.cond(
          'Ready',
          running,
          running ? undefined : this.phase === 'Succeeded' ? 'PodCompleted' : 'ContainersNotReady',
        ),
        this.cond('ContainersReady', running, running ? undefined : 'ContainersNotReady'),
        this.cond('PodScheduled', true),
      ],
      initContainerStatuses: statuses(this.init, true),
      containerStatuses: statuses(this.main, false),
    };
    await this.putStatus(status);
  }

  /**
   * The kubelet's status manager keeps a status it could not write and writes it again at its next sync (every
   * {@link STATUS_SYNC_PERIOD_MS}, scaled) until the API server takes it, the Pod is gone or the run is aborted: a
   * lost `Succeeded` would leave the CVO waiting for a Pod that is done.
   */
  private async putStatus(status: Record<string, unknown>): Promise<void> {
    for (let attempt = 1; !this.k.stopped.aborted; attempt++) {
      try {
        const cur = await this.k.o.client.request<PodObject>('GET', this.path);
        await this.k.o.client.request('PUT', `${this.path}/status`, { body: { ...cur, status } });
        return;
      } catch (e) {
        if (isNotFound(e)) return;
        this.k.log.warn('pod status write failed; retrying at the next status sync', {
          pod: this.pod.metadata?.name,
          attempt,
          error: (e as Error).message,
        });
        await abortableDelay(STATUS_SYNC_PERIOD_MS / this.k.scale, this.k.stopped);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(r, ms / this.k.scale);
      this.abort.signal.addEventListener('abort', () => {
        clearTimeout(t);
        r();
      });
    });
  }

  /** Pulls the image (retrying with back-off as the kubelet does) and lays out its files; undefined when aborted. */
  private async pull(image: string, dir: string): Promise<string | undefined> {
    for (let attempt = 0; !this.abort.signal.aborted; attempt++) {
      try {
        const payload = await openPayload(image.includes('://') ? image : `docker://${image}`, {
          ...(await nodePullOptions(this.k.o.root)),
          releaseImage: image,
        });
        await rm(dir, { recursive: true, force: true });
        await writePayloadFiles(payload.files, dir);
        return dir;
      } catch (e) {
        const first = this.init[0] ?? this.main[0];
        if (first)
          first.state = { waiting: { reason: 'ErrImagePull', message: pullFailureMessage(image, e as Error) } };
        await this.write();
        await this.sleep(Math.min(300_000, 10_000 * 2 ** attempt));
        if (first && this.abort.signal.aborted) return undefined;
        if (first)
          first.state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } };
      }
    }
    return undefined;
  }

  private fsFor(c: Container, imageRoot: string): ContainerFs {
    const mounts = (c.volumeMounts ?? []).flatMap((m) => {
      const v = (this.spec.volumes ?? []).find((x) => x.name === m.name);
      return v?.hostPath ? [{ mountPath: m.mountPath, dir: join(this.k.o.root, v.hostPath.path) }] : [];
    });
    return { imageRoot, mounts };
  }

  /** Runs one container until it succeeds (restarting it on failure, as OnFailure does); false when aborted. */
  private async runContainer(c: Container, slot: (typeof this.init)[number], imageRoot: string): Promise<boolean> {
    for (;;) {
      if (this.abort.signal.aborted) return false;
      const startedAt = now();
      slot.state = { running: { startedAt } };
      await this.write();
      const r = await execContainer(this.fsFor(c, imageRoot), c.command ?? [], c.workingDir ?? '/');
      const ok = r.exitCode === 0;
      slot.state = {
        terminated: { exitCode: r.exitCode, reason: ok ? 'Completed' : 'Error', startedAt, finishedAt: now() },
      };
      if (!ok)
        this.k.log.warn('container failed', { pod: this.pod.metadata?.name, container: c.name, stderr: r.stderr });
      if (ok) return true;
      if (this.spec.restartPolicy === 'Never') return false;
      slot.restartCount++;
      await this.write();
      await this.sleep(10_000 * Math.min(30, 2 ** (slot.restartCount - 1)));
    }
  }

  /** The whole Pod; resolves with its final phase. */
  async run(): Promise<string> {
    const deadline = this.spec.activeDeadlineSeconds;
    const timer =
      deadline !== undefined
        ? setTimeout(
            () => {
              this.abort.abort();
            },
            Math.max((deadline * 1000) / this.k.scale, Math.min(deadline * 1000, this.k.o.minDeadlineMs ?? 30_000)),
          )
        : undefined;
    try {
      await this.write();
      const image = this.spec.initContainers?.[0]?.image ?? this.spec.containers?.[0]?.image ?? '';
      const key = createHash('sha256').update(image).digest('hex').slice(0, 16);
      const imageRoot = join(
        this.k.o.root,
        'var/lib/containers/keelson-rootfs',
        `${this.pod.metadata?.name ?? ''}-${key}`,
      );
      await mkdir(join(imageRoot, '..'), { recursive: true });
      const ready = await this.pull(image, imageRoot);
      // an unset hostPath type (or DirectoryOrCreate) gets a missing directory created, as CRI-O does for bind mounts
      for (const v of this.spec.volumes ?? [])
        if (v.hostPath && ['', 'DirectoryOrCreate'].includes(v.hostPath.type ?? ''))
          await mkdir(join(this.k.o.root, v.hostPath.path), { recursive: true });
      let ok = ready !== undefined;
      for (const [i, c] of (this.spec.initContainers ?? []).entries())
        if (ok)
          ok = await this.runContainer(
            c,
            this.init[i] ?? { name: c.name, restartCount: 0, state: { waiting: { reason: '' } } },
            imageRoot,
          );
      if (ok) {
        this.phase = 'Running';
        for (const [i, c] of (this.spec.containers ?? []).entries())
          if (ok)
            ok = await this.runContainer(
              c,
              this.main[i] ?? { name: c.name, restartCount: 0, state: { waiting: { reason: '' } } },
              imageRoot,
            );
      }
      await rm(imageRoot, { recursive: true, force: true });
      if (ok) this.phase = 'Succeeded';
      else {
        this.phase = 'Failed';
        if (this.abort.signal.aborted && deadline !== undefined) {
          this.reason = 'DeadlineExceeded';
          this.message = 'Pod was active on the node longer than the specified deadline';
        }
      }
      await this.write();
      return this.phase;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

/** Starts the virtual kubelet for `nodeName`: list + watch of its retrieval Pods, each run once. */
export async function startPayloadKubelet(o: PayloadKubeletOptions): Promise<PayloadKubelet> {
  const log = o.log ?? nullLogger;
  const stop = new AbortController();
  const k = { o, log, scale: o.timeScale ?? 1, stopped: stop.signal };
  const seen = new Set<string>();
  const finished = new Map<string, string>();
  const runs = new Map<string, PodRun>();
  const pending = new Set<Promise<unknown>>();
  const path = '/api/v1/pods';
  const query = {
    fieldSelector: `spec.nodeName=${o.nodeName}`,
    labelSelector: `${RETRIEVE_POD_LABEL.key}=${RETRIEVE_POD_LABEL.value}`,
  };
  const consider = (p: PodObject): void => {
    const uid = p.metadata?.uid ?? '';
    const phase = p.status?.phase;
    if (seen.has(uid) || p.metadata?.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') return;
    seen.add(uid);
    const run = new PodRun(k, p, p.spec ?? {});
    runs.set(uid, run);
    const done = run
      .run()
      .then((phase) => finished.set(p.metadata?.name ?? '', phase))
      .catch((e: unknown) => {
        log.error('virtual kubelet pod run failed', { pod: p.metadata?.name, error: (e as Error).message });
      })
      .finally(() => {
        runs.delete(uid);
        pending.delete(done);
      });
    pending.add(done);
  };
  let listed: () => void = () => undefined;
  const firstList = new Promise<void>((r) => {
    listed = r;
  });
  const loop = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        const list = await o.client.request<{ items?: PodObject[]; metadata?: { resourceVersion?: string } }>(
          'GET',
          path,
          {
            query,
            signal: stop.signal,
          },
        );
        for (const p of list.items ?? []) consider(p);
        listed();
        await o.client.watch<PodObject>(
          path,
          { ...query, resourceVersion: list.metadata?.resourceVersion },
          (ev) => {
            if (ev.type === 'ADDED' || ev.type === 'MODIFIED') consider(ev.object);
            if (ev.type === 'DELETED') runs.get(ev.object.metadata?.uid ?? '')?.abort.abort();
          },
          stop.signal,
        );
      } catch (e) {
        if (stop.signal.aborted) return;
        log.warn('virtual kubelet watch ended; relisting', { error: (e as Error).message });
        listed(); // started, if not yet: the next list is retried in the background
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const looping = loop();
  await firstList;
  return {
    finished,
    stop: async () => {
      stop.abort();
      for (const r of runs.values()) r.abort.abort();
      await looping;
      await Promise.allSettled([...pending]);
    },
  };
}
