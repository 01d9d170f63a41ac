/**
 * Which release the sync worker runs and in which mode (openshift/cluster-version-operator pkg/cvo/sync_worker.go
 * `SyncWorker.Update` and the `State` of its work; pkg/cvo/cvo.go `currentVersion`).
 */
import type { Logger } from '@keelson/kube';
import type { Manifest, ReleasePayload } from '@keelson/release-payload';
import type { WorkerState } from '@keelson/cluster-version';
import type { ClusterVersion, Release } from '../api-types.js';
import type { SyncMode } from '../sync/run-payload.js';

/** The part of the worker's loaded release these decisions read. */
export interface LoadedRelease {
  image: string;
  version: string;
  force: boolean;
  payload: ReleasePayload;
}

/** The release the worker applies. */
export interface Work extends LoadedRelease {
  manifests: Manifest[];
  versionHash: string;
  verified: boolean;
  acceptedRisks: string;
  local: boolean;
}

/** The release to run: desiredUpdate, else what status says, else the operator's own release. */
export function pickTarget(cv: ClusterVersion, desired: Release | undefined, own: Release): Release {
  if (desired?.image !== undefined && desired.image !== '') return desired;
  const st = cv.status?.desired;
  if (st?.image !== undefined && st.image !== '') return st;
  return own;
}

/**
 * Upstream `SyncWorker.Update`: a new desired release while the installed one is still initializing is ignored (the
 * install finishes first), with upstream's warning naming both `configv1.Update` values as Go prints them.
 */
export function keepTargetDuringInstall(
  cv: ClusterVersion,
  target: Release,
  force: boolean,
  work: LoadedRelease | undefined,
  mode: (w: LoadedRelease) => SyncMode,
  log: Logger,
): { target: Release; force: boolean } {
  if (!work || (target.image ?? '') === work.image || mode(work) !== 'initializing') return { target, force };
  const goUpdate = (arch: string, version: string, image: string, f: boolean): string =>
    `{${arch} ${version} ${image} ${String(f)}}`;
  const arch = cv.spec.desiredUpdate?.architecture ?? '';
  log.warn(
    `Ignoring detected version change from ${goUpdate('', work.version, work.image, work.force)} to ${goUpdate(arch, target.version ?? '', target.image ?? '', force)} during payload initialization`,
  );
  return { target: { version: work.version, image: work.image }, force: work.force };
}

/** The desired release as status reports it: url from the payload's metadata, channels from the available updates. */
export function releaseFor(work: LoadedRelease, cv: ClusterVersion): Release {
  const r: Release = { version: work.version, image: work.image };
  const url = work.payload.metadata.metadata?.['url'];
  if (typeof url === 'string') r.url = url;
  const match = (cv.status?.availableUpdates ?? []).find((u) => u.image === work.image || u.version === work.version);
  if (match?.channels) r.channels = match.channels;
  if (match?.url !== undefined && r.url === undefined) r.url = match.url;
  return r;
}

/**
 * Initializing until one release completed; Reconciling on the completed release; else Updating (upstream
 * pkg/cvo/sync_worker.go, State). `completedImage`: the release this process completed, if any.
 */
export function decideMode(cv: ClusterVersion, work: LoadedRelease, completedImage: string | undefined): SyncMode {
  const history = cv.status?.history ?? [];
  const anyCompleted = history.some((h) => h.state === 'Completed') || completedImage !== undefined;
  if (!anyCompleted) return 'initializing';
  if (completedImage === work.image) return 'reconciling';
  const top = history[0];
  if (completedImage === undefined && top?.state === 'Completed' && top.image === work.image) return 'reconciling';
  return 'updating';
}

/** Go's GOARCH name of this process's architecture (the ReleaseAccepted message of a payload without one). */
export function goArchName(): string {
  return (
    ({ x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[process.arch] ??
    process.arch
  );
}

/**
 * Upstream autoupdate controller: the newest available update when the cluster completed its release without a
 * failure and neither asks for nor runs that update already; else undefined.
 */
export function autoUpdateTarget(
  cv: ClusterVersion,
  worker: WorkerState | undefined,
  available: readonly Release[] | null | undefined,
  runningImage: string | undefined,
): { version: string; image: string } | undefined {
  if (worker?.completed !== true || worker.failure) return undefined;
  const newest = available?.[0];
  if (!newest?.version || !newest.image) return undefined;
  if (cv.spec.desiredUpdate?.image === newest.image || runningImage === newest.image) return undefined;
  return { version: newest.version, image: newest.image };
}
