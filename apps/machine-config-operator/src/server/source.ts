/**
 * Where the machine-config-server gets pools, MachineConfigs and the ControllerConfig: the cluster (informers on
 * pools, the ControllerConfig and the `kubeconfig-data` ConfigMap; rendered MCs fetched once by name) or, in
 * bootstrap mode, YAML/JSON files under /etc/mcs/bootstrap (bootstrap_server.go).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigMaps,
  ControllerConfigs,
  MachineConfigPools,
  type Informer,
  type KubeObject,
  type Manager,
} from '@keelson/kube';
import { parseAllDocuments } from 'yaml';
import {
  SINGLETON_NAMES,
  MCO_NAMES,
  type ControllerConfig,
  type MachineConfig,
  type MachineConfigPool,
} from '@keelson/api';
import { MachineConfigCache } from '../daemon/cluster.js';
import { ServeConfigError } from './serve-config.js';

/** What a config request resolves to. */
export interface ResolvedConfig {
  readonly mc: MachineConfig;
  readonly controllerConfig: ControllerConfig | undefined;
  /** CA bundle for the kubeconfig from the `kubeconfig-data` ConfigMap, when present. */
  readonly kubeconfigCA: Buffer | undefined;
  /** Changes whenever an input other than the rendered MC changes (cache key part). */
  readonly revision: string;
}

/** A source of served configs. */
export interface ConfigSource {
  /** Resolves pool → rendered MC; throws {@link ServeConfigError} (→ 500). */
  resolve(pool: string): Promise<ResolvedConfig>;
  /** Resolves once the source can answer (cluster: its informers synced). */
  start(): Promise<void>;
  /** Stops listening to changes (the informers themselves belong to the manager). */
  stop(): Promise<void>;
}

/** The rendered config a pool serves: spec.configuration once a node updated, else status.configuration. */
export function servedConfigName(pool: MachineConfigPool): string {
  const updated = pool.status?.updatedMachineCount ?? 0;
  return (updated > 0 ? pool.spec.configuration?.name : pool.status?.configuration?.name) ?? '';
}

type ConfigMap = KubeObject & { data?: Record<string, string>; binaryData?: Record<string, string> };

/** Told when cached bodies go stale (see ServedConfigCache.dropPool / clear). */
export interface ConfigInvalidation {
  /** The config a pool serves changed (or the pool went away). */
  pool(name: string): void;
  /** The ControllerConfig or the kubeconfig CA changed: every body is stale. */
  all(): void;
}

/**
 * Cluster mode: pools, the ControllerConfig and the `kubeconfig-data` ConfigMap read from the shared informers of the
 * process's `@keelson/kube` Manager (started and stopped by it), rendered MachineConfigs fetched once by name.
 */
export class ClusterConfigSource implements ConfigSource {
  readonly #pools: Informer<MachineConfigPool>;
  readonly #ccs: Informer<ControllerConfig>;
  readonly #cms: Informer<ConfigMap>;
  readonly #mcs: MachineConfigCache;
  readonly #unsubscribe: (() => void)[] = [];
  constructor(mgr: Manager, invalidate?: ConfigInvalidation) {
    this.#pools = mgr.informer(MachineConfigPools);
    this.#ccs = mgr.informer(ControllerConfigs, {
      fieldSelector: `metadata.name=${SINGLETON_NAMES.controllerConfig}`,
    });
    this.#cms = mgr.informer<ConfigMap>(ConfigMaps, {
      namespace: MCO_NAMES.namespace,
      fieldSelector: 'metadata.name=kubeconfig-data',
    });
    this.#mcs = new MachineConfigCache(mgr.client);
    if (invalidate) this.#subscribe(invalidate);
  }
  #subscribe(invalidate: ConfigInvalidation): void {
    const pool = (p: MachineConfigPool): void => {
      invalidate.pool(p.metadata.name ?? '');
    };
    this.#unsubscribe.push(
      this.#pools.addHandlers({
        update: (old, cur) => {
          if (servedConfigName(old) !== servedConfigName(cur)) pool(cur);
        },
        delete: pool,
      }),
    );
    const all = (): void => {
      invalidate.all();
    };
    const changed = (old: KubeObject, cur: KubeObject): void => {
      if (old.metadata.resourceVersion !== cur.metadata.resourceVersion) all();
    };
    this.#unsubscribe.push(this.#ccs.addHandlers({ add: all, update: changed, delete: all }));
    this.#unsubscribe.push(this.#cms.addHandlers({ add: all, update: changed, delete: all }));
  }
  async start(signal?: AbortSignal): Promise<void> {
    await Promise.all([this.#pools.waitForSync(signal), this.#ccs.waitForSync(signal), this.#cms.waitForSync(signal)]);
  }
  stop(): Promise<void> {
    for (const u of this.#unsubscribe.splice(0)) u();
    return Promise.resolve();
  }
  async resolve(poolName: string): Promise<ResolvedConfig> {
    const pool = this.#pools.store.get(poolName);
    if (!pool)
      throw new ServeConfigError(
        `could not fetch pool. err: machineconfigpool.machineconfiguration.openshift.io "${poolName}" not found`,
      );
    const name = servedConfigName(pool);
    let mc: MachineConfig;
    try {
      mc = await this.#mcs.get(name);
    } catch (e) {
      throw new ServeConfigError(`could not fetch config ${name}, err: ${(e as Error).message}`);
    }
    const cc = this.#ccs.store.get(SINGLETON_NAMES.controllerConfig);
    if (!cc)
      throw new ServeConfigError(
        `could not get controllerconfig: controllerconfig.machineconfiguration.openshift.io "${SINGLETON_NAMES.controllerConfig}" not found`,
      );
    const cm = this.#cms.store.get('kubeconfig-data', MCO_NAMES.namespace);
    const b64 = cm?.binaryData?.['ca-bundle.crt'];
    const kubeconfigCA =
      b64 !== undefined
        ? Buffer.from(b64, 'base64')
        : cm?.data?.['ca-bundle.crt'] !== undefined
          ? Buffer.from(cm.data['ca-bundle.crt'])
          : undefined;
    return {
      mc,
      controllerConfig: cc,
      kubeconfigCA,
      revision: `${cc.metadata.resourceVersion ?? ''}/${cm?.metadata.resourceVersion ?? ''}`,
    };
  }
}

async function readObjects(dir: string): Promise<KubeObject[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (e) {
    throw new ServeConfigError(`bootstrap: cannot read ${dir}: ${(e as Error).message}`);
  }
  const out: KubeObject[] = [];
  for (const n of names) {
    if (!/\.(ya?ml|json)$/.test(n)) continue;
    const text = await readFile(join(dir, n), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      const v = doc.toJSON() as unknown;
      if (v && typeof v === 'object') out.push(v as KubeObject);
    }
  }
  return out;
}

/** Bootstrap mode: only `master` and `arbiter`, from files. */
export class BootstrapConfigSource implements ConfigSource {
  readonly #dir: string;
  constructor(dir = '/etc/mcs/bootstrap') {
    this.#dir = dir;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  async resolve(poolName: string): Promise<ResolvedConfig> {
    if (poolName !== 'master' && poolName !== 'arbiter')
      throw new ServeConfigError(`refusing to serve bootstrap configuration to pool "${poolName}"`);
    const pools = (await readObjects(join(this.#dir, 'machine-pools'))) as MachineConfigPool[];
    const pool = pools.find((p) => p.metadata.name === poolName);
    if (!pool) throw new ServeConfigError(`could not fetch pool ${poolName} from ${join(this.#dir, 'machine-pools')}`);
    const name = pool.status?.configuration?.name ?? '';
    const mcs = (await readObjects(join(this.#dir, 'machine-configs'))) as MachineConfig[];
    const mc = mcs.find((m) => m.metadata.name === name);
    if (!mc) throw new ServeConfigError(`could not fetch config ${name} from ${join(this.#dir, 'machine-configs')}`);
    const ccs = (await readObjects(join(this.#dir, 'controller-config'))) as ControllerConfig[];
    return { mc, controllerConfig: ccs[0], kubeconfigCA: undefined, revision: `bootstrap/${name}` };
  }
}
