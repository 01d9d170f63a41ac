/**
 * Target payload retrieval without upstream's privileged hostPath pod: verify the release digest first, then pull the
 * image directly through @keelson/release-payload (registry with the cluster pull secret, OCI layout, archives), and
 * keep the extracted payload in a cache directory keyed by digest; old entries are removed.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, type KubeClient } from '@keelson/kube';
import {
  openPayload,
  readPayloadDirectory,
  loadPayloadFromFiles,
  writePayloadFiles,
  type OpenOptions,
  type ReleasePayload,
} from '@keelson/release-payload';
import { UpdateError } from '@keelson/cluster-version';
import { CvoError } from '../errors.js';
import type { ClusterPullConfig } from './cluster-pull-config.js';
import { retrieveWithPod, RETRIEVE_TIMEOUT_MS, type PodRetrievalOptions } from './pod-retrieval.js';

function clusterPullOptions(c: ClusterPullConfig): Partial<OpenOptions> {
  return {
    mirrors: c.mirrors,
    registryCAs: c.registryCAs,
    ...(c.proxy ? { proxy: c.proxy } : {}),
    ...(c.trustedCA ? { trustedCA: c.trustedCA } : {}),
    ...(c.insecureRegistries ? { insecureRegistries: c.insecureRegistries } : {}),
    ...(c.blockedRegistries ? { blockedRegistries: c.blockedRegistries } : {}),
    ...(c.allowedRegistries ? { allowedRegistries: c.allowedRegistries } : {}),
  };
}

const DIGEST_SUFFIX = /@(sha256:[a-f0-9]{64})$/;

/** The manifest digest in a by-digest pull spec, or undefined for a tag. */
export function digestOf(image: string): string | undefined {
  return DIGEST_SUFFIX.exec(image)?.[1];
}

/** Writes the cluster pull secret (`openshift-config/pull-secret`, `.dockerconfigjson`) to a private file; undefined when absent. */
export async function pullSecretFile(client: KubeClient, dir: string): Promise<string | undefined> {
  let secret: { data?: Record<string, string> };
  try {
    secret = await client.request('GET', '/api/v1/namespaces/openshift-config/secrets/pull-secret');
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const b64 = secret.data?.['.dockerconfigjson'];
  if (b64 === undefined) return undefined;
  const file = join(dir, '.pull-secret.json');
  await mkdir(dir, { recursive: true });
  await writeFile(file, Buffer.from(b64, 'base64'), { mode: 0o600 });
  return file;
}

/** Options of {@link PayloadCache}. */
export interface PayloadCacheOptions {
  dir: string;
  /** Cluster profile for template rendering. */
  clusterProfile?: string;
}

/** A digest-keyed cache of extracted payloads (`<dir>/sha256-<hex>/{manifests,release-manifests}`). */
export class PayloadCache {
  constructor(private readonly opts: PayloadCacheOptions) {}

  private entry(digest: string): string {
    return join(this.opts.dir, digest.replace(':', '-'));
  }

  /** Loads a cached payload, or undefined when not cached (or the entry is incomplete). */
  async get(digest: string, releaseImage: string): Promise<ReleasePayload | undefined> {
    const dir = this.entry(digest);
    if (!(await stat(join(dir, '.complete')).catch(() => null))) return undefined;
    const files = await readPayloadDirectory(dir);
    return loadPayloadFromFiles(files, dir, {
      releaseImage,
      ...(this.opts.clusterProfile ? { clusterProfile: this.opts.clusterProfile } : {}),
    });
  }

  /** Stores a payload atomically (written to a temporary directory, then renamed). */
  async put(digest: string, payload: ReleasePayload): Promise<void> {
    await mkdir(this.opts.dir, { recursive: true });
    const final = this.entry(digest);
    const tmp = `${final}.tmp-${randomBytes(4).toString('hex')}`;
    await writePayloadFiles(payload.files, tmp);
    await writeFile(join(tmp, '.complete'), `${digest}\n`);
    await rm(final, { recursive: true, force: true });
    await rename(tmp, final);
  }

  /** Removes every entry except the digests in `keep` (and stray temporary directories). */
  async clean(keep: ReadonlySet<string>): Promise<string[]> {
    const names = await readdir(this.opts.dir).catch(() => [] as string[]);
    const keepNames = new Set([...keep].map((d) => d.replace(':', '-')));
    const removed: string[] = [];
    for (const n of names) {
      if (keepNames.has(n) || n.startsWith('.')) continue;
      await rm(join(this.opts.dir, n), { recursive: true, force: true });
      removed.push(n);
    }
    return removed;
  }
}

/** Options of {@link pullPayload}. */
export interface PullOptions {
  cache: PayloadCache;
  /** Docker auth file (the pull secret). */
  authFile?: string;
  /** The cluster's mirrors, proxy and registry CAs (see cluster-pull-config.ts). */
  cluster?: ClusterPullConfig;
  /** Blob cache for registry pulls. */
  blobCacheDir?: string;
  clusterProfile?: string;
  signal?: AbortSignal;
}

/**
 * Pulls a release image by digest (registry `host/repo@sha256:…`, `oci:<layout>@sha256:…`, `oci-archive:<tar>@sha256:…`),
 * checks that the pulled manifest digest is the requested one, and caches it. Errors are UpdateErrors with reason
 * `UpdatePayloadRetrievalFailed`.
 */
export async function pullPayload(image: string, opts: PullOptions): Promise<ReleasePayload> {
  const digest = digestOf(image);
  if (digest) {
    const cached = await opts.cache.get(digest, image);
    if (cached) return cached;
  }
  const source = /^(oci|oci-archive|docker-archive):/.test(image) && digest ? image.replace(DIGEST_SUFFIX, '') : image;
  let payload: ReleasePayload;
  try {
    payload = await openPayload(source, {
      releaseImage: image,
      ...(opts.authFile ? { authFile: opts.authFile } : {}),
      ...(opts.blobCacheDir ? { cacheDir: opts.blobCacheDir } : {}),
      ...(opts.clusterProfile ? { clusterProfile: opts.clusterProfile } : {}),
      ...(opts.cluster ? clusterPullOptions(opts.cluster) : {}),
    });
  } catch (e) {
    throw new UpdateError({
      reason: 'UpdatePayloadRetrievalFailed',
      message: `Unable to download and prepare the update: ${(e as Error).message}`,
      cause: e,
    });
  }
  const got = payload.image?.digest;
  if (digest && got !== undefined && got !== digest) {
    throw new UpdateError({
      reason: 'UpdatePayloadRetrievalFailed',
      message: `Unable to download and prepare the update: image ${image} resolved to ${got}, not the requested ${digest}`,
    });
  }
  const key = digest ?? got;
  if (key) await opts.cache.put(key, payload);
  return payload;
}

/** Loads the operator's own payload from `--payload-dir` (upstream `/`: manifests/ + release-manifests/). */
export async function loadLocalPayload(
  dir: string,
  releaseImage: string,
  clusterProfile?: string,
): Promise<ReleasePayload> {
  if (!(await stat(join(dir, 'release-manifests')).catch(() => null))) {
    throw new CvoError(
      'PayloadDir',
      dir,
      `${dir}: release-manifests/ is missing; --payload-dir must point at the root of a release payload (manifests/ and release-manifests/)`,
    );
  }
  const files = await readPayloadDirectory(dir);
  return loadPayloadFromFiles(files, dir, { releaseImage, ...(clusterProfile ? { clusterProfile } : {}) });
}

/** How the operator gets a target release's payload onto its disk (upstream `PayloadRetriever`). */
export interface PayloadRetriever {
  /** `pod` (upstream, in cluster) or `direct` (the registry is read by this process). */
  readonly mode: 'pod' | 'direct';
  /** Retrieves and loads the payload; failures are UpdateErrors `UpdatePayloadRetrievalFailed`. */
  retrieve(update: { image: string; version: string }, signal: AbortSignal): Promise<ReleasePayload>;
  /** Drops cached payloads other than `keep` (digests), where this retriever owns a cache. */
  clean(keep: ReadonlySet<string>): Promise<void>;
}

/** `--payload-retrieval=direct`: pulls from the registry here, with the cluster's mirrors, proxy and CAs. */
export function directRetriever(o: {
  cache: PayloadCache;
  authFileFor: () => Promise<string | undefined>;
  /** The cluster's pull settings, read at each retrieval (undefined: none). */
  pullConfigFor?: (signal: AbortSignal) => Promise<ClusterPullConfig>;
  clusterProfile?: string;
}): PayloadRetriever {
  return {
    mode: 'direct',
    retrieve: async (update, signal) => {
      let cluster: ClusterPullConfig | undefined;
      try {
        cluster = await o.pullConfigFor?.(signal);
      } catch (e) {
        throw new UpdateError({
          reason: 'UpdatePayloadRetrievalFailed',
          message: `Unable to download and prepare the update: ${(e as Error).message}`,
          cause: e,
        });
      }
      const authFile = await o.authFileFor();
      return pullPayload(update.image, {
        cache: o.cache,
        ...(authFile ? { authFile } : {}),
        ...(cluster ? { cluster } : {}),
        ...(o.clusterProfile ? { clusterProfile: o.clusterProfile } : {}),
        signal,
      });
    },
    clean: async (keep) => {
      await o.cache.clean(keep).catch(() => []);
    },
  };
}

/**
 * `--payload-retrieval=pod` (upstream): a `version-<v>-<rand>` Pod on this node writes the payload to the node's
 * `/etc/cvo/updatepayloads/<hash>`, read here from `workingDir`. The whole retrieval is bounded by upstream's
 * `retrieveTimeout` (4 minutes, or `retrieveTimeoutMs`).
 */
export function podRetriever(
  o: PodRetrievalOptions & { clusterProfile?: string; retrieveTimeoutMs?: number },
): PayloadRetriever {
  return {
    mode: 'pod',
    retrieve: async (update, signal) => {
      const bounded = AbortSignal.any([signal, AbortSignal.timeout(o.retrieveTimeoutMs ?? RETRIEVE_TIMEOUT_MS)]);
      let dir: string;
      try {
        dir = await retrieveWithPod(o, update, bounded);
      } catch (e) {
        throw new UpdateError({
          reason: 'UpdatePayloadRetrievalFailed',
          message: `Unable to download and prepare the update: ${(e as Error).message}`,
          cause: e,
        });
      }
      const files = await readPayloadDirectory(dir);
      return loadPayloadFromFiles(files, dir, {
        releaseImage: update.image,
        ...(o.clusterProfile ? { clusterProfile: o.clusterProfile } : {}),
      });
    },
    // the Pod's `cleanup` init container empties the directory before each retrieval, as upstream
    clean: () => Promise.resolve(),
  };
}
