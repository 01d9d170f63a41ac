/**
 * The kubelet-config controller's feature handler (machine-config-operator
 * `pkg/controller/kubelet-config/kubelet_config_features.go` `syncFeatureHandler`): on every change of the
 * FeatureGate `cluster`, the APIServer `cluster`, the ControllerConfig or the pools, each pool gets
 * `98-<pool>-generated-kubelet` — its kubelet.conf with the feature gates of this release and the APIServer TLS
 * profile. Upstream waits until the FeatureGate reports the running release; so does this controller (nothing is
 * written before). Written only when the config or controller version differ.
 */
import {
  Controller,
  defineResource,
  isAlreadyExists,
  MachineConfigs,
  type Informer,
  type KubeObject,
  type ReconcileResult,
} from '@keelson/kube';
import type { MachineConfig } from '../../common/api-types.js';
import { McAnnotations } from '../../common/constants.js';
import { loadTemplateTree, semanticEqual, type TemplateTree, type TLSSecurityProfile } from '@keelson/machineconfig';
import { clusterSingleton, informerOf, type ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import {
  cgroupKernelArguments,
  featureGateMap,
  nodeConfigMcName,
  featuresIgnition,
  featuresMachineConfig,
  templateKubeletConf,
  type FeatureGateDetails,
} from '@keelson/machineconfig';

/** `config.openshift.io/v1` FeatureGate. */
export interface FeatureGate extends KubeObject {
  spec?: { featureSet?: string };
  status?: { featureGates?: FeatureGateDetails[] | null };
}
type APIServer = KubeObject & { spec?: { tlsSecurityProfile?: TLSSecurityProfile | null } };
type NodeConfig = KubeObject & { spec?: { workerLatencyProfile?: string; cgroupMode?: string } };

const cluster = <T extends KubeObject>(kind: string, plural: string) =>
  defineResource<T>({ group: 'config.openshift.io', version: 'v1', kind, plural, namespaced: false });
/** FeatureGates (`config.openshift.io/v1`). */
export const FeatureGates = cluster<FeatureGate>('FeatureGate', 'featuregates');
/** APIServers (`config.openshift.io/v1`). */
export const APIServers = cluster<APIServer>('APIServer', 'apiservers');
/** Cluster-wide node config `nodes.config.openshift.io`. */
export const NodeConfigs = cluster<NodeConfig>('Node', 'nodes');

/** ControllerConfig annotation naming the release the operator rendered it for. */
const RELEASE_IMAGE_VERSION = 'machineconfiguration.openshift.io/release-image-version';

/** Writes `98-<pool>-generated-kubelet`. */
export class KubeletFeaturesController {
  readonly controller: Controller;
  private readonly gates: Informer<FeatureGate>;
  private readonly nodeConfigs: Informer<NodeConfig>;
  private readonly own: Informer<KubeObject>[];
  private readonly unsubscribe: Array<() => void> = [];
  private readonly abort = new AbortController();
  private tree: TemplateTree | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly templatesDir: string,
    private readonly controllerVersion: string,
    /** The release whose feature gates apply (default: the ControllerConfig's release-image-version). */
    private readonly releaseVersion?: string,
  ) {
    const gates = informerOf(ctx, FeatureGates);
    const nodeConfigs = informerOf(ctx, NodeConfigs);
    this.gates = gates.informer;
    this.nodeConfigs = nodeConfigs.informer;
    // the Manager's shared informers are stopped by the Manager, after the controllers
    this.own = [gates, nodeConfigs].filter((i) => i.owned).map((i) => i.informer as Informer<KubeObject>);
    this.controller = new Controller({
      name: 'kubeletconfig-features',
      reconcile: () => this.sync(),
      registry: ctx.registry,
      logger: ctx.logger,
    });
    const key = (): string[] => ['cluster'];
    this.unsubscribe.push(
      watchDelayed(
        this.controller,
        this.gates,
        key,
        0,
        (o, n) => !semanticEqual(o.status, n.status) || !semanticEqual(o.spec, n.spec),
      ),
      watchDelayed(
        this.controller,
        ctx.informers.controllerConfigs,
        key,
        0,
        (o, n) => !semanticEqual(o.spec, n.spec) || !semanticEqual(o.metadata.annotations, n.metadata.annotations),
      ),
      watchDelayed(this.controller, ctx.informers.pools, key, 0, () => false),
      watchDelayed(this.controller, this.nodeConfigs, key, 0, (o, n) => !semanticEqual(o.spec, n.spec)),
    );
  }

  async run(): Promise<void> {
    this.gates.start();
    this.nodeConfigs.start(); // not awaited: the CRD may be absent; changes only trigger a sync
    try {
      await this.gates.waitForSync(this.abort.signal);
    } catch {
      return;
    }
    this.controller.enqueue('cluster');
    await this.controller.run();
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('kubelet features controller stopped'));
    for (const u of this.unsubscribe.splice(0)) u();
    await this.controller.stop();
    await Promise.all(this.own.map((i) => i.stop()));
  }

  /** syncFeatureHandler. */
  async sync(): Promise<ReconcileResult | undefined> {
    const cc = this.ctx.informers.controllerConfigs.store.get('machine-config-controller');
    if (!cc)
      throw new Error(
        'could not get ControllerConfig: controllerconfig.machineconfiguration.openshift.io "machine-config-controller" not found',
      );
    const version = this.releaseVersion ?? cc.metadata.annotations?.[RELEASE_IMAGE_VERSION] ?? '';
    const features = featureGateMap(this.gates.store.get('cluster')?.status, version);
    if (!features) {
      this.ctx.logger.info(`feature gates of release ${version} not reported by FeatureGate cluster yet; waiting`);
      return undefined;
    }
    const apiServer = await clusterSingleton(this.ctx, APIServers);
    const nodeConfig = await clusterSingleton(this.ctx, NodeConfigs);
    this.tree ??= loadTemplateTree(this.templatesDir);
    for (const pool of this.ctx.informers.pools.store.list()) {
      const role = pool.metadata.name ?? '';
      const base = templateKubeletConf(
        this.tree,
        cc,
        role,
        apiServer ? (apiServer.spec?.tlsSecurityProfile ?? null) : undefined,
      );
      const config = featuresIgnition({
        baseKubeletConf: base,
        role,
        features,
        ...(nodeConfig?.spec?.workerLatencyProfile !== undefined
          ? { workerLatencyProfile: nodeConfig.spec.workerLatencyProfile }
          : {}),
      });
      if (await this.apply(featuresMachineConfig(role, config, this.controllerVersion)))
        this.ctx.logger.info(`Applied FeatureSet cluster on MachineConfigPool ${role}`);
      // syncNodeConfigHandler (kubelet_config_nodes.go): only once nodes.config.openshift.io/cluster exists
      if (nodeConfig) {
        const name = nodeConfigMcName(role);
        const current = this.ctx.informers.machineConfigs.store.get(name)?.spec?.kernelArguments ?? [];
        const want = featuresMachineConfig(role, config, this.controllerVersion, name);
        const kargs = cgroupKernelArguments(role, nodeConfig.spec?.cgroupMode, current);
        if (kargs.length > 0) want.spec = { ...want.spec, kernelArguments: kargs };
        if (await this.apply(want))
          this.ctx.logger.info(`Applied Node configuration ${name} on MachineConfigPool ${role}`);
      }
    }
    return undefined;
  }

  private async apply(want: MachineConfig): Promise<boolean> {
    const mcs = this.ctx.client.resource(MachineConfigs);
    const existing = this.ctx.informers.machineConfigs.store.get(want.metadata.name ?? '');
    if (!existing) {
      await mcs.create(want).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
        this.controller.enqueue('cluster');
      });
      return true;
    }
    if (
      semanticEqual(existing.spec?.config, want.spec?.config) &&
      semanticEqual(existing.spec?.kernelArguments ?? [], want.spec?.kernelArguments ?? []) &&
      existing.metadata.annotations?.[McAnnotations.generatedByControllerVersion] === this.controllerVersion
    )
      return false;
    await mcs.update({
      ...existing,
      metadata: {
        ...existing.metadata,
        annotations: {
          ...existing.metadata.annotations,
          [McAnnotations.generatedByControllerVersion]: this.controllerVersion,
        },
      },
      spec: {
        ...existing.spec,
        config: want.spec?.config ?? {},
        ...(want.spec?.kernelArguments !== undefined ? { kernelArguments: want.spec.kernelArguments } : {}),
      },
    });
    return true;
  }
}
