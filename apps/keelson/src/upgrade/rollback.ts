/**
 * `keelson upgrade rollback`: oc's hidden `oc adm upgrade rollback` (openshift/oc release-4.20
 * `pkg/cli/admin/upgrade/rollback/rollback.go`, shown only with `OC_ENABLE_CMD_UPGRADE_ROLLBACK=true`). It asks the
 * CVO for the release the cluster was on before its current target: a patch-level step back within the same
 * major.minor, refused while an update is in progress. The CVO's own rollback precondition still decides.
 */
import { compareSemver, formatSemver, parseSemver, type SemVer } from '@keelson/update-graph';
import { findCondition, type ClusterVersion, type Update } from './api-types.js';
import { UpgradeRequestError } from './request.js';

/** The environment variable oc reads to show the command. */
export const ROLLBACK_GATE = 'OC_ENABLE_CMD_UPGRADE_ROLLBACK';

/** What a rollback requests: the previous release, and the versions its confirmation names. */
export interface RollbackPlan {
  desiredUpdate: Update;
  from: string;
  to: string;
}

function semver(v: string, what: (err: string) => string): SemVer {
  try {
    return parseSemver(v);
  } catch (e) {
    throw new UpgradeRequestError(what((e as Error).message));
  }
}

/** The history entry before the current target (the first one that is not the target itself). */
function previousRelease(cv: ClusterVersion, target: SemVer): { version: SemVer; image: string } | undefined {
  const desiredImage = cv.status?.desired?.image ?? '';
  for (const entry of cv.status?.history ?? []) {
    if (entry.version === formatSemver(target) && entry.image === desiredImage) continue;
    const version = semver(
      entry.version ?? '',
      (err) => `previous version "${entry.version ?? ''}" invalid SemVer: ${err}`,
    );
    return { version, image: entry.image ?? '' };
  }
  return undefined;
}

/** Decides the rollback (pure); throws {@link UpgradeRequestError} with oc's texts when it is refused. */
export function planRollback(cv: ClusterVersion): RollbackPlan {
  const desired = cv.status?.desired;
  const target = semver(desired?.version ?? '', (err) => `invalid ClusterVersion status.desired.version: ${err}`);
  const targetText = formatSemver(target);
  const previous = previousRelease(cv, target);
  if (previous === undefined)
    throw new UpgradeRequestError(
      `no previous version found in ClusterVersion's status.history besides the current ${targetText} (${desired?.image ?? ''}).`,
    );
  const prevText = formatSemver(previous.version);
  if (compareSemver(previous.version, target) >= 0)
    throw new UpgradeRequestError(
      `previous version ${prevText} (${previous.image}) is greater than or equal to current version ${targetText} (${desired?.image ?? ''}).  Use 'oc adm upgrade ...' to update, and not this rollback command.`,
    );
  if (previous.version.major !== target.major || previous.version.minor !== target.minor)
    throw new UpgradeRequestError(
      `${prevText} is less than the current target ${targetText} and matches the cluster's previous version, but rollbacks that change major or minor versions are not recommended.`,
    );
  const progressing = findCondition(cv.status?.conditions, 'Progressing');
  if (progressing === undefined)
    throw new UpgradeRequestError('no current Progressing info, see `oc describe clusterversion` for more details.\n');
  if (progressing.status !== 'False')
    throw new UpgradeRequestError(
      `unable to rollback while an update is Progressing=${progressing.status}: ${progressing.reason ?? ''}: ${progressing.message ?? ''}.`,
    );
  return { desiredUpdate: { version: prevText, image: previous.image }, from: targetText, to: prevText };
}
