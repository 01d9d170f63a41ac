/**
 * The setup phase of a rehearsal (see ./run.ts): releases A and B (generated and published, or the user's), the
 * `--fault` targets checked against them, the update service, the API server (embedded, or `--kubeconfig`'s behind the
 * counting proxy), the installer's bootstrap objects and the observer; `--hold`'s HTTPS front.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  publishRehearsalReleases,
  startOciRegistry,
  type OciRegistry,
  type PublishedReleases,
} from './release/index.js';
import { KubeClient } from '@keelson/kube';
import {
  buildKubeconfig,
  clusterCABundleObjects,
  kubeconfigYaml,
  operatorSimulatorManifests,
  startSandbox,
  type KubeObject,
} from '@keelson/kube-sandbox';
import { openPayload } from '@keelson/release-payload';
import { startApiProxy, type ApiProxy } from './api-proxy.js';
import { startTlsFront } from './tls-front.js';
import { planCleanup, refOf, releaseObjects, runCleanup, type ObjectRef } from './cleanup.js';
import { checkEmpty, checkRights, CREDENTIALS_REFRESH_MS, openTarget, type TargetCluster } from './target.js';
import { machineConfigManifestsDir, type ComponentContext } from './components.js';
import { clusterConfigObjects } from './cluster-config-install.js';
import { ADMIN_ACK_RELEASES, checkAdminAckReleases } from './admin-ack.js';
import { rehearsalTargets, validateFaultTargets } from './fault-targets.js';
import { startObserver, type Observer } from './observer.js';
import { openUserReleases } from './user-release.js';
import { startUpdateService, type UpdateService } from './update-service.js';
import { imageConfigObjects } from './image-config.js';
import { priorityClassObjects } from './priority-classes.js';
import { cvoBootstrapRbac } from './identities.js';
import { PDB_NAMESPACE, Session } from './session.js';
import { type Release } from './options.js';
import { bootstrapCluster, createCustomPools, kubeconfigFor, nodeInventory } from './cluster-bootstrap.js';

/** Releases A and B: generated and published, or the user's. */
export async function prepareReleases(s: Session): Promise<{ a: Release; b: Release }> {
  const { opts, stack } = s;
  await mkdir(opts.workDir, { recursive: true });
  if (opts.releaseMirror === true && (opts.from !== undefined || opts.to !== undefined))
    throw new Error(
      '--release-mirror publishes the generated release B under a mirror: it does not go with --from/--to',
    );
  if (opts.from === undefined || opts.to === undefined) {
    const mcoDir = await machineConfigManifestsDir();
    const pub: PublishedReleases = await publishRehearsalReleases({
      out: join(opts.workDir, 'releases'),
      ...(opts.releaseMirror === true ? { mirrorTarget: true } : {}),
      ...(mcoDir !== undefined ? { machineConfigManifestsDir: mcoDir } : {}),
      // a minor update whose A carries an admin-ack gate
      ...(opts.faults.adminAck !== undefined ? ADMIN_ACK_RELEASES : {}),
    });
    stack.push('releases', () => pub.close());
    return {
      a: {
        version: pub.from.version,
        pullSpec: pub.from.pullSpec,
        payload: await openPayload(pub.from.dir),
        dir: pub.from.dir,
      },
      b: {
        version: pub.to.version,
        pullSpec: pub.to.pullSpec,
        payload: await openPayload(pub.to.dir),
        dir: pub.to.dir,
        ...(pub.mirror !== undefined ? { mirror: pub.mirror } : {}),
      },
    };
  }
  let registry: OciRegistry | undefined;
  const getRegistry = async (): Promise<OciRegistry> => {
    if (registry === undefined) {
      const r = await startOciRegistry();
      registry = r;
      stack.push('registry', () => r.close());
    }
    return registry;
  };
  return openUserReleases(opts.from, opts.to, getRegistry, opts.workDir, opts.force === true);
}

/**
 * Every `--fault`/`--kill`/`--pause-pool` target exists in this cluster (else a {@link FaultSpecError} before
 * anything starts); a `cvo@N%` the update will not show is moved to the last point it shows, with a note.
 */
export function checkFaultTargets(s: Session, a: Release, b: Release): void {
  const { opts } = s;
  const nodes = nodeInventory(opts.masters, opts.workers, opts.pools).map((n) => n.name);
  const checked = validateFaultTargets(
    opts.faults,
    rehearsalTargets(a.payload, b.payload, nodes, Object.keys(opts.pools)),
  );
  for (const note of checked.notes) s.emit({ t: s.t(), type: 'fault', fault: 'kill-point', detail: note });
  if (opts.faults.adminAck !== undefined) checkAdminAckReleases(a.payload, b.payload);
  if (checked.killCvoAt !== undefined) s.killCvoAt = checked.killCvoAt;
}

/** `--hold`: an HTTPS front on the proxy (kubectl sends no token over plain HTTP) and its kubeconfig file. */
export async function heldKubeconfig(s: Session, proxy: ApiProxy, kubeconfigPath: string): Promise<string> {
  const front = await startTlsFront(proxy.url);
  s.stack.push('held cluster (https)', () => front.close());
  const token = /token: (\S+)/.exec(await readFile(kubeconfigPath, 'utf8'))?.[1] ?? '';
  const path = join(s.opts.workDir, 'kubeconfig-held');
  await writeFile(path, front.kubeconfig(token), { mode: 0o600 });
  return path;
}

/** Update service, API server behind the proxy, bootstrap objects, observer. */
export async function startCluster(
  s: Session,
  a: Release,
  b: Release,
): Promise<{ svc: UpdateService; direct: KubeClient; obs: Observer; ctx: ComponentContext }> {
  const { opts, stack } = s;
  const svc = await startUpdateService({
    from: { version: a.version, payload: a.pullSpec },
    to: { version: b.version, payload: b.pullSpec },
  });
  stack.push('update service', () => svc.close());
  const caObjects = await clusterCABundleObjects();
  const { px, kubeconfig, direct } =
    s.target !== undefined ? await existingServer(s, s.target, a, b, caObjects) : await embeddedServer(s);
  s.proxy = px;
  stack.push('api proxy', () => px.close());
  const kubeconfigPath = join(opts.workDir, 'kubeconfig');
  s.kubeconfigPath = kubeconfigPath;
  await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  s.direct = direct;
  await bootstrapCluster(direct, a, svc, caObjects);
  await createCustomPools(direct, opts.pools, opts.maxUnavailable ?? {});
  const obs = startObserver(direct, s.t0, s.emit);
  stack.push('observer', () => obs.stop());
  await obs.synced();
  // the kubelets of the virtual machines are not Keelson components: they keep the admin credentials
  return {
    svc,
    direct,
    obs,
    ctx: {
      kubeconfigPath,
      kubeletKubeconfigPath: kubeconfigPath,
      timeScale: opts.timeScale,
      workDir: opts.workDir,
      log: opts.onLog ?? (() => undefined),
    },
  };
}

/** `--kubeconfig`: opens the kubeconfig and refuses a server without the rights or with OpenShift objects. */
export async function connectTarget(s: Session, file: string): Promise<void> {
  const t = await openTarget(file);
  await checkRights(t);
  await checkEmpty(
    t,
    nodeInventory(s.opts.masters, s.opts.workers, s.opts.pools).map((n) => n.name),
  );
  s.target = t;
}

/** The embedded API server (simulating the kubelets' pods) behind the counting proxy. */
export async function embeddedServer(s: Session): Promise<{ px: ApiProxy; kubeconfig: string; direct: KubeClient }> {
  const sandbox = await startSandbox({ simulatePods: true });
  s.stack.push('api server', () => sandbox.stop());
  const px = await startApiProxy({ target: sandbox.url });
  const direct = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml(), { userAgent: 'keelson-rehearse' });
  return { px, kubeconfig: kubeconfigFor(sandbox, px.url), direct };
}

/**
 * `--kubeconfig`: the existing server behind the counting proxy (the admin's credentials stay in the proxy); what
 * the rehearsal will create is recorded first and deleted once every component has stopped, unless `--keep`.
 */
export async function existingServer(
  s: Session,
  t: TargetCluster,
  a: Release,
  b: Release,
  caObjects: readonly KubeObject[],
): Promise<{ px: ApiProxy; kubeconfig: string; direct: KubeClient }> {
  const { opts } = s;
  const nodes = nodeInventory(opts.masters, opts.workers, opts.pools).map((n) => n.name);
  const refs: ObjectRef[] = [
    ...releaseObjects(a.payload),
    ...releaseObjects(b.payload),
    ...[
      ...cvoBootstrapRbac(a.payload).map((m) => m.object),
      ...operatorSimulatorManifests(),
      ...caObjects,
      ...(await imageConfigObjects()),
      ...priorityClassObjects(),
      ...(await clusterConfigObjects()),
    ]
      .map((o) => refOf(o))
      .filter((r) => r !== undefined),
    { apiVersion: 'v1', kind: 'Namespace', name: PDB_NAMESPACE },
  ];
  const plan = await planCleanup(t.client, refs, nodes);
  if (opts.keepCluster !== true)
    // pushed before any component: stopped last, once nothing writes to the cluster any more
    s.stack.push('cleanup', async () => {
      const r = await runCleanup(t.client, plan);
      opts.onNotice?.(
        `cleaned up ${t.server}: ${r.deleted} objects deleted (${plan.namespaces.length} namespaces, ${plan.crds.length} CRDs with their resources, ${nodes.length} Nodes)` +
          (r.failed.length > 0 ? `; could not delete: ${r.failed.join('; ')}` : '') +
          (r.terminating.length > 0 ? `; still terminating: ${r.terminating.join(', ')}` : ''),
      );
    });
  else opts.onNotice?.(`--keep: what the rehearsal created stays in ${t.server}`);
  const px = await startApiProxy({ target: t.server, upstream: t.upstream });
  const refresh = setInterval(() => void t.refresh().catch(() => undefined), CREDENTIALS_REFRESH_MS);
  s.stack.push('credentials refresh', () => {
    clearInterval(refresh);
    return Promise.resolve();
  });
  const kubeconfig = kubeconfigYaml(
    buildKubeconfig({ server: px.url, token: t.upstream.adminToken, name: 'keelson-rehearsal' }),
  );
  return { px, kubeconfig, direct: t.client };
}
