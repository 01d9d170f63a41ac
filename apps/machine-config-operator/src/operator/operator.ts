/**
 * The machine-config-operator process: keeps ControllerConfig `machine-config-controller` in step with the release
 * (machine-config-osimageurl ConfigMap), makes sure the master and worker pools exist, waits for the pools labelled
 * required-for-upgrade to run this release's rendered config, and reports ClusterOperator `machine-config`.
 * Informers (ConfigMap, pools, MCs, ControllerConfig, ClusterOperator) → one key → {@link MachineConfigOperator.sync}.
 */
import {
  ClusterOperators,
  ConfigMaps,
  Controller,
  ControllerConfigs,
  defineResource,
  EventRecorder,
  Informer,
  isAlreadyExists,
  isConflict,
  isNotFound,
  MachineConfigPools,
  MachineConfigs,
  MachineConfigurations,
  Registry,
  type KubeClient,
  type KubeObject,
  type Logger,
  type Manager,
  type ResourceDescriptor,
} from '@keelson/kube';
import { controllerConfigGate, defaultPool, semanticallyContains } from '@keelson/machineconfig';
import type { MachineConfiguration } from '@keelson/api';
import type {
  ClusterOperator,
  ConfigMap,
  ControllerConfig,
  MachineConfig,
  MachineConfigPool,
} from '../common/api-types.js';
import {
  CLUSTER_OPERATOR_NAME,
  CONTROLLER_CONFIG_NAME,
  CONTROLLER_VERSION,
  MCO_NAMESPACE,
  OSIMAGEURL_CONFIGMAP,
} from '../common/constants.js';
import { clientFrom, loggerFrom, runLeading, type ProcessOptions, type Running } from '../common/runtime.js';
import { MCO_VERSION } from '../common/version.js';
import { completeInfrastructure, type ConfigObject } from './cluster-config.js';
import { readRenderInputs, readStateOf404, type ConfigRead, type GlobalConfig } from './render-inputs.js';
import { listerBackedClient } from './lister-client.js';
import {
  buildControllerConfig,
  controllerConfigNeedsUpdate,
  decideOSImageURLWait,
  OperatorSyncError,
  osImagesError,
  parseOSImageURLConfigMap,
  type ClusterInputs,
  type OSImageURLConfig,
} from '@keelson/machineconfig';
import {
  checkRequiredPools,
  computeClusterOperatorStatus,
  type OperandVersion,
  type SyncError,
} from '@keelson/machineconfig';
import { MachineConfigNodeSync } from './machine-config-nodes.js';
import { syncMachineConfiguration } from './machine-configuration.js';
import { informerSource, isLeaderRecord, type InformerSource } from './informers.js';
import { OPERANDS, OperandSync, type OperandOptions } from './operands.js';
import { Secrets, syncMcsTls, MCS_CA_NAME } from './mcs-tls.js';
import { caFromConfigMap } from './ca-bundles.js';
import {
  MACHINE_API_NAMESPACE,
  ignitionHost,
  isUserDataSecret,
  managedSecretInLine,
  managedUserDataSecret,
  mcsHostnames,
  pointerConfig,
  reconcileUserDataCA,
  type UserDataSecret,
} from './user-data.js';
import { MIN_SCALED_RESYNC_MS, scaled, scaledResyncMs } from './time-scale.js';

export { MIN_SCALED_RESYNC_MS, scaled, scaledResyncMs };

const Pools = MachineConfigPools;
const CMs = ConfigMaps;

/** A config.openshift.io cluster configuration object (Infrastructure, DNS) as served. */
type ClusterConfigObject = KubeObject & Record<string, unknown>;
/** A config.openshift.io `cluster` object type the operator follows (upstream's infra/network/proxy/dns/image listers). */
const configType = (kind: string, plural: string): ResourceDescriptor<ClusterConfigObject> =>
  defineResource<ClusterConfigObject>({ group: 'config.openshift.io', version: 'v1', kind, plural, namespaced: false });
const CONFIG_TYPES = {
  infra: configType('Infrastructure', 'infrastructures'),
  network: configType('Network', 'networks'),
  proxy: configType('Proxy', 'proxies'),
  dns: configType('DNS', 'dnses'),
  image: configType('Image', 'images'),
} as const;
type ConfigKey = keyof typeof CONFIG_TYPES;
/** Namespaces of the ConfigMaps syncRenderConfig reads (besides the operator's own). */
const INPUT_CM_NAMESPACES = [
  'openshift-config',
  'openshift-config-managed',
  'kube-system',
  'openshift-kube-apiserver-operator',
] as const;
/** The ClusterOperator whose presence decides whether the internal registry pull secret is merged. */
const IMAGE_REGISTRY_OPERATOR = 'image-registry';

/** Options of {@link startMachineConfigOperator}. */
export interface MachineConfigOperatorOptions extends ProcessOptions {
  /** Release version this operator belongs to (upstream env RELEASE_VERSION). Required. */
  releaseVersion: string;
  /** Operator image pull spec, reported as version `operator-image` when set. */
  operatorImage?: string;
  /** Release image pull spec written into ControllerConfig spec.releaseImage. */
  releaseImage?: string;
  /** Cluster DNS service IP (default 172.30.0.10). */
  clusterDNSIP?: string;
  /** Component images (ControllerConfig spec.images). */
  images?: Record<string, string>;
  /** Periodic resync (default 30 s, divided by `timeScale` but at least {@link MIN_SCALED_RESYNC_MS}). */
  resyncIntervalMs?: number;
  /**
   * Clock compression: the resync is divided by this (rehearsals; default 1). The Degraded timeouts are not: a
   * rehearsal's real per-node overhead is not compressed, and a scaled 10 min would report RequiredPoolsFailed during
   * every normal rollout.
   */
  timeScale?: number;
  /** How long the ControllerConfig may stay incomplete before Degraded (upstream 5 min). */
  controllerConfigTimeoutMs?: number;
  /**
   * How long RenderConfig waits, during an install or an upgrade to this release, for the osimageurl ConfigMap the
   * CVO applies after the operator's Deployment before reporting Degraded `RenderConfigFailed` (default 5 min).
   */
  osImageURLTimeoutMs?: number;
  /** How long the required pools may be not ready before Degraded (upstream 10 min). */
  requiredPoolsTimeoutMs?: number;
  /** generated-by-controller-version the required pools' rendered config must carry (default: this build's). */
  controllerVersion?: string;
  /** generated-by-version written on the ControllerConfig (default: this build's). */
  mcoVersion?: string;
  /**
   * The operator deploys the daemon DaemonSet, controller Deployment and server DaemonSet and waits for their rollouts
   * (upstream's syncMachineConfigDaemon/Controller/Server; see operands.ts) — by default, as upstream: the release
   * payload carries none of them. `false`: someone else runs them (processes started by hand, tests of other parts).
   */
  operands?: OperandOptions | false;
  /**
   * Issue and rotate the machine-config-server CA and serving certificate (mcs-tls.ts) and keep the installer's
   * `*-user-data` secrets on the current CA bundle. Default: as upstream, only when the cluster has MachineSets in
   * openshift-machine-api (checked once at start); `true`/`false` force it.
   */
  mcsCertRotation?: boolean;
}

type Task = { name: string; run: () => Promise<string | undefined> };

/** The operator's sync loop. */
export class MachineConfigOperator {
  readonly controller: Controller;
  private readonly informers: {
    cm: Informer<ConfigMap>;
    pools: Informer<MachineConfigPool>;
    mcs: Informer<MachineConfig>;
    cc: Informer<ControllerConfig>;
    co: Informer<ClusterOperator>;
    /** ClusterOperator `image-registry` (upstream's clusterOperatorLister in getImageRegistryPullSecrets). */
    imageRegistryCo: Informer<ClusterOperator>;
    /** openshift-machine-api Secrets: the `<pool>-user-data-managed` pointer configs and the installer's user-data. */
    maoSecrets: Informer<UserDataSecret>;
  };
  /**
   * Infrastructure, Network, Proxy, DNS and Image `cluster`. Not awaited before the first sync (a cluster without
   * their CRDs still syncs: until an informer has synced, {@link MachineConfigOperator.cluster} reads the object once by
   * GET); their changes queue a sync.
   */
  private readonly config: Record<ConfigKey, Informer<ClusterConfigObject>>;
  /** ConfigMaps of the namespaces the RenderConfig inputs live in (their events queue a sync). */
  private readonly inputCMs: Array<Informer<ConfigMap>>;
  /** Config objects found absent (404: object missing or type not served) before their informer synced. */
  private readonly absentUntilSynced = new Map<ConfigKey, 'missing' | 'unserved'>();
  /** MachineConfiguration `cluster` (its status is the operator's to write). */
  private readonly mcfg: Informer<ClusterConfigObject>;
  /** MachineConfiguration resource found not served (404) before its informer synced. */
  private mcfgUnserved = false;
  private readonly waitingSince = new Map<string, number>();
  /** Upstream `inClusterBringup`: started without the ControllerConfig CRD and no sync has succeeded yet. */
  private inClusterBringup = false;
  private readonly recorder: EventRecorder;
  /** syncMachineConfigNodes, fed by its own Node/MCN watches (see machine-config-nodes.ts). */
  private readonly mcnSync: MachineConfigNodeSync;
  private mcnRunning: Promise<void> = Promise.resolve();
  /** The operand tasks, when the operator manages its operands. */
  private readonly operands: OperandSync | undefined;
  /** Whether the MCS cert rotation runs (decided once, see {@link MachineConfigOperatorOptions.mcsCertRotation}). */
  private mcsRotation: boolean | undefined;
  /** openshift-machine-api found missing: the user-data secrets are not retried before this time. */
  private maoNamespaceMissingUntil = 0;
  /** Informers made by this operator (no {@link InformerSource} given): stopped by {@link stop}. */
  private readonly owned: Array<Informer<KubeObject>> = [];
  /** Removes the handlers added to (possibly shared) informers. */
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly client: KubeClient,
    private readonly o: MachineConfigOperatorOptions,
    private readonly log: Logger,
    registry: Registry,
    source?: InformerSource,
  ) {
    const mk = informerSource(client, log, source, this.owned);
    this.informers = {
      // every ConfigMap of the namespace: the osimageurl one and machine-config-server-ca (syncRenderConfig)
      cm: mk(CMs, { namespace: MCO_NAMESPACE }),
      pools: mk(Pools),
      mcs: mk(MachineConfigs),
      cc: mk(ControllerConfigs),
      co: mk(ClusterOperators, { fieldSelector: `metadata.name=${CLUSTER_OPERATOR_NAME}` }),
      imageRegistryCo: mk(ClusterOperators, { fieldSelector: `metadata.name=${IMAGE_REGISTRY_OPERATOR}` }),
      maoSecrets: mk(Secrets, { namespace: MACHINE_API_NAMESPACE }),
    };
    this.recorder = new EventRecorder(client, {
      component: 'machine-config-operator',
      logger: log,
      clusterScopedNamespace: MCO_NAMESPACE,
      clockRate: o.timeScale ?? 1,
    });
    this.controller = new Controller({
      name: 'machine-config-operator',
      reconcile: () => this.sync(),
      registry,
      logger: log,
    });
    const key = (): string[] => [CLUSTER_OPERATOR_NAME];
    const { mcs, cm, ...triggers } = this.informers;
    for (const inf of Object.values(triggers) as Array<Informer<KubeObject>>) this.controller.watch(inf, key);
    this.controller.watch(cm, (o) => (isLeaderRecord(o) ? [] : key()));
    // upstream's mcInformer has no event handler (only its lister, waited for before the first sync): a
    // MachineConfig written by the controller does not queue an operator sync
    this.controller.watch(mcs, () => []);
    const byName = { fieldSelector: 'metadata.name=cluster' };
    this.config = {
      infra: mk(CONFIG_TYPES.infra, byName),
      network: mk(CONFIG_TYPES.network, byName),
      proxy: mk(CONFIG_TYPES.proxy, byName),
      dns: mk(CONFIG_TYPES.dns, byName),
      image: mk(CONFIG_TYPES.image, byName),
    };
    const enqueue = (): void => {
      this.controller.enqueue(CLUSTER_OPERATOR_NAME);
    };
    const onChange = { add: enqueue, update: enqueue, delete: enqueue };
    const cmEnqueue = (cm: ConfigMap): void => {
      if (!isLeaderRecord(cm)) enqueue();
    };
    const onCmChange = {
      add: cmEnqueue,
      update: (_o: ConfigMap, n: ConfigMap) => {
        cmEnqueue(n);
      },
      delete: cmEnqueue,
    };
    for (const inf of Object.values(this.config)) this.unsubscribe.push(inf.addHandlers(onChange));
    // upstream's clusterCmLister: the CA bundles, user-ca-bundle, the proxy's trusted CA, registry CAs, the cloud
    // config and kube-system/bootstrap changing queue a sync (read by GET in the sync)
    this.inputCMs = INPUT_CM_NAMESPACES.map((namespace) => mk(CMs, { namespace }));
    for (const inf of this.inputCMs) this.unsubscribe.push(inf.addHandlers(onCmChange));
    this.mcfg = mk(MachineConfigurations as unknown as ResourceDescriptor<ClusterConfigObject>, byName);
    this.unsubscribe.push(this.mcfg.addHandlers(onChange));
    this.mcnSync = new MachineConfigNodeSync({
      client,
      logger: log,
      registry,
      pools: this.informers.pools,
      source: mk,
    });
    if (o.operands !== false) {
      const ops = o.operands ?? {};
      const image = ops.image ?? o.images?.['machineConfigOperator'] ?? o.operatorImage;
      if (image === undefined || image === '')
        throw new Error(
          'the operator deploys its operands with the machine-config-operator image: set images.machineConfigOperator (images.json) or the operator image, or turn operand management off (operands: false, --manage-operands=false)',
        );
      this.operands = new OperandSync(client, { ...ops, image }, mk);
      this.controller.watch(this.operands.daemonSets, key).watch(this.operands.deployments, key);
    }
  }

  async run(): Promise<void> {
    // upstream Operator.Run: without the ControllerConfig CRD the operator is in cluster bring-up until a sync succeeds
    try {
      await this.client.request(
        'GET',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/controllerconfigs.machineconfiguration.openshift.io',
      );
    } catch (e) {
      if (isNotFound(e)) this.inClusterBringup = true;
      else this.log.error('while checking for cluster bringup', { err: (e as Error).message });
    }
    for (const inf of [...Object.values(this.config), ...this.inputCMs, this.mcfg])
      (inf as Informer<KubeObject>).start();
    this.mcnRunning = this.mcnSync.run().catch((e: unknown) => {
      this.log.error('machine-config-nodes sync stopped', { err: (e as Error).message });
    });
    this.controller.enqueue(CLUSTER_OPERATOR_NAME);
    return this.controller.run();
  }

  async stop(): Promise<void> {
    await this.mcnSync.stop();
    await this.mcnRunning;
    await this.controller.stop();
    for (const u of this.unsubscribe.splice(0)) u();
    // informers of the Manager's cache are the Manager's to stop; only those made here are stopped here
    await Promise.all(this.owned.splice(0).map((i) => i.stop()));
  }

  private wanted(): OperandVersion[] {
    const v: OperandVersion[] = [{ name: 'operator', version: this.o.releaseVersion }];
    if (this.o.operatorImage !== undefined) v.push({ name: 'operator-image', version: this.o.operatorImage });
    return v;
  }

  /** One pass: the tasks in order, then the ClusterOperator status. */
  async sync(): Promise<{ requeueAfterMs: number }> {
    const resync = this.o.resyncIntervalMs ?? scaledResyncMs(this.o.timeScale ?? 1);
    await this.syncServerCertificates();
    const tasks: Task[] = [
      { name: 'RenderConfig', run: () => this.syncRenderConfig() },
      { name: 'MachineConfiguration', run: () => this.syncMachineConfiguration() },
      { name: 'MachineConfigPools', run: () => this.syncPools() },
      ...this.operandTasks(),
      { name: 'RequiredPools', run: () => Promise.resolve(this.waitRequiredPools()) },
    ];
    let syncError: SyncError | undefined;
    let pending: string | undefined;
    for (const t of tasks) {
      try {
        pending = await t.run();
      } catch (e) {
        if (isConflict(e)) return { requeueAfterMs: 100 };
        syncError = { task: e instanceof OperatorSyncError ? e.task : t.name, message: (e as Error).message };
        this.log.error('sync task failed', { task: t.name, err: syncError.message });
        break;
      }
      if (pending !== undefined) break;
    }
    await this.writeClusterOperator(syncError, pending);
    if (syncError === undefined && pending === undefined) this.inClusterBringup = false;
    return { requeueAfterMs: resync };
  }

  /**
   * Upstream's order: MachineConfigDaemon, MachineConfigController (its Deployment rolled out, then the ControllerConfig
   * completed), MachineConfigServer; without operand management only the ControllerConfig wait.
   */
  private operandTasks(): Task[] {
    const cc = (): Promise<string | undefined> => Promise.resolve(this.waitControllerConfig());
    const ops = this.operands;
    if (ops === undefined) return [{ name: 'MachineConfigController', run: cc }];
    return OPERANDS.map((op) => ({
      name: op.task,
      run: async () => {
        const pending = await ops.sync(op);
        if (pending !== undefined || op.task !== 'MachineConfigController') return pending;
        return cc();
      },
    }));
  }

  /** One config object: from its informer once synced, else read once by GET (a 404 stands until it syncs). */
  private async readConfig(key: ConfigKey): Promise<ConfigRead> {
    const inf = this.config[key];
    if (inf.hasSynced()) {
      const o = inf.store.get('cluster');
      return o === undefined ? { state: 'missing' } : { state: 'found', object: o };
    }
    const absent = this.absentUntilSynced.get(key);
    if (absent !== undefined) return { state: absent };
    try {
      const o = await this.client.request<ClusterConfigObject>(
        'GET',
        `/apis/config.openshift.io/v1/${CONFIG_TYPES[key].plural}/cluster`,
      );
      return { state: 'found', object: o };
    } catch (e) {
      const st = readStateOf404(e);
      if (st === undefined) throw e;
      this.absentUntilSynced.set(key, st);
      return { state: st };
    }
  }

  private async cluster(): Promise<ClusterInputs> {
    const keys = Object.keys(CONFIG_TYPES) as ConfigKey[];
    const reads = await Promise.all(keys.map((k) => this.readConfig(k)));
    const global = Object.fromEntries(keys.map((k, i) => [k, reads[i]])) as unknown as GlobalConfig;
    // the ConfigMaps of the watched namespaces come from the informers, as upstream's listers (lister-client.ts)
    const listed = new Map<string, Informer<ConfigMap>>([[MCO_NAMESPACE, this.informers.cm]]);
    INPUT_CM_NAMESPACES.forEach((ns, i) => {
      const inf = this.inputCMs[i];
      if (inf !== undefined) listed.set(ns, inf);
    });
    const reader = listerBackedClient(this.client, {
      configMaps: listed,
      clusterOperators: new Map([[IMAGE_REGISTRY_OPERATOR, this.informers.imageRegistryCo]]),
    });
    const fromCluster = await readRenderInputs(reader, {
      global,
      imagesJson: this.o.images ?? {},
      operatorVersion: this.o.releaseVersion,
      inClusterBringup: this.inClusterBringup,
    });
    const found = (r: ConfigRead): ConfigObject | undefined => (r.state === 'found' ? r.object : undefined);
    const infra = found(global.infra);
    const dns = found(global.dns);
    return {
      ...(infra ? { infra: completeInfrastructure(infra) } : {}),
      ...(dns ? { dns: { ...dns, apiVersion: 'config.openshift.io/v1', kind: 'DNS' } } : {}),
      clusterDNSIP: this.o.clusterDNSIP ?? '172.30.0.10',
      releaseImage: this.o.releaseImage ?? '',
      images: this.o.images ?? {},
      fromCluster,
    };
  }

  /** The OS images of this release, or the wait text while the CVO has not applied them yet. */
  private osImages(): OSImageURLConfig | string {
    const cm = this.informers.cm.store.get(OSIMAGEURL_CONFIGMAP, MCO_NAMESPACE);
    const read = (): OSImageURLConfig => {
      try {
        return parseOSImageURLConfigMap(cm, this.o.releaseVersion);
      } catch (e) {
        throw osImagesError(e);
      }
    };
    const reported = this.informers.co.store
      .get(CLUSTER_OPERATOR_NAME)
      ?.status?.versions?.find((v) => v.name === 'operator')?.version;
    const wait = this.waitFor(
      'RenderConfig',
      decideOSImageURLWait(cm, this.o.releaseVersion, reported),
      this.o.osImageURLTimeoutMs ?? 5 * 60_000,
      (p) => {
        try {
          read();
          return p;
        } catch (e) {
          return (e as Error).message;
        }
      },
    );
    return wait ?? read();
  }

  private async syncRenderConfig(): Promise<string | undefined> {
    const os = this.osImages();
    if (typeof os === 'string') return os;
    const want = buildControllerConfig(os, await this.cluster(), this.o.mcoVersion ?? MCO_VERSION);
    const existing = this.informers.cc.store.get(CONTROLLER_CONFIG_NAME);
    const ccs = this.client.resource(ControllerConfigs);
    if (existing === undefined) {
      await ccs.create(want).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    } else if (controllerConfigNeedsUpdate(existing, want)) {
      await ccs.update({
        ...existing,
        metadata: {
          ...existing.metadata,
          annotations: { ...existing.metadata.annotations, ...want.metadata.annotations },
        },
        spec: want.spec,
      });
      this.log.info('ControllerConfig updated', {
        baseOSContainerImage: os.baseOSContainerImage,
        releaseVersion: os.releaseVersion,
      });
    }
    return undefined;
  }

  /** MachineConfiguration `cluster` and its status (machine-configuration.ts); skipped where its CRD is not served. */
  private async syncMachineConfiguration(): Promise<undefined> {
    const inf = this.mcfg;
    const path = '/apis/operator.openshift.io/v1/machineconfigurations';
    if (!inf.hasSynced() && this.mcfgUnserved) return undefined;
    let existing = inf.hasSynced() ? (inf.store.get('cluster') as MachineConfiguration | undefined) : undefined;
    if (!inf.hasSynced()) {
      try {
        existing = await this.client.resource(MachineConfigurations).get('cluster');
      } catch (e) {
        if (!isNotFound(e)) throw e;
        // no object, or no such resource on this cluster: a list tells them apart
        const served = await this.client.request('GET', path).then(
          () => true,
          (err: unknown) => (isNotFound(err) ? false : Promise.reject(err as Error)),
        );
        if (!served) {
          this.mcfgUnserved = true;
          return undefined;
        }
      }
    }
    return syncMachineConfiguration(this.client, existing, this.log);
  }

  private async syncPools(): Promise<undefined> {
    for (const role of ['master', 'worker'] as const) {
      if (this.informers.pools.store.get(role) !== undefined) continue;
      const p = defaultPool(role);
      await this.client
        .resource(Pools)
        .create(p as unknown as MachineConfigPool)
        .catch((e: unknown) => {
          if (!isAlreadyExists(e)) throw e;
        });
      this.log.info('created MachineConfigPool', { pool: role });
    }
    await this.syncUserDataSecrets();
    return undefined;
  }

  /** Upstream's cert rotation controller runs when the cluster uses MachineSets (hasFunctionalMachineAPI). */
  private async mcsRotationEnabled(): Promise<boolean> {
    if (this.o.mcsCertRotation !== undefined) return this.o.mcsCertRotation;
    if (this.mcsRotation === undefined) {
      const path = `/apis/machine.openshift.io/v1beta1/namespaces/${MACHINE_API_NAMESPACE}/machinesets`;
      this.mcsRotation = await this.client.request<{ items?: unknown[] }>('GET', path).then(
        (l) => (l.items ?? []).length > 0,
        () => false,
      );
      this.log.info(this.mcsRotation ? 'Adding MCS CA/TLS cert rotator' : 'MCS CA/TLS cert rotator not added');
    }
    return this.mcsRotation;
  }

  /**
   * The cert rotation controller's pass (upstream runs it beside the sync; its errors are logged, not reported in the
   * ClusterOperator): signer, CA bundle and serving certificate for the Infrastructure's hostnames, then the
   * installer's `*-user-data` secrets moved to the current bundle.
   */
  private async syncServerCertificates(): Promise<void> {
    if (!(await this.mcsRotationEnabled())) return;
    try {
      const infra = await this.readConfig('infra');
      if (infra.state !== 'found') throw new Error('unable to get cluster infrastructure resource: not found');
      const r = await syncMcsTls(this.client, { hostnames: mcsHostnames(infra.object) });
      if (r.rotatedCA || r.bundleUpdated || r.issuedServing)
        this.log.info('machine-config-server TLS synced', { ...r });
      const cm = await this.client.resource(CMs).get(MCS_CA_NAME, MCO_NAMESPACE);
      const bundle = caFromConfigMap(cm, 'ca-bundle.crt');
      for (const s of this.informers.maoSecrets.store.list()) {
        if (!isUserDataSecret(s)) continue;
        try {
          const userData = reconcileUserDataCA(s, bundle);
          if (userData === undefined) continue;
          await this.client.resource(Secrets).update({ ...s, data: { ...s.data, userData } });
          this.log.info(`Successfully modified ${s.metadata.name ?? ''} secret`);
        } catch (e) {
          this.log.error('error reconciling secret', { secret: s.metadata.name, err: (e as Error).message });
        }
      }
    } catch (e) {
      if (isConflict(e)) return;
      this.log.error('machine-config-server cert rotation failed', { err: (e as Error).message });
    }
  }

  /**
   * syncMachineConfigPools' user-data part: `<pool>-user-data-managed` in openshift-machine-api for every pool, the
   * pointer config carrying ControllerConfig `rootCAData` (the MCS CA bundle). Skipped until the Infrastructure and
   * the ControllerConfig exist, and (deviation) while the openshift-machine-api namespace does not exist.
   */
  private async syncUserDataSecrets(): Promise<void> {
    if (Date.now() < this.maoNamespaceMissingUntil) return;
    const rootCA = this.informers.cc.store.get(CONTROLLER_CONFIG_NAME)?.spec.rootCAData;
    const infra = await this.readConfig('infra');
    if (rootCA === undefined || infra.state !== 'found') return;
    const host = ignitionHost(infra.object);
    const ca = Buffer.from(rootCA, 'base64');
    for (const pool of this.informers.pools.store.list()) {
      const name = pool.metadata.name ?? '';
      const want = managedUserDataSecret({ name, uid: pool.metadata.uid ?? '' }, pointerConfig(host, ca, name));
      const have = this.informers.maoSecrets.store.get(want.metadata.name, MACHINE_API_NAMESPACE);
      if (have !== undefined && managedSecretInLine(have, want)) continue;
      const secrets = this.client.resource(Secrets);
      try {
        if (have === undefined) await secrets.create(want);
        else
          await secrets.update({
            ...have,
            metadata: {
              ...have.metadata,
              labels: { ...have.metadata.labels, ...want.metadata.labels },
              ownerReferences: want.metadata.ownerReferences ?? [],
            },
            type: 'Opaque',
            data: want.data ?? {},
          });
      } catch (e) {
        if (have !== undefined || !isNotFound(e)) throw e;
        this.maoNamespaceMissingUntil = Date.now() + 5 * 60_000;
        this.log.info(`namespace ${MACHINE_API_NAMESPACE} not found; user-data secrets not written`);
        return;
      }
      this.log.info('user-data secret applied', { secret: want.metadata.name });
    }
  }

  /** Pending text while waiting; throws once the wait exceeds its timeout. */
  private waitFor(
    task: string,
    problem: string | undefined,
    timeoutMs: number,
    wrap: (p: string) => string,
  ): string | undefined {
    if (problem === undefined) {
      this.waitingSince.delete(task);
      return undefined;
    }
    const since = this.waitingSince.get(task) ?? Date.now();
    this.waitingSince.set(task, since);
    if (Date.now() - since > timeoutMs) throw new OperatorSyncError(task, wrap(problem));
    return problem;
  }

  private waitControllerConfig(): string | undefined {
    const cc = this.informers.cc.store.get(CONTROLLER_CONFIG_NAME);
    const gate = controllerConfigGate(cc);
    return this.waitFor(
      'MachineConfigController',
      gate === undefined ? undefined : `controllerconfig is not completed: ${gate}`,
      this.o.controllerConfigTimeoutMs ?? 5 * 60_000,
      (p) => `error during waitForControllerConfigToBeCompleted: [context deadline exceeded, ${p}]`,
    );
  }

  private waitRequiredPools(): string | undefined {
    const r = checkRequiredPools(
      this.informers.pools.store.list(),
      (n) => this.informers.mcs.store.get(n),
      this.o.releaseVersion,
      this.o.controllerVersion ?? CONTROLLER_VERSION,
    );
    if (r?.hard === true) throw new OperatorSyncError('RequiredPools', r.message);
    return this.waitFor(
      'RequiredPools',
      r?.message,
      this.o.requiredPoolsTimeoutMs ?? 10 * 60_000,
      (p) => `error during syncRequiredMachineConfigPools: [context deadline exceeded, ${p}]`,
    );
  }

  private async writeClusterOperator(syncError: SyncError | undefined, pending: string | undefined): Promise<void> {
    const cos = this.client.resource(ClusterOperators);
    let co = this.informers.co.store.get(CLUSTER_OPERATOR_NAME);
    if (co === undefined) {
      try {
        co = await cos.create({
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterOperator',
          metadata: { name: CLUSTER_OPERATOR_NAME },
          spec: {},
        });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        co = await cos.get(CLUSTER_OPERATOR_NAME);
      }
    }
    const d = computeClusterOperatorStatus({
      previous: co.status,
      wanted: this.wanted(),
      syncError,
      ...(pending !== undefined ? { pending } : {}),
      pools: this.informers.pools.store.list(),
      now: new Date(),
    });
    // as the API server stores it: its key order and schema defaults are no change (an unchanged cluster writes nothing)
    const strip = (s: unknown): unknown =>
      JSON.parse(JSON.stringify(s ?? {}, (k, v: unknown) => (k === 'lastTransitionTime' ? undefined : v)));
    if (semanticallyContains(strip(co.status), strip(d.status))) return;
    try {
      await cos.updateStatus({ ...co, status: d.status });
    } catch (e) {
      if (isConflict(e)) return;
      throw e;
    }
    for (const ev of d.events) void this.recorder.event(co, ev.type, ev.reason, ev.message);
  }
}

/** Starts the machine-config-operator (leader election on Lease `machine-config` in openshift-machine-config-operator). */
export async function startMachineConfigOperator(opts: MachineConfigOperatorOptions): Promise<Running> {
  const client = clientFrom(opts.kubeconfig);
  const logger = loggerFrom(opts, 'machine-config-operator');
  const registry = opts.registry ?? new Registry();
  const lead = async (mgr: Manager): Promise<() => Promise<void>> => {
    // the informers come from the Manager's shared cache (one watch per kind and selection, stopped by the Manager)
    const op = new MachineConfigOperator(client, opts, logger, registry, (d, o) => mgr.informer(d, o));
    const running = op.run().catch((err: unknown) => {
      logger.error('operator crashed', { err });
    });
    await Promise.resolve();
    return async () => {
      await op.stop();
      await running;
    };
  };
  return runLeading(opts, { namespace: MCO_NAMESPACE, name: 'machine-config' }, client, logger, registry, lead);
}
