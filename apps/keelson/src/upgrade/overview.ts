/**
 * The status block `oc adm upgrade` prints without flags (openshift/oc pkg/cli/admin/upgrade/upgrade.go), rendered from a ClusterVersion exactly
 * as oc renders it, and the same information as plain data for `-o json`.
 */
import {
  findCondition,
  type ClusterVersion,
  type Condition,
  type ConditionalUpdate,
  type Release,
} from './api-types.js';
import { indent, sortConditionalDescending, sortReleasesDescending, tabulate } from './text.js';

/** Text for stdout and stderr. */
export interface Rendered {
  out: string;
  err: string;
}

function notRecommended(updates: readonly ConditionalUpdate[] | undefined): ConditionalUpdate[] {
  return (updates ?? []).filter((u) => {
    const c = findCondition(u.conditions, 'Recommended');
    return c !== undefined && c.status !== 'True';
  });
}

function conditionBlocks(cv: ClusterVersion, out: string[], err: string[]): void {
  const conds = cv.status?.conditions;
  const failing = findCondition(conds, 'Failing');
  if (failing === undefined)
    err.push('warning: No current Failing info, see `oc describe clusterversion` for more details.\n');
  else if (failing.status !== 'False')
    out.push(
      `Failing=${failing.status}:\n\n  Reason: ${failing.reason ?? ''}\n  Message: ${indent(failing.message)}\n\n`,
    );
  const progressing = findCondition(conds, 'Progressing');
  if (progressing !== undefined && (progressing.message ?? '') !== '') {
    out.push(
      progressing.status === 'True'
        ? `info: An upgrade is in progress. ${progressing.message ?? ''}\n`
        : `${progressing.message ?? ''}\n`,
    );
  } else err.push('warning: No current Progressing info, see `oc describe clusterversion` for more details.\n');
  out.push('\n');
  const upgradeable = findCondition(conds, 'Upgradeable');
  if (upgradeable?.status === 'False')
    out.push(
      `Upgradeable=False\n\n  Reason: ${upgradeable.reason ?? ''}\n  Message: ${indent(upgradeable.message)}\n\n`,
    );
  const accepted = findCondition(conds, 'ReleaseAccepted');
  if (accepted !== undefined && accepted.status !== 'True')
    out.push(
      `ReleaseAccepted=${accepted.status}\n\n  Reason: ${accepted.reason ?? ''}\n  Message: ${indent(accepted.message)}\n\n`,
    );
}

function channelBlock(cv: ClusterVersion, out: string[]): void {
  const channel = cv.spec.channel ?? '';
  if (channel === '') return;
  const upstream = cv.spec.upstream ?? '';
  out.push(
    upstream === ''
      ? 'Upstream is unset, so the cluster will use an appropriate default.\n'
      : `Upstream: ${upstream}\n`,
  );
  const channels = cv.status?.desired?.channels ?? [];
  out.push(
    channels.length > 0
      ? `Channel: ${channel} (available channels: ${channels.join(', ')})\n`
      : `Channel: ${channel}\n`,
  );
}

function updatesBlock(cv: ClusterVersion, out: string[], err: string[]): void {
  const available = cv.status?.availableUpdates ?? [];
  const retrieved = findCondition(cv.status?.conditions, 'RetrievedUpdates');
  const retrievalFailed = retrieved?.status === 'False';
  const retrievalText = (verb: string): string =>
    `warning: Cannot ${verb} available updates:\n  Reason: ${retrieved?.reason ?? ''}\n  Message: ${indent(retrieved?.message)}\n\n`;
  if (available.length > 0) {
    out.push('\nRecommended updates:\n\n');
    const rows = [
      ['  VERSION', 'IMAGE'],
      ...sortReleasesDescending(available).map((r) => [`  ${r.version ?? ''}`, r.image ?? '']),
    ];
    for (const line of tabulate(rows, 14, 1)) out.push(`${line}\n`);
    if (retrievalFailed) err.push(retrievalText('refresh'));
  } else if (retrievalFailed) err.push(retrievalText('display'));
  else
    out.push(
      'No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.\n',
    );
}

function notRecommendedBlock(cv: ClusterVersion, include: boolean, out: string[]): void {
  const risky = notRecommended(cv.status?.conditionalUpdates);
  if (include) {
    if (risky.length === 0) {
      out.push('\nNo updates which are not recommended based on your cluster configuration are available.\n');
      return;
    }
    out.push('\nUpdates with known issues:\n');
    for (const u of sortConditionalDescending(risky)) {
      const c = findCondition(u.conditions, 'Recommended') as Condition;
      out.push(`\n  Version: ${u.release.version ?? ''}\n  Image: ${u.release.image ?? ''}\n`);
      out.push(`  Reason: ${c.reason ?? ''}\n  Message: ${indent((c.message ?? '').trim())}\n`);
    }
    return;
  }
  if (risky.length === 0) return;
  const odd = risky
    .map((u) => findCondition(u.conditions, 'Recommended'))
    .find((c) => c !== undefined && c.status !== 'False');
  const qualifier = odd ? `, or where the recommended status is ${JSON.stringify(odd.status)},` : '';
  out.push(
    `\nAdditional updates which are not recommended${qualifier} for your cluster configuration are available, to view those re-run the command with --include-not-recommended.\n`,
  );
}

/** Renders the no-flag output of `oc adm upgrade` for a ClusterVersion. */
export function formatUpgradeOverview(cv: ClusterVersion, includeNotRecommended: boolean): Rendered {
  const out: string[] = [];
  const err: string[] = [];
  conditionBlocks(cv, out, err);
  channelBlock(cv, out);
  updatesBlock(cv, out, err);
  notRecommendedBlock(cv, includeNotRecommended, out);
  return { out: out.join(''), err: err.join('') };
}

/** The overview as data (`-o json`). */
export interface UpgradeOverview {
  current: Release | null;
  channel: string;
  upstream: string;
  conditions: Condition[];
  recommendedUpdates: Release[];
  notRecommendedUpdates: { release: Release; reason: string; message: string; status: string }[];
}

/** The overview as plain data. */
export function upgradeOverview(cv: ClusterVersion, includeNotRecommended: boolean): UpgradeOverview {
  return {
    current: cv.status?.desired ?? null,
    channel: cv.spec.channel ?? '',
    upstream: cv.spec.upstream ?? '',
    conditions: cv.status?.conditions ?? [],
    recommendedUpdates: sortReleasesDescending(cv.status?.availableUpdates ?? []),
    notRecommendedUpdates: includeNotRecommended
      ? sortConditionalDescending(notRecommended(cv.status?.conditionalUpdates)).map((u) => {
          const c = findCondition(u.conditions, 'Recommended') as Condition;
          return { release: u.release, status: c.status, reason: c.reason ?? '', message: c.message ?? '' };
        })
      : [],
  };
}
