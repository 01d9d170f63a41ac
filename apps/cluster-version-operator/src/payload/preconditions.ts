/**
 * Update preconditions (upstream pkg/payload/precondition, cvo.md 6.1), as pure functions of the ClusterVersion and
 * the target version, run in upstream order: ClusterVersionRollback, ClusterVersionGiantHop,
 * ClusterVersionUpgradeable, ClusterVersionRecommendedUpdate.
 */
import { compareSemver, parseSemver, type SemVer } from '@keelson/update-graph';
import type { ClusterVersion } from '../api-types.js';
import { UpdateError } from '../errors.js';

/** One failed precondition. */
export interface PreconditionError {
  name: string;
  reason: string;
  message: string;
  nonBlockingWarning: boolean;
}

function semver(v: string | undefined): SemVer | undefined {
  if (v === undefined || v === '') return undefined;
  try {
    return parseSemver(v);
  } catch {
    return undefined;
  }
}

function rollback(cv: ClusterVersion, current: SemVer, target: SemVer, targetStr: string, currentStr: string): PreconditionError | null {
  if (compareSemver(target, current) >= 0) return null;
  const name = 'ClusterVersionRollback';
  const desired = cv.status?.desired;
  const previous = (cv.status?.history ?? []).find((h) => h.version !== desired?.version || h.image !== desired?.image);
  const prevV = semver(previous?.version);
  if (!previous || !prevV) {
    return { name, reason: 'LowDesiredVersion', message: `${targetStr} is less than the current target ${currentStr}, and the cluster has no previous Semantic Version`, nonBlockingWarning: false };
  }
  if (compareSemver(prevV, target) !== 0) {
    return { name, reason: 'LowDesiredVersion', message: `${targetStr} is less than the current target ${currentStr}, and the only supported rollback is to the cluster's previous version ${previous.version} (${previous.image})`, nonBlockingWarning: false };
  }
  if (prevV.major === current.major && prevV.minor === current.minor) return null;
  return { name, reason: 'LowDesiredVersion', message: `${targetStr} is less than the current target ${currentStr}, and rollbacks that change major or minor versions are not recommended`, nonBlockingWarning: false };
}

function giantHop(current: SemVer, target: SemVer, targetStr: string, currentStr: string): PreconditionError | null {
  const name = 'ClusterVersionGiantHop';
  if (target.major > current.major) {
    if (current.major === 4 && target.major === 5 && target.minor === 0) return null;
    return { name, reason: 'MajorVersionUpdate', message: `${targetStr} is a major version update from the current target ${currentStr}, and major version updates are not supported.`, nonBlockingWarning: false };
  }
  if (target.major === current.major && target.minor > current.minor + 1) {
    return {
      name,
      reason: 'MultipleMinorVersionsUpdate',
      message: `${targetStr} is more than one minor version beyond the current target ${currentStr} (${target.major}.${target.minor} > ${current.major}.(${current.minor}+1)), and only updates within the current minor version or to the next minor version are supported.`,
      nonBlockingWarning: false,
    };
  }
  return null;
}

function upgradeable(cv: ClusterVersion, current: SemVer, target: SemVer): PreconditionError | null {
  const cond = (cv.status?.conditions ?? []).find((c) => c.type === 'Upgradeable');
  if (cond?.status !== 'False') return null;
  if (compareSemver(target, current) <= 0 || (target.major === current.major && target.minor === current.minor)) return null;
  return { name: 'ClusterVersionUpgradeable', reason: cond.reason ?? '', message: cond.message ?? '', nonBlockingWarning: false };
}

function recommended(cv: ClusterVersion, targetStr: string, currentStr: string): PreconditionError | null {
  const name = 'ClusterVersionRecommendedUpdate';
  const target = semver(targetStr);
  const same = (v: string | undefined): boolean => {
    const s = semver(v);
    return s !== undefined && target !== undefined && compareSemver(s, target) === 0;
  };
  if ((cv.status?.availableUpdates ?? []).some((u) => same(u.version))) return null;
  const cu = (cv.status?.conditionalUpdates ?? []).find((c) => same(c.release.version));
  if (cu) {
    const rec = (cu.conditions ?? []).find((c) => c.type === 'Recommended');
    if (!rec) return { name, reason: 'UnknownConditionType', message: `Update from ${currentStr} to ${targetStr} has no Recommended condition.`, nonBlockingWarning: true };
    if (rec.status === 'True') return null;
    if (rec.status === 'False') return { name, reason: rec.reason ?? '', message: `Update from ${currentStr} to ${targetStr} is not recommended:\n\n${rec.message ?? ''}`, nonBlockingWarning: true };
    return { name, reason: rec.reason ?? '', message: `Update from ${currentStr} to ${targetStr} is ${rec.type}=${rec.status}: ${rec.reason ?? ''}: ${rec.message ?? ''}`, nonBlockingWarning: true };
  }
  if ((cv.spec.channel ?? '') === '') return { name, reason: 'NoChannel', message: `Configured channel is unset, so the recommended status of updating from ${currentStr} to ${targetStr} is unknown.`, nonBlockingWarning: true };
  const retrieved = (cv.status?.conditions ?? []).find((c) => c.type === 'RetrievedUpdates');
  if (retrieved?.status === 'True') {
    return { name, reason: 'UnknownUpdate', message: `RetrievedUpdates=True (${retrieved.reason ?? ''}), so the update from ${currentStr} to ${targetStr} is probably neither recommended nor supported.`, nonBlockingWarning: true };
  }
  return { name, reason: 'UnknownUpdate', message: `RetrievedUpdates=${retrieved?.status ?? 'Unknown'} (${retrieved?.reason ?? ''}), so the recommended status of updating from ${currentStr} to ${targetStr} is unknown.`, nonBlockingWarning: true };
}

/** Runs every precondition in upstream order. */
export function runPreconditions(cv: ClusterVersion | undefined, targetVersion: string): PreconditionError[] {
  if (!cv) return [];
  const currentStr = cv.status?.desired.version ?? '';
  const current = semver(currentStr);
  const target = semver(targetVersion);
  if (!target) return [{ name: 'ClusterVersionRollback', reason: 'InvalidDesiredVersion', message: `desired version ${JSON.stringify(targetVersion)} is not a valid semantic version`, nonBlockingWarning: false }];
  if (!current) return [{ name: 'ClusterVersionRollback', reason: 'InvalidCurrentVersion', message: `current version ${JSON.stringify(currentStr)} is not a valid semantic version`, nonBlockingWarning: true }];
  const out: PreconditionError[] = [];
  for (const e of [
    rollback(cv, current, target, targetVersion, currentStr),
    giantHop(current, target, targetVersion, currentStr),
    upgradeable(cv, current, target),
    recommended(cv, targetVersion, currentStr),
  ]) if (e) out.push(e);
  return out;
}

/** Result of {@link summarizePreconditions}. */
export interface PreconditionSummary {
  blocking: boolean;
  /** The UpdateError (reason `UpgradePreconditionCheckFailed`), or null when everything passed. */
  error: UpdateError | null;
}

/** `precondition.Summarize(errs, force)`: one message; blocking unless every error is a warning or `force`. */
export function summarizePreconditions(errs: readonly PreconditionError[], force: boolean): PreconditionSummary {
  if (errs.length === 0) return { blocking: false, error: null };
  const lines = errs.map((e) => `Precondition ${JSON.stringify(e.name)} failed because of ${JSON.stringify(e.reason)}: ${e.message}`);
  let msg = lines.length === 1 ? (lines[0] ?? '') : `Multiple precondition checks failed:\n* ${lines.join('\n* ')}`;
  let blocking = errs.some((e) => !e.nonBlockingWarning);
  if (blocking && force) {
    msg = `Forced through blocking failures: ${msg}`;
    blocking = false;
  }
  return { blocking, error: new UpdateError({ reason: 'UpgradePreconditionCheckFailed', name: 'PreconditionCheck', message: msg }) };
}
