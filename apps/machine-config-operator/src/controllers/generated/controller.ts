/**
 * KubeletConfig and ContainerRuntimeConfig controllers: each object → one generated MachineConfig per selected pool
 * (`99-<pool>-generated-kubelet[-N]` / `99-<pool>-generated-containerruntime[-N]`), status condition Success or
 * Failure ("Error: …"), generated MCs removed when the object goes.
 */
import { compileLabelSelector } from '@keelson/api';
import {
  Controller,
  ContainerRuntimeConfigs,
  isAlreadyExists,
  isConflict,
  isNotFound,
  KubeletConfigs,
  MachineConfigs,
  type Condition,
  type Informer,
  type ReconcileResult,
  type ResourceDescriptor,
} from '@keelson/kube';
import type {
  ContainerRuntimeConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
} from '../../common/api-types.js';
import { McAnnotations } from '../../common/constants.js';
import { clusterSingleton, type ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import {
  containerRuntimeMachineConfig,
  decodeDataURL,
  GeneratedConfigError,
  generatedName,
  kubeletMachineConfig,
} from '@keelson/machineconfig';
import { semanticEqual } from '@keelson/machineconfig';
import { featureGateMap } from '@keelson/machineconfig';
import { FeatureGates, NodeConfigs } from '../kubelet/features-controller.js';

type SubConfig = KubeletConfig | ContainerRuntimeConfig;

/** The cluster inputs of a kubelet MC besides the KubeletConfig. */
interface KubeletExtras {
  features?: Record<string, boolean>;
  workerLatencyProfile?: string;
}

/** Which of the two kinds a {@link GeneratedConfigController} handles. */
export type GeneratedKind = 'kubelet' | 'containerruntime';

/** Picks the name suffix of an object's MCs: its annotation, else "" when free, else the smallest free number. */
export function chooseSuffix(obj: SubConfig, others: readonly SubConfig[]): string {
  const own = obj.metadata.annotations?.[McAnnotations.mcNameSuffix];
  if (own !== undefined) return own;
  const used = new Set(
    others
      .filter((o) => o.metadata.name !== obj.metadata.name)
      .map((o) => o.metadata.annotations?.[McAnnotations.mcNameSuffix])
      .filter((s): s is string => s !== undefined),
  );
  if (!used.has('')) return '';
  for (let n = 1; ; n++) if (!used.has(String(n))) return String(n);
}

/** The base kubelet.conf of a pool: from `01-<pool>-kubelet`, or `01-worker-kubelet` for custom pools. */
export function baseKubeletConf(pool: string, mcs: (name: string) => MachineConfig | undefined): string | undefined {
  const mc = mcs(`01-${pool}-kubelet`) ?? mcs('01-worker-kubelet');
  const files =
    (mc?.spec?.config as { storage?: { files?: Array<{ path?: string; contents?: { source?: string } }> } } | undefined)
      ?.storage?.files ?? [];
  const f = files.find((x) => x.path === '/etc/kubernetes/kubelet.conf');
  return f?.contents?.source !== undefined ? decodeDataURL(f.contents.source) : undefined;
}

/** One controller for KubeletConfig or ContainerRuntimeConfig objects. */
export class GeneratedConfigController {
  readonly controller: Controller;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly informer: Informer<SubConfig>;
  private readonly resource: ResourceDescriptor<SubConfig>;
  private readonly ownerKind: string;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly kind: GeneratedKind,
    private readonly controllerVersion: string,
  ) {
    this.informer = kind === 'kubelet' ? ctx.informers.kubeletConfigs : ctx.informers.containerRuntimeConfigs;
    this.resource = kind === 'kubelet' ? KubeletConfigs : ContainerRuntimeConfigs;
    this.ownerKind = kind === 'kubelet' ? 'KubeletConfig' : 'ContainerRuntimeConfig';
    this.controller = new Controller({
      name: `${kind}config`,
      reconcile: (key) => this.reconcile(key),
      registry: ctx.registry,
      logger: ctx.logger,
    });
    const all = (): string[] => this.informer.store.list().map((o) => o.metadata.name ?? '');
    this.unsubscribe.push(
      watchDelayed(this.controller, this.informer, (o) => [o.metadata.name ?? ''], 0),
      watchDelayed(
        this.controller,
        ctx.informers.pools,
        all,
        0,
        (o, n) => !semanticEqual(o.metadata.labels, n.metadata.labels),
      ),
    );
  }

  run(): Promise<void> {
    for (const o of this.informer.store.list()) this.controller.enqueue(o.metadata.name ?? '');
    return this.controller.run();
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.controller.stop();
  }

  private owned(name: string): MachineConfig[] {
    return this.ctx.informers.machineConfigs.store
      .list()
      .filter((mc) => mc.metadata.ownerReferences?.some((r) => r.kind === this.ownerKind && r.name === name));
  }

  async reconcile(name: string): Promise<ReconcileResult | undefined> {
    const obj = this.informer.store.get(name);
    const mcClient = this.ctx.client.resource(MachineConfigs);
    if (obj === undefined) {
      for (const mc of this.owned(name))
        await mcClient.delete(mc.metadata.name ?? '').catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
      return undefined;
    }
    const pools = this.selectedPools(obj);
    if (pools.length === 0) {
      await this.setStatus(obj, {
        type: 'Failure',
        status: 'False',
        message: `Error: could not find any MachineConfigPool set for ${this.ownerKind} ${name}`,
      });
      return undefined;
    }
    const suffix = chooseSuffix(obj, this.informer.store.list());
    if (obj.metadata.annotations?.[McAnnotations.mcNameSuffix] === undefined) {
      await this.ctx.client
        .resource(this.resource)
        .patch(name, { metadata: { annotations: { [McAnnotations.mcNameSuffix]: suffix } } }, { type: 'merge' });
      return undefined; // the annotation update re-triggers this reconcile
    }
    let wanted: MachineConfig[];
    try {
      const extras = this.kind === 'kubelet' ? await this.kubeletExtras() : {};
      wanted = pools.map((p) => this.build(obj, p.metadata.name ?? '', suffix, extras));
    } catch (e) {
      if (!(e instanceof GeneratedConfigError)) throw e;
      await this.setStatus(obj, { type: 'Failure', status: 'False', message: `Error: ${e.message}` });
      return undefined;
    }
    for (const want of wanted) {
      const existing = this.ctx.informers.machineConfigs.store.get(want.metadata.name ?? '');
      if (existing === undefined)
        await mcClient.create(want).catch((e: unknown) => {
          if (!isAlreadyExists(e)) throw e;
        });
      else if (!semanticEqual(existing.spec, want.spec)) await mcClient.update({ ...existing, spec: want.spec ?? {} });
    }
    const keep = new Set(wanted.map((m) => m.metadata.name));
    for (const mc of this.owned(name))
      if (!keep.has(mc.metadata.name))
        await mcClient.delete(mc.metadata.name ?? '').catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
    await this.setStatus(obj, { type: 'Success', status: 'True', message: 'Success' });
    return undefined;
  }

  private selectedPools(obj: SubConfig): MachineConfigPool[] {
    const sel = obj.spec.machineConfigPoolSelector;
    if (sel === undefined) return [];
    const m = compileLabelSelector(sel);
    return this.ctx.informers.pools.store
      .list()
      .filter((p) => m.matches(p.metadata.labels))
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  }

  /**
   * What syncKubeletConfig reads besides the KubeletConfig: the FeatureGate's gates of the release the ControllerConfig
   * was rendered for, and the worker latency profile of `nodes.config.openshift.io/cluster` (each absent → none).
   */
  private async kubeletExtras(): Promise<KubeletExtras> {
    const cc = this.ctx.informers.controllerConfigs.store.get('machine-config-controller');
    const version = cc?.metadata.annotations?.[McAnnotations.releaseImageVersion] ?? '';
    // the Manager's shared informers (the feature handler watches the same FeatureGate), as upstream's listers
    const features = featureGateMap((await clusterSingleton(this.ctx, FeatureGates))?.status, version);
    const latency = (await clusterSingleton(this.ctx, NodeConfigs))?.spec?.workerLatencyProfile;
    return { ...(features ? { features } : {}), ...(latency !== undefined ? { workerLatencyProfile: latency } : {}) };
  }

  private build(obj: SubConfig, pool: string, suffix: string, extras: KubeletExtras = {}): MachineConfig {
    const owner = { name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
    const name = generatedName(pool, this.kind, suffix);
    if (this.kind === 'kubelet') {
      const spec: KubeletConfig['spec'] =
        'kubeletConfig' in obj.spec || !('containerRuntimeConfig' in obj.spec) ? obj.spec : {};
      return kubeletMachineConfig({
        name,
        pool,
        owner,
        spec: {
          ...(spec.kubeletConfig !== undefined ? { kubeletConfig: spec.kubeletConfig } : {}),
          ...(spec.logLevel !== undefined ? { logLevel: spec.logLevel } : {}),
          ...(spec.autoSizingReserved !== undefined ? { autoSizingReserved: spec.autoSizingReserved } : {}),
          ...(spec.tlsSecurityProfile !== undefined ? { tlsSecurityProfile: spec.tlsSecurityProfile } : {}),
        },
        baseKubeletConf: baseKubeletConf(pool, (n) => this.ctx.informers.machineConfigs.store.get(n)),
        ...extras,
        controllerVersion: this.controllerVersion,
      });
    }
    return containerRuntimeMachineConfig({
      name,
      pool,
      owner,
      spec: { containerRuntimeConfig: { ...(obj as ContainerRuntimeConfig).spec.containerRuntimeConfig } },
      controllerVersion: this.controllerVersion,
    });
  }

  private async setStatus(obj: SubConfig, cond: Condition): Promise<void> {
    const prev = obj.status?.conditions ?? [];
    const last = prev[prev.length - 1];
    if (
      obj.status?.observedGeneration === obj.metadata.generation &&
      last?.type === cond.type &&
      last.status === cond.status &&
      last.message === cond.message
    )
      return;
    const conditions = [
      ...prev.filter((c) => c.type !== cond.type),
      { ...cond, lastTransitionTime: new Date(this.ctx.now()).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    ];
    try {
      await this.ctx.client
        .resource(this.resource)
        .updateStatus({ ...obj, status: { observedGeneration: obj.metadata.generation ?? 0, conditions } });
    } catch (e) {
      if (!isConflict(e)) throw e;
      this.controller.queue.addAfter(obj.metadata.name ?? '', 100);
    }
  }
}
