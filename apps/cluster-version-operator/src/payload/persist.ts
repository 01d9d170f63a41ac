/**
 * Verified release signatures written back to the cluster, as upstream's persister (openshift/library-go
 * `pkg/verify/persist.go` `StorePersister.Run`, `pkg/verify/store/configmap/configmap.go` `Store.Store`; started in
 * openshift/cluster-version-operator `pkg/cvo/cvo.go` every 2× the update-check interval): ConfigMap
 * `openshift-config-managed/signatures-managed`, labelled `release.openshift.io/verification-signatures`, binaryData
 * `<algo>-<hex>-<i>` per verified digest (the 64 most recent). The next verification — also after a restart, or when
 * the stores are unreachable — finds them there. Nothing is written when the ConfigMap already holds exactly these.
 */
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type Logger } from '@keelson/kube';
import { SIGNATURES_LABEL } from './verify.js';

export const SIGNATURES_CONFIG_MAP = { namespace: 'openshift-config-managed', name: 'signatures-managed' } as const;
/** library-go `maxSignatureCacheSize`. */
export const MAX_CACHED_DIGESTS = 64;

export interface ConfigMapBody {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; labels?: Record<string, string>; resourceVersion?: string };
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** The verified signatures of recent digests, and their ConfigMap. */
export class SignaturePersister {
  /** digest → signatures (base64), oldest first. */
  private readonly cache = new Map<string, string[]>();

  /** Records the signatures that verified `digest` (library-go `cacheVerification`). */
  record(digest: string, signatures: readonly Uint8Array[]): void {
    if (digest === '' || signatures.length === 0) return;
    this.cache.delete(digest);
    while (this.cache.size >= MAX_CACHED_DIGESTS) {
      const oldest = this.cache.keys().next().value;
      if (oldest === undefined) break;
      this.cache.delete(oldest);
    }
    this.cache.set(
      digest,
      signatures.map((s) => Buffer.from(s).toString('base64')),
    );
  }

  /** The binaryData upstream writes: `sha256-<hex>-<i>`. */
  binaryData(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [digest, sigs] of this.cache) {
      const prefix = digest.replace(':', '-');
      sigs.forEach((s, i) => {
        out[`${prefix}-${i}`] = s;
      });
    }
    return out;
  }

  /**
   * Writes the ConfigMap (create, or replace labels/binaryData/data), retrying conflicts; false when unchanged.
   * `cached` reads the ConfigMap from a watch for the first attempt (undefined: absent), so a periodic store of
   * unchanged signatures costs no request; retries, and callers without a watch, GET it (as library-go's Store).
   */
  async store(client: KubeClient, signal?: AbortSignal, cached?: () => ConfigMapBody | undefined): Promise<boolean> {
    const { namespace, name } = SIGNATURES_CONFIG_MAP;
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const labels = { [SIGNATURES_LABEL]: '' };
    const binaryData = this.binaryData();
    for (let attempt = 1; ; attempt++) {
      try {
        let existing: ConfigMapBody | undefined;
        if (attempt === 1 && cached) existing = cached();
        else
          try {
            existing = await client.request<ConfigMapBody>('GET', `${path}/${name}`, signal ? { signal } : {});
          } catch (e) {
            if (!isNotFound(e)) throw e;
          }
        if (!existing) {
          const body: ConfigMapBody = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels } };
          if (Object.keys(binaryData).length > 0) body.binaryData = binaryData;
          await client.request('POST', path, { body, ...(signal ? { signal } : {}) });
          return true;
        }
        if (sameMap(existing.metadata.labels, labels) && sameMap(existing.binaryData, binaryData) && !existing.data)
          return false;
        const body: ConfigMapBody = { ...existing, metadata: { ...existing.metadata, labels } };
        delete body.data;
        delete body.binaryData;
        if (Object.keys(binaryData).length > 0) body.binaryData = binaryData;
        await client.request('PUT', `${path}/${name}`, { body, ...(signal ? { signal } : {}) });
        return true;
      } catch (e) {
        // client-go retry.DefaultRetry: 5 steps
        if (attempt >= 5 || !(isConflict(e) || isAlreadyExists(e))) throw e;
      }
    }
  }
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b).length && ak.every((k) => a?.[k] === b[k]);
}

/** How {@link runSignaturePersister} runs. */
export interface PersisterRun {
  client: KubeClient;
  log: Logger;
  /** The ConfigMap from the `openshift-config-managed` watch. */
  cached: () => ConfigMapBody | undefined;
  /** Between two stores (upstream: 2× the update-check interval). */
  intervalMs: number;
  /** Sleep that wakes early when aborted. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Leadership: the loop ends with one final store when it aborts. */
  signal: AbortSignal;
}

/**
 * Upstream `StorePersister.Run` (started while leading, every 2× the update-check interval, a final flush when
 * leadership ends): failures are logged, never fatal.
 */
export async function runSignaturePersister(p: SignaturePersister, o: PersisterRun): Promise<void> {
  const once = async (s?: AbortSignal): Promise<void> => {
    try {
      if (await p.store(o.client, s, o.cached)) o.log.debug('signatures-managed ConfigMap written');
    } catch (e) {
      o.log.warn(`Unable to save signatures: ${(e as Error).message}`);
    }
  };
  while (!o.signal.aborted) {
    await once(o.signal);
    await o.sleep(o.intervalMs, o.signal);
  }
  await once();
}
