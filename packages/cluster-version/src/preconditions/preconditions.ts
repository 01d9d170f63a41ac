/**
 * The cluster-version operator's update preconditions (upstream `pkg/payload/precondition/clusterversion`), as pure
 * functions of a ClusterVersion and the version being accepted. The CVO runs them after loading a non-local payload and
 * before accepting it; `keelson upgrade plan` runs the same functions to predict that verdict.
 *
 * Order and names as upstream: `ClusterVersionRollback`, `ClusterVersionGiantHop`, `ClusterVersionUpgradeable`,
 * `ClusterVersionRecommendedUpdate`. Each failure carries the upstream reason and message and whether it only warns.
 * Upstream's `EtcdRecentBackup` precondition was removed in 2023 (openshift/cluster-version-operator 39a34746e), so it is
 * not part of this list.
 */
import { compareSemver, formatSemver, parseSemver, SemverError, type SemVer } from '@keelson/update-graph';

/** A status condition as the preconditions read it (a @keelson/api `ClusterOperatorStatusCondition` is one). */
export interface PreconditionCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/**
 * The fields of a `config.openshift.io/v1` ClusterVersion that the preconditions read. A @keelson/api `ClusterVersion`
 * is assignable to it.
 */
export interface PreconditionClusterVersion {
  spec: { channel?: string; overrides?: readonly { unmanaged: boolean }[] };
  status?: {
    desired: { version?: string; image?: string };
    history?: readonly { version?: string; image?: string; state?: string }[];
    conditions?: readonly PreconditionCondition[];
    availableUpdates?: readonly { version?: string }[] | null;
    conditionalUpdates?: readonly { release: { version?: string }; conditions?: readonly PreconditionCondition[] }[];
  };
}

/** The upstream precondition names, in the order the CVO runs them. */
export const PRECONDITION_NAMES = [
  'ClusterVersionRollback',
  'ClusterVersionGiantHop',
  'ClusterVersionUpgradeable',
  'ClusterVersionRecommendedUpdate',
] as const;

/** One of {@link PRECONDITION_NAMES}. */
export type PreconditionName = (typeof PRECONDITION_NAMES)[number];

/** One failed precondition (upstream `precondition.Error`). */
export interface PreconditionError {
  name: PreconditionName;
  reason: string;
  message: string;
  /** A failure that warns (recorded as an accepted risk) instead of blocking. */
  nonBlockingWarning: boolean;
}

/** Upstream `internal.UpdateType`: `Major`, `Minor`, `Patch` or `Unknown` (not forward). */
export function updateType(source: SemVer, target: SemVer): 'Major' | 'Minor' | 'Patch' | 'Unknown' {
  if (source.major < target.major) return 'Major';
  if (source.major === target.major && source.minor < target.minor) return 'Minor';
  if (compareSemver(source, target) < 0) return 'Patch';
  return 'Unknown';
}

/** The version the cluster runs: the newest Completed history entry, else the oldest entry (the install), else `''`. */
export function currentCompletedVersion(history: readonly { version?: string; state?: string }[] | undefined): string {
  const list = history ?? [];
  const done = list.find((h) => h.state === 'Completed');
  if (done !== undefined) return done.version ?? '';
  return list[list.length - 1]?.version ?? '';
}

type Parsed = { ok: true; v: SemVer } | { ok: false; message: string };

function parse(s: string): Parsed {
  try {
    return { ok: true, v: parseSemver(s) };
  } catch (e) {
    if (e instanceof SemverError) return { ok: false, message: e.message };
    throw e;
  }
}

/** Parses current (`status.desired.version`) and target the way each version-reading precondition does. */
function versions(
  cv: PreconditionClusterVersion,
  target: string,
  name: PreconditionName,
): { current: SemVer; target: SemVer } | PreconditionError {
  const c = parse(cv.status?.desired.version ?? '');
  if (!c.ok) return { name, reason: 'InvalidCurrentVersion', message: c.message, nonBlockingWarning: true };
  const t = parse(target);
  if (!t.ok) return { name, reason: 'InvalidDesiredVersion', message: t.message, nonBlockingWarning: false };
  return { current: c.v, target: t.v };
}

const isError = (x: object): x is PreconditionError => 'reason' in x;

/** `ClusterVersionRollback`: only a z-stream rollback to the previous history entry is allowed. */
export function checkRollback(cv: PreconditionClusterVersion, targetVersion: string): PreconditionError | null {
  const name = 'ClusterVersionRollback';
  const v = versions(cv, targetVersion, name);
  if (isError(v)) return v;
  const { current, target } = v;
  if (compareSemver(target, current) >= 0) return null;
  const t = formatSemver(target);
  const c = formatSemver(current);
  const entry = (cv.status?.history ?? []).find((h) => h.version !== c || h.image !== cv.status?.desired.image);
  const prev = entry === undefined ? undefined : parse(entry.version ?? '');
  if (entry === undefined || prev === undefined || !prev.ok) {
    return {
      name,
      reason: 'LowDesiredVersion',
      message: `${t} is less than the current target ${c}, and the cluster has no previous Semantic Version`,
      nonBlockingWarning: false,
    };
  }
  if (compareSemver(target, prev.v) !== 0) {
    return {
      name,
      reason: 'LowDesiredVersion',
      message: `${t} is less than the current target ${c}, and the only supported rollback is to the cluster's previous version ${formatSemver(prev.v)} (${entry.image ?? ''})`,
      nonBlockingWarning: false,
    };
  }
  if (prev.v.major === current.major && prev.v.minor === current.minor) return null;
  return {
    name,
    reason: 'LowDesiredVersion',
    message: `${t} is less than the current target ${c} and matches the cluster's previous version, but rollbacks that change major or minor versions are not recommended`,
    nonBlockingWarning: false,
  };
}

/** `ClusterVersionGiantHop`: no major updates (except 4 → 5.0), at most one minor version forward. */
export function checkGiantHop(cv: PreconditionClusterVersion, targetVersion: string): PreconditionError | null {
  const name = 'ClusterVersionGiantHop';
  const v = versions(cv, targetVersion, name);
  if (isError(v)) return v;
  const { current, target } = v;
  const t = formatSemver(target);
  const c = formatSemver(current);
  if (target.major > current.major) {
    if (target.major === 5 && current.major === 4) {
      if (target.minor === 0) return null;
      return {
        name,
        reason: 'MajorVersionUpdate',
        message: `${t} has a larger major version than the current target ${c} (${target.major} > ${current.major}), and only updates within the current major version or to 5.0 are supported.`,
        nonBlockingWarning: false,
      };
    }
    return {
      name,
      reason: 'MajorVersionUpdate',
      message: `${t} has a larger major version than the current target ${c} (${target.major} > ${current.major}), and only updates within the current major version are supported.`,
      nonBlockingWarning: false,
    };
  }
  if (target.minor > current.minor + 1) {
    return {
      name,
      reason: 'MultipleMinorVersionsUpdate',
      message: `${t} is more than one minor version beyond the current target ${c} (${target.major}.${target.minor} > ${current.major}.(${current.minor}+1)), and only updates within the current minor version or to the next minor version are supported.`,
      nonBlockingWarning: false,
    };
  }
  return null;
}

/** The reason and message ClusterVersion overrides give (upstream `ClusterVersionOverridesCondition`). */
export const OVERRIDES_SET = {
  reason: 'ClusterVersionOverridesSet',
  message:
    'Disabling ownership via cluster version overrides prevents upgrades between minor or major versions. Please remove overrides before requesting a minor or major version update.',
} as const;

/**
 * `ClusterVersionUpgradeable`: `Upgradeable=False` on the ClusterVersion blocks minor and major updates with the
 * condition's reason and message. Patch updates pass, with a warning when overrides are set or when retargeting a
 * minor/major update that is still in progress.
 */
export function checkUpgradeable(cv: PreconditionClusterVersion, targetVersion: string): PreconditionError | null {
  const name = 'ClusterVersionUpgradeable';
  const up = (cv.status?.conditions ?? []).find((c) => c.type === 'Upgradeable');
  if (up?.status !== 'False') return null;
  const v = versions(cv, targetVersion, name);
  if (isError(v)) return v;
  const { current, target } = v;
  const patchOnly = target.major === current.major && target.minor === current.minor;
  if (compareSemver(target, current) <= 0 || patchOnly) {
    if ((cv.spec.overrides ?? []).some((o) => o.unmanaged)) {
      return {
        name,
        reason: OVERRIDES_SET.reason,
        message: `Retarget from ${formatSemver(current)} to ${formatSemver(target)} is not blocked by ${OVERRIDES_SET.reason}. But the cluster-version operator is not managing these resources; they are currently the responsibility of the agent that set the overrides: ${OVERRIDES_SET.message}`,
        nonBlockingWarning: true,
      };
    }
    const inProgress = patchOnly ? majorOrMinorUpdateFrom(cv, current) : undefined;
    if (inProgress !== undefined) {
      return {
        name,
        reason: `${inProgress.type}VersionClusterUpdateInProgress`,
        message: `Retarget to ${formatSemver(target)} while a ${inProgress.type.toLowerCase()} version update from ${inProgress.completed} to ${formatSemver(current)} is in progress`,
        nonBlockingWarning: true,
      };
    }
    return null;
  }
  return { name, reason: up.reason ?? '', message: up.message ?? '', nonBlockingWarning: false };
}

/** A minor or major update from the last completed version to `current` still in progress (Progressing=True). */
function majorOrMinorUpdateFrom(
  cv: PreconditionClusterVersion,
  current: SemVer,
): { completed: string; type: 'Major' | 'Minor' } | undefined {
  const completed = currentCompletedVersion(cv.status?.history);
  const p = parse(completed);
  if (completed === '' || !p.ok) return undefined;
  const progressing = (cv.status?.conditions ?? []).find((c) => c.type === 'Progressing');
  if (progressing?.status !== 'True') return undefined;
  const type = updateType(p.v, current);
  return type === 'Major' || type === 'Minor' ? { completed, type } : undefined;
}

/** `ClusterVersionRecommendedUpdate`: warns unless the target is an available or `Recommended=True` conditional update. */
export function checkRecommendedUpdate(
  cv: PreconditionClusterVersion,
  targetVersion: string,
): PreconditionError | null {
  const name = 'ClusterVersionRecommendedUpdate';
  const current = cv.status?.desired.version ?? '';
  const warn = (reason: string, message: string): PreconditionError => ({
    name,
    reason,
    message,
    nonBlockingWarning: true,
  });
  if ((cv.status?.availableUpdates ?? []).some((u) => u.version === targetVersion)) return null;
  const cu = (cv.status?.conditionalUpdates ?? []).find((u) => u.release.version === targetVersion);
  if (cu !== undefined) {
    const rec = (cu.conditions ?? []).find((c) => c.type === 'Recommended');
    if (rec === undefined)
      return warn(
        'UnknownConditionType',
        `Update from ${current} to ${targetVersion} has a status.conditionalUpdates entry, but no Recommended condition.`,
      );
    if (rec.status === 'True') return null;
    if (rec.status === 'False')
      return warn(
        rec.reason ?? '',
        `Update from ${current} to ${targetVersion} is not recommended:\n\n${rec.message ?? ''}`,
      );
    return warn(
      rec.reason ?? '',
      `Update from ${current} to ${targetVersion} is ${rec.type}=${rec.status}: ${rec.reason ?? ''}: ${rec.message ?? ''}`,
    );
  }
  if ((cv.spec.channel ?? '') === '')
    return warn(
      'NoChannel',
      `Configured channel is unset, so the recommended status of updating from ${current} to ${targetVersion} is unknown.`,
    );
  const retrieved = (cv.status?.conditions ?? []).find((c) => c.type === 'RetrievedUpdates');
  if (retrieved === undefined)
    return warn(
      'UnknownUpdate',
      `No RetrievedUpdates, so the recommended status of updating from ${current} to ${targetVersion} is unknown.`,
    );
  const head = `${retrieved.type}=${retrieved.status} (${retrieved.reason ?? ''})`;
  if (retrieved.status === 'True')
    return warn(
      'UnknownUpdate',
      `${head}, so the update from ${current} to ${targetVersion} is probably neither recommended nor supported.`,
    );
  return warn(
    'UnknownUpdate',
    `${head}, so the recommended status of updating from ${current} to ${targetVersion} is unknown.`,
  );
}

const CHECKS: Readonly<
  Record<PreconditionName, (cv: PreconditionClusterVersion, target: string) => PreconditionError | null>
> = {
  ClusterVersionRollback: checkRollback,
  ClusterVersionGiantHop: checkGiantHop,
  ClusterVersionUpgradeable: checkUpgradeable,
  ClusterVersionRecommendedUpdate: checkRecommendedUpdate,
};

/** Runs every precondition in upstream order (`List.RunAll`); no ClusterVersion → nothing fails. */
export function runPreconditions(
  cv: PreconditionClusterVersion | undefined,
  targetVersion: string,
): PreconditionError[] {
  if (cv === undefined) return [];
  const out: PreconditionError[] = [];
  for (const n of PRECONDITION_NAMES) {
    const e = CHECKS[n](cv, targetVersion);
    if (e !== null) out.push(e);
  }
  return out;
}

/** Result of {@link summarizePreconditions}. */
export interface PreconditionSummary {
  /** True when the CVO refuses the update (ReleaseAccepted=False, step `PreconditionChecks`). */
  blocking: boolean;
  /** The text of the CVO's `UpgradePreconditionCheckFailed` error, or null when every precondition passed. */
  message: string | null;
}

/** Upstream `precondition.Summarize(errs, force)`: one message; blocking unless every failure warns or `force`. */
export function summarizePreconditions(errs: readonly PreconditionError[], force: boolean): PreconditionSummary {
  if (errs.length === 0) return { blocking: false, message: null };
  const lines = errs.map(
    (e) => `Precondition ${JSON.stringify(e.name)} failed because of ${JSON.stringify(e.reason)}: ${e.message}`,
  );
  let message = lines.length === 1 ? (lines[0] ?? '') : `Multiple precondition checks failed:\n* ${lines.join('\n* ')}`;
  let blocking = errs.some((e) => !e.nonBlockingWarning);
  if (blocking && force) {
    message = `Forced through blocking failures: ${message}`;
    blocking = false;
  }
  return { blocking, message };
}
