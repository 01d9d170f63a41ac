/**
 * The daemon's certificate writer (openshift/machine-config-operator pkg/daemon/certificate_writer.go,
 * `syncControllerConfigHandler` / `syncInternalRegistryPullSecrets` / `writeToDisk`): whenever ControllerConfig
 * `machine-config-controller` has a resourceVersion the node has not synced yet
 * (`machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion`), the CA bundles and the internal
 * registry pull secret it carries are written to the host at once — no MachineConfig, no drain, no reboot:
 * - `/etc/kubernetes/kubelet-ca.crt` ← `spec.kubeAPIServerServingCAData`;
 * - `/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem` ← `spec.cloudProviderCAData`;
 * - `/etc/mco/internal-registry-pull-secret.json` ← `spec.internalRegistryPullSecret`;
 * - `/etc/docker/certs.d/<file>/ca.crt` for every `imageRegistryBundleData` and `imageRegistryBundleUserData` entry
 *   (`..` in the name stands for `:`), and directories of registries no longer listed removed — only when
 *   `/etc/docker/certs.d` exists, as upstream.
 * With `machineconfiguration.openshift.io/service-ca-rotate: "true"` on the ControllerConfig and not yet observed by
 * the node, `/etc/kubernetes/kubeconfig` takes the CA of ConfigMap `kubeconfig-data` and the kubelet may be restarted
 * (kubeconfig-ca.ts). Then the node is annotated with the synced resourceVersion (and the observed rotate value).
 */
import { promises as fs } from 'node:fs';
import { ConfigMaps, Informer, ControllerConfigs, nullLogger, type KubeClient, type Logger } from '@keelson/kube';
import type { ControllerConfig } from '@keelson/api';
import type { HostRoot } from './root.js';
import { atomicWrite } from './writer.js';
import type { NodeSource, NodeWriter } from './cluster.js';
import { INTERNAL_REGISTRY_AUTH_FILE } from './pull-secret.js';
import { KUBECONFIG_PATH } from './constants.js';
import type { Host } from './host.js';
import {
  KUBECONFIG_DATA,
  SERVER_CA_SYNC_ANNOTATION,
  SERVICE_CA_ROTATE_ANNOTATION,
  cmToData,
  planKubeconfigCa,
  restartKubeletWithCa,
} from './kubeconfig-ca.js';

export const CONTROLLER_CONFIG_RV_ANNOTATION =
  'machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion';
export const KUBELET_CA_PATH = '/etc/kubernetes/kubelet-ca.crt';
export const CLOUD_CA_PATH = '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem';
export const IMAGE_CA_DIR = '/etc/docker/certs.d';
const CONTROLLER_CONFIG_NAME = 'machine-config-controller';

/** A registry CA entry whose `file` cannot be a directory name under /etc/docker/certs.d. */
export class RegistryBundleNameError extends Error {
  readonly code = 'MCD_REGISTRY_BUNDLE_NAME';
  constructor(
    readonly field: string,
    readonly file: string,
  ) {
    super(`ControllerConfig spec.${field}: file ${JSON.stringify(file)} is not a registry name (no "/", not empty)`);
    this.name = 'RegistryBundleNameError';
  }
}

/** What one pass changed on disk. */
export interface CertificateWriteResult {
  readonly written: string[];
  readonly removed: string[];
}

const decode = (b64: string | null | undefined): Buffer => Buffer.from(b64 ?? '', 'base64');

/** Upstream writeToDisk: a trailing newline added, the existing file's mode kept; unchanged content is not rewritten. */
async function writeHostFile(root: HostRoot, path: string, data: Buffer, out: string[]): Promise<void> {
  const body = data.length > 0 && data[data.length - 1] === 0x0a ? data : Buffer.concat([data, Buffer.from('\n')]);
  const real = root.resolve(path);
  let mode = 0o644;
  try {
    const [st, have] = await Promise.all([fs.stat(real), fs.readFile(real)]);
    if (have.equals(body)) return;
    mode = st.mode & 0o7777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  // not a crash-test kill point: those count the update path's writes
  await atomicWrite(real, body, { mode, killPoint: false });
  out.push(path);
}

function registryEntries(cc: ControllerConfig): Array<{ dir: string; data: Buffer }> {
  const out: Array<{ dir: string; data: Buffer }> = [];
  const fields = ['imageRegistryBundleData', 'imageRegistryBundleUserData'] as const;
  for (const field of fields) {
    for (const b of cc.spec[field] ?? []) {
      const dir = b.file.replaceAll('..', ':');
      if (dir === '' || dir.includes('/') || dir === '.' || b.file.includes('\0'))
        throw new RegistryBundleNameError(field, b.file);
      out.push({ dir, data: decode(b.data) });
    }
  }
  return out;
}

async function syncRegistryCAs(root: HostRoot, cc: ControllerConfig, res: CertificateWriteResult): Promise<void> {
  const entries = registryEntries(cc);
  const base = root.resolve(IMAGE_CA_DIR);
  let present;
  try {
    present = await fs.readdir(base, { withFileTypes: true });
  } catch {
    return; // upstream: "/etc/docker/certs.d does not exist yet", nothing written
  }
  // a directory is kept when an entry names it (upstream compares the raw name; the on-disk name is compared here
  // too so that "host..5000" → "host:5000" is not removed and rewritten on every sync)
  const keep = new Set(entries.map((e) => e.dir));
  for (const d of present) {
    if (!d.isDirectory() || keep.has(d.name)) continue;
    await fs.rm(`${base}/${d.name}`, { recursive: true, force: true });
    res.removed.push(`${IMAGE_CA_DIR}/${d.name}`);
  }
  for (const e of entries) await writeHostFile(root, `${IMAGE_CA_DIR}/${e.dir}/ca.crt`, e.data, res.written);
}

/**
 * Writes the certificates and the internal registry pull secret of `cc` under `root` (and `extra` files, the rotated
 * kubeconfig, the same way).
 */
export async function writeControllerConfigCertificates(
  root: HostRoot,
  cc: ControllerConfig,
  extra: ReadonlyMap<string, Buffer> = new Map(),
): Promise<CertificateWriteResult> {
  const res: CertificateWriteResult = { written: [], removed: [] };
  registryEntries(cc); // validate before anything is written
  await writeHostFile(root, INTERNAL_REGISTRY_AUTH_FILE, decode(cc.spec.internalRegistryPullSecret), res.written);
  await writeHostFile(root, KUBELET_CA_PATH, decode(cc.spec.kubeAPIServerServingCAData), res.written);
  await writeHostFile(root, CLOUD_CA_PATH, decode(cc.spec.cloudProviderCAData), res.written);
  for (const [path, data] of extra) await writeHostFile(root, path, data, res.written);
  await syncRegistryCAs(root, cc, res);
  return res;
}

/** Options of {@link CertificateSync}. */
export interface CertificateSyncOptions {
  readonly client: KubeClient;
  readonly root: HostRoot;
  readonly node: NodeSource;
  readonly writer: NodeWriter;
  readonly logger?: Logger;
  /** Runs `systemctl` for the kubelet restart of a server-CA rotation (default: none, the restart is skipped). */
  readonly host?: Host;
  /**
   * A shared ControllerConfig informer (many virtual nodes, one watch) started and stopped by its owner; default: this
   * writer's own watch of `machine-config-controller`.
   */
  readonly controllerConfigs?: Informer<ControllerConfig>;
  /** First retry delay after a failure (doubles up to {@link CertificateSyncOptions.maxRetryMs}); default 1 s. */
  readonly retryMs?: number;
  /** Longest retry delay (upstream's controller-config requeue is 1 min). Default 60 s. */
  readonly maxRetryMs?: number;
}

/**
 * Follows ControllerConfig `machine-config-controller` (a watch) and the node; writes the certificates when the node's
 * synced resourceVersion differs from the ControllerConfig's. One pass at a time; failures retried with backoff.
 */
export class CertificateSync {
  readonly #o: CertificateSyncOptions;
  readonly #log: Logger;
  readonly #cc: Informer<ControllerConfig>;
  readonly #ownInformer: boolean;
  #unsubscribe: (() => void) | undefined;
  #unhandle: (() => void) | undefined;
  #running: Promise<void> = Promise.resolve();
  #again = false;
  #busy = false;
  #retry: NodeJS.Timeout | undefined;
  #delay: number;
  #stopped = false;
  /** resourceVersion this writer last annotated (the node watch may not show our own patch yet). */
  #synced: string | undefined;
  /** The node's annotation before that patch. */
  #before: string | undefined;

  constructor(o: CertificateSyncOptions) {
    this.#o = o;
    this.#log = o.logger ?? nullLogger;
    this.#delay = o.retryMs ?? 1_000;
    this.#ownInformer = o.controllerConfigs === undefined;
    this.#cc =
      o.controllerConfigs ??
      new Informer<ControllerConfig>(o.client, ControllerConfigs, {
        fieldSelector: `metadata.name=${CONTROLLER_CONFIG_NAME}`,
        logger: this.#log,
      });
  }

  start(): void {
    const kick = (): void => {
      this.#kick();
    };
    this.#unhandle = this.#cc.addHandlers({ add: kick, update: kick });
    if (this.#ownInformer) this.#cc.start();
    this.#unsubscribe = this.#o.node.subscribe(() => {
      this.#kick();
    });
    this.#kick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unhandle?.();
    clearTimeout(this.#retry);
    await this.#running;
    if (this.#ownInformer) await this.#cc.stop();
  }

  /** Resolves when no pass is running or queued (tests). */
  async idle(): Promise<void> {
    while (this.#busy) await this.#running;
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    this.#running = this.#loop().finally(() => {
      this.#busy = false;
    });
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.syncOnce();
        this.#delay = this.#o.retryMs ?? 1_000;
      } catch (e) {
        this.#log.error('error syncing ControllerConfig certificates', { err: (e as Error).message });
        clearTimeout(this.#retry);
        this.#retry = setTimeout(() => {
          this.#kick();
        }, this.#delay);
        this.#delay = Math.min(this.#delay * 2, this.#o.maxRetryMs ?? 60_000);
        return;
      }
    } while (this.#again && !this.#stopped);
  }

  /** One pass; returns whether anything was written. */
  async syncOnce(): Promise<boolean> {
    const node = this.#o.node.current();
    const cc = this.#cc.store.get(CONTROLLER_CONFIG_NAME);
    const rv = cc?.metadata.resourceVersion;
    if (node === undefined || cc === undefined || rv === undefined) return false;
    const onNode = node.metadata.annotations?.[CONTROLLER_CONFIG_RV_ANNOTATION];
    // upstream compares the node's observed rotate value with the ControllerConfig's ("" when absent)
    const rotate = cc.metadata.annotations?.[SERVICE_CA_ROTATE_ANNOTATION] ?? '';
    const observed = node.metadata.annotations?.[SERVER_CA_SYNC_ANNOTATION] ?? '';
    const key = `${rv}/${rotate}`;
    if (onNode === rv && observed === rotate) return false;
    if (this.#synced === key && `${onNode ?? ''}/${observed}` === this.#before) return false;
    const rotation = rotate === 'true' && observed !== rotate ? await this.#kubeconfigRotation() : undefined;
    const extra = new Map(rotation?.kubeconfig ? [[KUBECONFIG_PATH, rotation.kubeconfig]] : []);
    const res = await writeControllerConfigCertificates(this.#o.root, cc, extra);
    await this.#o.writer.setAnnotations({
      [CONTROLLER_CONFIG_RV_ANNOTATION]: rv,
      ...(observed !== rotate ? { [SERVER_CA_SYNC_ANNOTATION]: rotate } : {}),
    });
    this.#synced = key;
    this.#before = `${onNode ?? ''}/${observed}`;
    this.#log.info(`Certificate was synced from controllerconfig resourceVersion ${rv}`, {
      written: res.written,
      removed: res.removed,
    });
    if (rotation?.restartKubelet && this.#o.host) {
      const root = this.#o.root;
      await restartKubeletWithCa(
        this.#o.host,
        (p) => root.resolve(p),
        rotation.ca,
        (p, d) => writeHostFile(root, p, d, res.written),
        this.#log,
      );
    }
    return true;
  }

  /** The kubeconfig part of a server-CA rotation; undefined when the ConfigMap cannot be used (logged, as upstream). */
  async #kubeconfigRotation(): Promise<ReturnType<typeof planKubeconfigCa> | undefined> {
    let data: Buffer;
    try {
      const cm = await this.#o.client.resource(ConfigMaps).get(KUBECONFIG_DATA.name, KUBECONFIG_DATA.namespace);
      try {
        data = cmToData(cm, 'ca-bundle.crt');
      } catch (e) {
        this.#log.error(`kubeconfig-data ConfigMap not populated yet. ${(e as Error).message}`);
        return undefined;
      }
    } catch (e) {
      this.#log.error(`Error retrieving kubeconfig-data. ${(e as Error).message}`);
      return undefined;
    }
    const text = await fs.readFile(this.#o.root.resolve(KUBECONFIG_PATH), 'utf8');
    return planKubeconfigCa(text, data, KUBECONFIG_PATH, this.#log);
  }
}
