/**
 * Choosing and validating an update target the way `oc adm upgrade` does (openshift/oc pkg/cli/admin/upgrade):
 * option checks, client-side guards, matching against available and conditional updates, and the JSON merge
 * patch written to ClusterVersion `version`. Pure functions; I/O lives in cluster.ts.
 */
import { parseSemver } from '@keelson/update-graph';
import { findCondition, type ClusterVersion, type Condition, type Release, type Update } from './api-types.js';
import { parseDockerImageReference } from './image-ref.js';
import { indent, sortReleasesDescending } from './text.js';

/** The flags of `keelson upgrade` that request or cancel an update (the `oc adm upgrade` flags). */
export interface UpgradeRequestOptions {
  to?: string;
  toImage?: string;
  toLatest?: boolean;
  toMultiArch?: boolean;
  clear?: boolean;
  force?: boolean;
  allowExplicitUpgrade?: boolean;
  allowUpgradeWithWarnings?: boolean;
  allowNotRecommended?: boolean;
}

/** An upgrade request that cannot proceed; `usage` errors are about the flags themselves (exit code 2). */
export class UpgradeRequestError extends Error {
  readonly code: 'UPGRADE_USAGE' | 'UPGRADE_REFUSED';
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
    this.name = 'UpgradeRequestError';
    this.code = usage ? 'UPGRADE_USAGE' : 'UPGRADE_REFUSED';
  }
}

/** The warning oc prints when --force is given. */
export const FORCE_WARNING =
  'warning: --force overrides cluster verification of your supplied release image and waives any update precondition failures. Only use this if you are testing unsigned release images or you are working around a known bug in the cluster-version operator and you have verified the authenticity of the provided image yourself.';

/**
 * Checks the flags before anything is read from the cluster (oc's `Complete`); returns warnings for stderr.
 * Throws a usage {@link UpgradeRequestError} with oc's texts.
 */
export function validateUpgradeOptions(o: UpgradeRequestOptions): string[] {
  const to = o.to ?? '';
  const toImage = o.toImage ?? '';
  const warnings: string[] = [];
  if (o.clear === true && (toImage !== '' || to !== '' || o.toLatest === true || o.toMultiArch === true))
    throw new UpgradeRequestError('--clear may not be specified with any other flags', true);
  if (o.toMultiArch === true && (to !== '' || toImage !== '' || o.toLatest === true))
    throw new UpgradeRequestError('--to-multi-arch may not be used with --to, --to-image, or --to-latest', true);
  if (to !== '' && toImage !== '')
    throw new UpgradeRequestError('only one of --to or --to-image may be provided', true);
  if (to !== '') {
    try {
      parseSemver(to);
    } catch (e) {
      throw new UpgradeRequestError(
        `--to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): ${(e as Error).message}`,
        true,
      );
    }
  }
  if (toImage !== '') {
    let ref;
    try {
      ref = parseDockerImageReference(toImage);
    } catch (e) {
      throw new UpgradeRequestError(`--to-image must be a valid image pull spec: ${(e as Error).message}`, true);
    }
    if (ref.registry === '' && ref.namespace === '')
      throw new UpgradeRequestError(
        '--to-image must be a valid image pull spec: no registry or repository specified',
        true,
      );
    if (ref.id === '' && ref.tag === '')
      throw new UpgradeRequestError('--to-image must be a valid image pull spec: no tag or digest specified', true);
    if (ref.tag !== '') {
      if (o.force !== true) {
        throw new UpgradeRequestError(
          '--to-image must be a by-digest pull spec, unless --force is also set, because release images that are not accessed via digest cannot be verified by the cluster.  Even when --force is set, using tags is not recommended, although we continue to allow it for backwards compatibility',
          true,
        );
      }
      warnings.push(
        'warning: Using by-tag pull specs is dangerous, and while we still allow it in combination with --force for backward compatibility, it would be much safer to pass a by-digest pull spec instead',
      );
    }
  }
  return warnings;
}

/**
 * Client-side guards (oc's `checkForUpgrade`): Invalid=True, Failing=True, Progressing=True. Returns the text of
 * every tripped guard joined by blank lines, or undefined.
 */
export function checkForUpgrade(cv: ClusterVersion): string | undefined {
  const results: string[] = [];
  const conds = cv.status?.conditions;
  const invalid = findCondition(conds, 'Invalid');
  if (invalid?.status === 'True')
    results.push(
      `the cluster version object is invalid, you must correct the invalid state first:\n\n  Reason: ${invalid.reason ?? ''}\n  Message: ${indent(invalid.message)}`,
    );
  const failing = findCondition(conds, 'Failing');
  if (failing?.status === 'True') {
    const desired = cv.status?.desired;
    const target =
      desired?.version ||
      desired?.image ||
      'ClusterVersion status.desired has neither a version nor image; please open a bug';
    results.push(
      `the cluster is experiencing an error reconciling ${JSON.stringify(target)}:\n\n  Reason: ${failing.reason ?? ''}\n  Message: ${indent(failing.message)}`,
    );
  }
  const progressing = findCondition(conds, 'Progressing');
  if (progressing?.status === 'True')
    results.push(
      `the cluster is already upgrading:\n\n  Reason: ${progressing.reason ?? ''}\n  Message: ${indent(progressing.message)}`,
    );
  return results.length === 0 ? undefined : results.join('\n\n');
}

/**
 * Whether a release matches `--to` (same version) or `--to-image` (same pull spec, or same digest). Throws when
 * either pull spec cannot be parsed (oc then warns and moves on).
 */
export function targetMatch(target: Release, to: string, toImage: string): boolean {
  if (to !== '' && target.version === to) return true;
  if (toImage !== '') {
    if (target.image === toImage) return true;
    const t = parseDockerImageReference(target.image ?? '');
    const want = parseDockerImageReference(toImage);
    if (want.id !== '' && t.id === want.id) return true;
  }
  return false;
}

/** The plan for one `keelson upgrade` invocation that writes (or explains why it does not). */
export interface UpgradePlan {
  /** `spec.desiredUpdate` to write (null clears it); undefined = write nothing. */
  desiredUpdate?: Update | null;
  /** Lines for stdout (info messages, the confirmation). */
  out: string[];
  /** Lines for stderr (warnings). */
  err: string[];
}

/** The JSON merge patch oc writes: `{"spec":{"desiredUpdate": <Update>}}`, Update in Go's field order. */
export function desiredUpdatePatch(update: Update | null): { spec: { desiredUpdate: Record<string, unknown> | null } } {
  if (update === null) return { spec: { desiredUpdate: null } };
  const u: Record<string, unknown> = {
    architecture: update.architecture ?? '',
    version: update.version ?? '',
    image: update.image ?? '',
    force: update.force ?? false,
  };
  if (update.acceptRisks !== undefined && update.acceptRisks.length > 0)
    u['acceptRisks'] = update.acceptRisks.map((r) => ({ name: r.name }));
  return { spec: { desiredUpdate: u } };
}

function guard(cv: ClusterVersion, o: UpgradeRequestOptions, err: string[]): void {
  const problem = checkForUpgrade(cv);
  if (problem === undefined) return;
  if (o.allowUpgradeWithWarnings !== true)
    throw new UpgradeRequestError(`${problem}\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.`);
  err.push(`warning: --allow-upgrade-with-warnings is bypassing: ${problem}`);
}

function withAcceptedRisks(cv: ClusterVersion, update: Update): Update {
  const risks = cv.spec.desiredUpdate?.acceptRisks;
  return risks !== undefined ? { ...update, acceptRisks: risks } : update;
}

/** `--clear`: drop desiredUpdate, keeping accepted risks (oc). */
export function planClear(cv: ClusterVersion): UpgradePlan {
  const original = cv.spec.desiredUpdate;
  if (original === undefined || original === null) return { out: ['info: No update in progress'], err: [] };
  const next = original.acceptRisks !== undefined ? { acceptRisks: original.acceptRisks } : null;
  return { desiredUpdate: next, out: [], err: [] };
}

/** What oc prints after `--clear` wrote, given the update that was cleared and the ClusterVersion returned. */
export function clearedMessage(original: Update, updated: ClusterVersion): string {
  const desired: Partial<Release> = updated.status?.desired ?? {};
  const equivalent =
    original.image && desired.image
      ? original.image === desired.image
      : original.version && desired.version
        ? original.version === desired.version
        : false;
  if (equivalent) return `Cleared the update field, still at ${desired.version || desired.image || '<unknown>'}`;
  return `Cancelled requested upgrade to ${original.version || original.image || '<unknown>'}`;
}

/** `--to-multi-arch`. */
export function planMultiArch(cv: ClusterVersion, o: UpgradeRequestOptions): UpgradePlan {
  if (cv.spec.desiredUpdate?.architecture === 'Multi')
    throw new UpgradeRequestError('info: Update to multi cluster architecture has already been requested');
  const err: string[] = [];
  guard(cv, o, err);
  const update: Update = { architecture: 'Multi', version: cv.status?.desired?.version ?? '' };
  if (o.force === true) {
    update.force = true;
    err.push(FORCE_WARNING);
  }
  return { desiredUpdate: withAcceptedRisks(cv, update), out: ['Requested update to multi cluster architecture'], err };
}

interface Candidates {
  update: Update | undefined;
  possible: Release[];
  /** Recommended conditions of not-recommended targets, by image. */
  conditions: Map<string, Condition>;
}

function findTarget(cv: ClusterVersion, o: UpgradeRequestOptions, err: string[]): Candidates {
  const to = o.to ?? '';
  const toImage = o.toImage ?? '';
  const possible: Release[] = [];
  const conditions = new Map<string, Condition>();
  for (const available of cv.status?.availableUpdates ?? []) {
    try {
      if (targetMatch(available, to, toImage))
        return {
          update: { version: available.version ?? '', image: toImage !== '' ? toImage : (available.image ?? '') },
          possible,
          conditions,
        };
    } catch (e) {
      err.push(
        `warning: unable to calculate match for the update target in available updates: ${(e as Error).message}`,
      );
    }
    possible.push(available);
  }
  for (const cu of cv.status?.conditionalUpdates ?? []) {
    const c = findCondition(cu.conditions, 'Recommended');
    if (c === undefined || c.status === 'True') continue;
    let match = false;
    try {
      match = targetMatch(cu.release, to, toImage);
    } catch (e) {
      err.push(
        `warning: unable to calculate match for the update target in available conditional updates: ${(e as Error).message}`,
      );
    }
    if (match) {
      const v = cu.release.version ?? '';
      if (o.allowNotRecommended !== true) {
        throw new UpgradeRequestError(
          `the update ${v} is not one of the recommended updates, but is available as a conditional update. To accept the ${c.type}=${c.status} risk and to proceed with update use --allow-not-recommended.\n  Reason: ${c.reason ?? ''}\n  Message: ${indent(c.message)}\n`,
        );
      }
      err.push(
        `warning: with --allow-not-recommended you have accepted the risks with ${v} and bypassed ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`,
      );
      return { update: { version: v, image: cu.release.image ?? '' }, possible, conditions };
    }
    if (o.allowNotRecommended === true) {
      possible.push(cu.release);
      conditions.set(cu.release.image ?? '', c);
    }
  }
  return { update: undefined, possible, conditions };
}

function noTargetError(cv: ClusterVersion, o: UpgradeRequestOptions, possible: Release[]): UpgradePlan {
  const retrieved = findCondition(cv.status?.conditions, 'RetrievedUpdates');
  const option = (o.toImage ?? '') !== '' ? '--allow-explicit-upgrade' : '--to-image';
  const nextStep = `${option} to continue with ${o.toLatest === true ? 'an' : 'the'} update`;
  if (retrieved !== undefined && retrieved.status !== 'True')
    throw new UpgradeRequestError(
      `cannot refresh available updates:\n  Reason: ${retrieved.reason ?? ''}\n  Message: ${indent(retrieved.message)}\n\nspecify ${nextStep}.`,
    );
  if (possible.length === 0 && o.allowNotRecommended === true)
    throw new UpgradeRequestError(
      `no recommended or conditional updates, specify ${nextStep} or wait for new updates to be available.`,
    );
  if (possible.length === 0 && o.toLatest === true)
    return {
      out: [`info: Cluster is already at the latest available version ${cv.status?.desired?.version ?? ''}`],
      err: [],
    };
  if (possible.length === 0)
    throw new UpgradeRequestError(
      `no recommended updates, specify ${nextStep} or wait for new updates to be available.`,
    );
  throw new UpgradeRequestError(
    `the update is not one of the possible targets: ${possible.map((r) => r.version ?? '').join(', ')}. specify ${nextStep}.`,
  );
}

/** `--to`, `--to-image`, `--to-latest` (oc's target selection, in oc's order). */
export function planTarget(cv: ClusterVersion, o: UpgradeRequestOptions): UpgradePlan {
  const to = o.to ?? '';
  const toImage = o.toImage ?? '';
  const desired: Partial<Release> = cv.status?.desired ?? {};
  if (to !== '' && to === desired.version) return { out: [`info: Cluster is already at version ${to}`], err: [] };
  if (toImage !== '' && toImage === desired.image) return { out: [`info: Cluster is already at ${toImage}`], err: [] };
  const err: string[] = [];
  const found = findTarget(cv, o, err);
  let update = found.update;
  if (update === undefined && toImage !== '' && o.allowExplicitUpgrade === true) {
    update = { version: '', image: toImage };
    err.push(
      'warning: The requested upgrade image is not one of the available updates. You have used --allow-explicit-upgrade for the update to proceed anyway',
    );
  }
  const possible = sortReleasesDescending(found.possible);
  const latest = possible[0];
  if (o.toLatest === true && latest !== undefined) {
    update = { version: latest.version ?? '', image: latest.image ?? '' };
    const c = found.conditions.get(update.image ?? '');
    if (c)
      err.push(
        `warning: with --allow-not-recommended you have accepted the risks with ${update.version ?? ''} and bypassed ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`,
      );
  }
  if (update === undefined) return { ...noTargetError(cv, o, possible), err };
  if (o.force === true) {
    update.force = true;
    err.push(FORCE_WARNING);
  }
  guard(cv, o, err);
  const msg = update.version
    ? `Requested update to ${update.version}`
    : `Requested update to release image ${update.image ?? ''}`;
  return { desiredUpdate: withAcceptedRisks(cv, update), out: [msg], err };
}

/** Dispatches to the plan of the given flags; undefined when the flags ask for no write (status display). */
export function planUpgrade(cv: ClusterVersion, o: UpgradeRequestOptions): UpgradePlan | undefined {
  if (o.clear === true) return planClear(cv);
  if (o.toMultiArch === true) return planMultiArch(cv, o);
  if (o.toLatest === true || (o.to ?? '') !== '' || (o.toImage ?? '') !== '') return planTarget(cv, o);
  return undefined;
}
