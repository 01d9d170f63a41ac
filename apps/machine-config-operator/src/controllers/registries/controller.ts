/**
 * The image half of the container-runtime-config controller (machine-config-operator
 * `pkg/controller/container-runtime-config/container_runtime_config_controller.go` `syncImageConfig`): the cluster's
 * `image.config.openshift.io/cluster`, ImageDigestMirrorSets, ImageTagMirrorSets and ImageContentSourcePolicies become
 * one `99-<pool>-generated-registries` MachineConfig per MCO built-in pool (registries.conf, policy.json, the
 * search-registries drop-in), written only when its config or controller version differ. One key,
 * `openshift-config`, as upstream's image queue.
 */
import {
  defineResource,
  type Informer,
  isAlreadyExists,
  isNotFound,
  MachineConfigs,
  ClusterVersions,
  Controller,
  type KubeObject,
  type ReconcileResult,
  type ResourceDescriptor,
} from '@keelson/kube';
import type { ClusterVersion } from '@keelson/api';
import type { MachineConfig, MachineConfigPool } from '../../common/api-types.js';
import { Labels, McAnnotations } from '../../common/constants.js';
import {
  generateMachineConfigsForRole,
  loadTemplateTree,
  semanticEqual,
  type TemplateTree,
} from '@keelson/machineconfig';
import { informerOf, type ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import {
  deprecatedRegistriesMcName,
  originalFiles,
  registriesFiles,
  registriesIgnition,
  registriesMachineConfig,
  registriesMcName,
  type RegistrySources,
} from '@keelson/machineconfig';
import type { MirrorRule } from '@keelson/machineconfig';

/** `config.openshift.io/v1` Image (the `cluster` singleton). */
export interface ImageConfig extends KubeObject {
  spec?: { registrySources?: RegistrySources; additionalTrustedCA?: { name?: string } };
}
/** `config.openshift.io/v1` ImageDigestMirrorSet. */
export interface ImageDigestMirrorSet extends KubeObject {
  spec?: { imageDigestMirrors?: MirrorRule[] | null };
}
/** `config.openshift.io/v1` ImageTagMirrorSet. */
export interface ImageTagMirrorSet extends KubeObject {
  spec?: { imageTagMirrors?: MirrorRule[] | null };
}
/** `operator.openshift.io/v1alpha1` ImageContentSourcePolicy. */
export interface ImageContentSourcePolicy extends KubeObject {
  spec?: { repositoryDigestMirrors?: MirrorRule[] | null };
}

const cluster = (kind: string, plural: string, group = 'config.openshift.io', version = 'v1') =>
  ({ group, version, kind, plural, namespaced: false }) as const;
export const ImageConfigs = defineResource<ImageConfig>(cluster('Image', 'images'));
export const ImageDigestMirrorSets = defineResource<ImageDigestMirrorSet>(
  cluster('ImageDigestMirrorSet', 'imagedigestmirrorsets'),
);
export const ImageTagMirrorSets = defineResource<ImageTagMirrorSet>(cluster('ImageTagMirrorSet', 'imagetagmirrorsets'));
export const ImageContentSourcePolicies = defineResource<ImageContentSourcePolicy>(
  cluster('ImageContentSourcePolicy', 'imagecontentsourcepolicies', 'operator.openshift.io', 'v1alpha1'),
);

/** upstream's image queue key. */
export const IMAGE_QUEUE_KEY = 'openshift-config';

/** Writes `99-<pool>-generated-registries` from the cluster's image and mirror configuration. */
export class RegistriesController {
  readonly controller: Controller;
  private readonly images: Informer<ImageConfig>;
  private readonly idms: Informer<ImageDigestMirrorSet>;
  private readonly itms: Informer<ImageTagMirrorSet>;
  private readonly icsp: Informer<ImageContentSourcePolicy>;
  private readonly versions: Informer<ClusterVersion>;
  /** Every informer this controller waits for. */
  private readonly watched: Array<Informer<KubeObject>>;
  /** Those it started itself and stops. */
  private readonly own: Array<Informer<KubeObject>>;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly abort = new AbortController();
  private tree: TemplateTree | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly templatesDir: string,
    private readonly controllerVersion: string,
  ) {
    // the Manager's shared informers when there is one (stopped by it), else informers of this controller
    const made: Array<{ informer: Informer<KubeObject>; owned: boolean }> = [];
    const mk = <T extends KubeObject>(d: ResourceDescriptor<T>): Informer<T> => {
      const i = informerOf(ctx, d);
      made.push({ informer: i.informer, owned: i.owned });
      return i.informer;
    };
    this.images = mk(ImageConfigs);
    this.idms = mk(ImageDigestMirrorSets);
    this.itms = mk(ImageTagMirrorSets);
    this.icsp = mk(ImageContentSourcePolicies);
    this.versions = mk(ClusterVersions);
    this.watched = made.map((i) => i.informer);
    this.own = made.filter((i) => i.owned).map((i) => i.informer);
    this.controller = new Controller({
      name: 'containerruntimeconfig-image',
      reconcile: () => this.sync(),
      registry: ctx.registry,
      logger: ctx.logger,
    });
    const key = (): string[] => [IMAGE_QUEUE_KEY];
    for (const inf of [this.images, this.idms, this.itms, this.icsp] as Array<Informer<KubeObject>>)
      this.unsubscribe.push(watchDelayed(this.controller, inf, key, 0));
    this.unsubscribe.push(
      watchDelayed(this.controller, this.versions, key, 0, (o, n) => desiredImage(o) !== desiredImage(n)),
      watchDelayed(this.controller, ctx.informers.controllerConfigs, key, 0, (o, n) => !semanticEqual(o.spec, n.spec)),
      watchDelayed(
        this.controller,
        ctx.informers.pools,
        key,
        0,
        (o, n) => !semanticEqual(o.metadata.labels, n.metadata.labels),
      ),
    );
  }

  /** Starts its informers, waits for their caches (and the shared ones), then reconciles. */
  async run(): Promise<void> {
    for (const i of this.watched) i.start();
    try {
      await Promise.all(this.watched.map((i) => i.waitForSync(this.abort.signal)));
    } catch {
      return; // stopped before the caches synced (e.g. CRDs not served yet)
    }
    this.controller.enqueue(IMAGE_QUEUE_KEY);
    await this.controller.run();
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('registries controller stopped'));
    for (const u of this.unsubscribe.splice(0)) u();
    await this.controller.stop();
    await Promise.all(this.own.map((i) => i.stop()));
  }

  private templates(): TemplateTree {
    return (this.tree ??= loadTemplateTree(this.templatesDir));
  }

  /** syncImageConfig. */
  async sync(): Promise<ReconcileResult | undefined> {
    const img = this.images.store.get('cluster');
    if (!img) {
      this.ctx.logger.info("ImageConfig 'cluster' does not exist or has been deleted");
      return undefined;
    }
    const cv = this.versions.store.get('version');
    if (!cv) {
      this.ctx.logger.info("ClusterVersionConfig 'version' does not exist or has been deleted");
      return undefined;
    }
    const cc = this.ctx.informers.controllerConfigs.store.get('machine-config-controller');
    if (!cc)
      throw new Error(
        'could not get ControllerConfig controllerconfig.machineconfiguration.openshift.io "machine-config-controller" not found',
      );
    const mirrors = { idms: this.idms.store.list(), itms: this.itms.store.list(), icsp: this.icsp.store.list() };
    const inputs = { releaseImage: desiredImage(cv), registrySources: img.spec?.registrySources ?? {}, mirrors };
    const pools = this.ctx.informers.pools.store
      .list()
      .filter((p) => p.metadata.labels?.[Labels.mcoBuiltIn] === '')
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    for (const pool of pools) {
      const role = pool.metadata.name ?? '';
      const orig = originalFiles(generateMachineConfigsForRole(this.templates(), cc.spec, role));
      const files = registriesFiles(orig, inputs, (m) => {
        this.ctx.logger.info(m);
      });
      const want = registriesMachineConfig({
        pool: role,
        config: registriesIgnition(files),
        owner: { name: img.metadata.name ?? '', uid: img.metadata.uid ?? '' },
        controllerVersion: this.controllerVersion,
      });
      if (await this.apply(pool, want))
        this.ctx.logger.info(`Applied ImageConfig cluster on MachineConfigPool ${role}`);
    }
    return undefined;
  }

  /** getManagedKeyReg's migration, then syncIgnitionConfig. Returns true when it wrote. */
  private async apply(pool: MachineConfigPool, want: MachineConfig): Promise<boolean> {
    const mcs = this.ctx.client.resource(MachineConfigs);
    const name = want.metadata.name ?? registriesMcName(pool.metadata.name ?? '');
    let existing = await getOrUndefined(() => mcs.get(name));
    if (!existing) {
      const old = await getOrUndefined(() =>
        mcs.get(deprecatedRegistriesMcName(pool.metadata.name ?? '', pool.metadata.uid ?? '')),
      );
      if (old) {
        const migrated = { ...want, spec: { osImageURL: '', config: old.spec?.config ?? {} } } as MachineConfig;
        delete migrated.metadata.annotations;
        delete migrated.metadata.ownerReferences;
        existing = await mcs.create(migrated);
        await mcs.delete(old.metadata.name ?? '').catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
      }
    }
    if (!existing) {
      await mcs.create(want).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
        this.controller.enqueue(IMAGE_QUEUE_KEY);
      });
      return true;
    }
    const sameConfig = semanticEqual(existing.spec?.config, want.spec?.config);
    if (
      sameConfig &&
      existing.metadata.annotations?.[McAnnotations.generatedByControllerVersion] === this.controllerVersion
    )
      return false;
    await mcs.update({
      ...existing,
      metadata: {
        ...existing.metadata,
        annotations: { [McAnnotations.generatedByControllerVersion]: this.controllerVersion },
        ownerReferences: want.metadata.ownerReferences ?? [],
      },
      spec: { ...existing.spec, config: want.spec?.config ?? {} },
    });
    return true;
  }
}

const desiredImage = (cv: ClusterVersion): string =>
  (cv.status as { desired?: { image?: string } } | undefined)?.desired?.image ?? '';

async function getOrUndefined<T>(f: () => Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
