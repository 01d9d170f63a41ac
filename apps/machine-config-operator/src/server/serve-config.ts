/**
 * What the machine-config-server hands a booting machine for a pool (cluster_server.go GetConfig + server.go
 * appenders): the rendered config's Ignition as 3.5 with kernel arguments migrated for < 3.3, the kubelet and
 * cloud CA bundles from the ControllerConfig, then appended node-annotations.json, the kubeconfig, the whole MC
 * and the encapsulated MC; finally converted to the requested spec version.
 */
import { convertIgnition, parseAndConvertConfig, type IgnitionConfigV3, type SpecVersion } from '@keelson/ignition';
import type { MachineConfig } from '@keelson/api';
import { encodeDataUrl } from '../daemon/dataurl.js';
import {
  ENCAPSULATED_CONFIG_PATH,
  MC_CONTENT_PATH,
  NODE_ANNOTATIONS_PATH,
  KUBECONFIG_PATH,
} from '../daemon/constants.js';

/** A config cannot be served (→ HTTP 500). */
export class ServeConfigError extends Error {
  readonly code = 'MCS_SERVE';
  constructor(message: string) {
    super(message);
    this.name = 'ServeConfigError';
  }
}

/** Inputs of {@link buildServedConfig}. */
export interface ServeInputs {
  /** Rendered MachineConfig to serve. */
  readonly mc: MachineConfig;
  /** Requested Ignition version (full, e.g. 3.4.0). */
  readonly version: string;
  /** ControllerConfig spec.kubeAPIServerServingCAData (base64, as in the API). */
  readonly kubeAPIServerServingCAData?: string | undefined;
  /** ControllerConfig spec.cloudProviderCAData (base64). */
  readonly cloudProviderCAData?: string | undefined;
  /** Bootstrap kubeconfig text (absent: not appended). */
  readonly kubeconfig?: string | undefined;
}

const CA_BUNDLE_PATH = '/etc/kubernetes/kubelet-ca.crt';
const CLOUD_CA_PATH = '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem';

function appendFile(cfg: IgnitionConfigV3, path: string, contents: string): void {
  const storage = (cfg.storage ??= {});
  const files = (storage.files ??= []);
  files.push({ path, overwrite: true, contents: { source: encodeDataUrl(contents) }, mode: 420 });
}

function addDataAndMaybeAppend(cfg: IgnitionConfigV3, path: string, base64: string | undefined): void {
  const data = base64 ? Buffer.from(base64, 'base64').toString('utf8') : '';
  const existing = (cfg.storage?.files ?? []).find((f) => f.path === path);
  if (existing) {
    if (data !== '') existing.contents = { ...(existing.contents ?? {}), source: encodeDataUrl(data) };
    return;
  }
  if (data !== '') appendFile(cfg, path, data);
}

const lessThan33 = (v: string): boolean => {
  const [maj = 0, min = 0] = v.split('.').map(Number);
  return maj < 3 || (maj === 3 && min < 3);
};

/** Builds the served config body (JSON text). */
export function buildServedConfig(inp: ServeInputs): string {
  const mc: MachineConfig = structuredClone(inp.mc);
  const name = mc.metadata.name ?? '';
  let cfg: IgnitionConfigV3;
  try {
    const raw = mc.spec?.config;
    cfg = parseAndConvertConfig(raw === undefined || raw === null ? '' : JSON.stringify(raw));
  } catch (e) {
    throw new ServeConfigError(`parsing Ignition config failed with error: ${(e as Error).message}`);
  }
  if (lessThan33(inp.version)) {
    if ((cfg.kernelArguments?.shouldNotExist ?? []).length > 0) {
      throw new ServeConfigError(
        `failed to migrate kernel args can't serve version ${inp.version} with ignition KernelArguments.ShouldNotExist populated`,
      );
    }
    mc.spec = {
      ...mc.spec,
      kernelArguments: [...(mc.spec?.kernelArguments ?? []), ...(cfg.kernelArguments?.shouldExist ?? [])],
    };
    delete cfg.kernelArguments;
  }
  addDataAndMaybeAppend(cfg, CA_BUNDLE_PATH, inp.kubeAPIServerServingCAData);
  addDataAndMaybeAppend(cfg, CLOUD_CA_PATH, inp.cloudProviderCAData);
  const annotations = {
    'machineconfiguration.openshift.io/currentConfig': name,
    'machineconfiguration.openshift.io/desiredConfig': name,
    'machineconfiguration.openshift.io/firstPivotConfig': name,
    'machineconfiguration.openshift.io/state': 'Done',
  };
  appendFile(cfg, NODE_ANNOTATIONS_PATH, JSON.stringify(sortKeys(annotations)));
  if (inp.kubeconfig !== undefined) appendFile(cfg, KUBECONFIG_PATH, inp.kubeconfig);
  appendFile(cfg, MC_CONTENT_PATH, JSON.stringify(mc, null, 4));
  let emptyCfg: unknown = { ignition: { version: '3.5.0' } };
  try {
    emptyCfg = convertIgnition(emptyCfg as IgnitionConfigV3, '3.5.0', inp.version as SpecVersion);
  } catch (e) {
    throw new ServeConfigError(`error converting empty config to ${inp.version}: ${(e as Error).message}`);
  }
  appendFile(cfg, ENCAPSULATED_CONFIG_PATH, JSON.stringify({ ...mc, spec: { ...mc.spec, config: emptyCfg } }));
  let out;
  try {
    out = convertIgnition(cfg, '3.5.0', inp.version as SpecVersion);
  } catch (e) {
    throw new ServeConfigError(`couldn't convert config to ${inp.version}: ${(e as Error).message}`);
  }
  return JSON.stringify(out);
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Cache of served bodies per (pool, rendered name, version, inputs revision), bounded, entries refreshed after
 * `ttlMs`. The key starts with the pool name and a NUL (see {@link servedConfigKey}) so that a pool's entries can be
 * dropped when the config it serves changes.
 */
export class ServedConfigCache {
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #map = new Map<string, { body: Buffer; at: number }>();
  hits = 0;
  misses = 0;
  constructor(max = 256, ttlMs = 60_000) {
    this.#max = max;
    this.#ttlMs = ttlMs;
  }
  /** The cached body when present and fresh (counts a hit), else undefined. */
  peek(key: string): Buffer | undefined {
    const hit = this.#map.get(key);
    if (hit === undefined || Date.now() - hit.at >= this.#ttlMs) return undefined;
    this.hits++;
    return hit.body;
  }
  /** The cached body or the built one (the kubeconfig token may rotate: entries live `ttlMs`). */
  async get(key: string, build: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    this.misses++;
    const body = await build();
    this.#map.delete(key);
    if (this.#map.size >= this.#max) {
      const first = this.#map.keys().next();
      if (first.done !== true) this.#map.delete(first.value);
    }
    this.#map.set(key, { body, at: Date.now() });
    return body;
  }
  /** Drops the entries of one pool (its served config changed). */
  dropPool(pool: string): void {
    const prefix = `${pool}\u0000`;
    for (const k of [...this.#map.keys()]) if (k.startsWith(prefix)) this.#map.delete(k);
  }
  /** Drops every entry (an input shared by all pools changed). */
  clear(): void {
    this.#map.clear();
  }
  /** Number of cached bodies. */
  get size(): number {
    return this.#map.size;
  }
}

/** Cache key of a served body: pool, rendered config name, Ignition version and the revision of the other inputs. */
export function servedConfigKey(pool: string, renderedName: string, version: string, revision: string): string {
  return `${pool}\u0000${renderedName}\u0000${version}\u0000${revision}`;
}
