/**
 * `keelson upgrade recommend`, the `oc adm upgrade recommend` counterpart (openshift/oc
 * pkg/cli/admin/upgrade/recommend/recommend.go `Run`, `notRecommendedCondition`, `injectUpgradeableAsCondition`):
 * the cluster's Failing / Progressing state, the prechecks (alerts), the channel, then the update targets in
 * buckets by major.minor (newest first, two per bucket unless `--show-outdated-releases`, risks spelled out), or
 * with `--version` one target in detail, failing unless every issue that applies was `--accept`ed. Pure.
 */
import type { MetaCondition } from '@keelson/api';
import { compareSemver, formatSemver, parseSemver, type SemVer } from '@keelson/update-graph';
import { findCondition, type ClusterVersion, type ConditionalUpdate } from './api-types.js';
import { indent, tabulate } from './text.js';

/** A precheck result: True is happy, False sad, Unknown undecided; `acceptanceName` names it for `--accept`. */
export interface AcceptableCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  acceptanceName?: string;
}

/** The flags of `upgrade recommend`. */
export interface RecommendOptions {
  showOutdatedReleases?: boolean;
  version?: string;
  quiet?: boolean;
  accept?: readonly string[];
}

/** What the command prints, in order, and the error it ends with (exit 1), if any. */
export interface RecommendResult {
  chunks: { stream: 'out' | 'err'; text: string }[];
  error?: string;
}

/** A flag combination oc refuses before reading the cluster. */
export class RecommendUsageError extends Error {}

/** oc's `Complete` checks; returns the parsed `--version`. */
export function validateRecommendOptions(o: RecommendOptions): SemVer | undefined {
  if (o.version === undefined || o.version === '') {
    if (o.quiet === true) throw new RecommendUsageError('--quiet can only be set when --version is set');
    return undefined;
  }
  if (o.showOutdatedReleases === true)
    throw new RecommendUsageError('when --version is set, --show-outdated-releases is unnecessary');
  try {
    return parseSemver(o.version);
  } catch (e) {
    throw new RecommendUsageError(`cannot parse SemVer target ${JSON.stringify(o.version)}: ${(e as Error).message}`);
  }
}

/** `notRecommendedCondition`: undefined when recommended (no risks, or Recommended=True). */
export function notRecommendedCondition(u: ConditionalUpdate): MetaCondition | undefined {
  if ((u.risks ?? []).length === 0) return undefined;
  const c = findCondition(u.conditions, 'Recommended');
  if (c !== undefined) return c.status === 'True' ? undefined : c;
  // oc builds the list on a slice pre-sized with empty names, so they lead the sorted list (", , A, B")
  const risks = [...u.risks.map(() => ''), ...u.risks.map((r) => r.name)].sort();
  return {
    type: 'Recommended',
    status: 'Unknown',
    reason: 'NoConditions',
    message: `Conditional update to ${u.release.version} has risks (${risks.join(', ')}), but no conditions.`,
    lastTransitionTime: '',
  };
}

type Buckets = Map<number, Map<number, ConditionalUpdate[]>>;

function addToBucket(b: Buckets, v: SemVer, u: ConditionalUpdate): void {
  const minors = b.get(v.major) ?? new Map<number, ConditionalUpdate[]>();
  b.set(v.major, minors);
  minors.set(v.minor, [...(minors.get(v.minor) ?? []), u]);
}

function buckets(cv: ClusterVersion, err: (t: string) => void): Buckets {
  const b: Buckets = new Map();
  const conditional = cv.status?.conditionalUpdates ?? [];
  const add = (version: string, u: ConditionalUpdate): void => {
    try {
      addToBucket(b, parseSemver(version), u);
    } catch (e) {
      err(`warning: Cannot parse SemVer available update ${JSON.stringify(version)}: ${(e as Error).message}`);
    }
  };
  for (const u of conditional) add(u.release.version, structuredClone(u));
  for (const r of cv.status?.availableUpdates ?? []) {
    if (conditional.some((c) => c.release.image === r.image)) continue;
    add(r.version, { release: r, risks: [] });
  }
  return b;
}

/** `ensureUpgradeableRisk`: Upgradeable=False as a risk of every update to a later minor (or major). */
function injectUpgradeable(b: Buckets, current: SemVer, c: { reason?: string; message?: string }): void {
  const uri =
    current.minor <= 13
      ? `https://docs.openshift.com/container-platform/${current.major}.${current.minor}/updating/index.html#understanding_clusteroperator_conditiontypes_updating-clusters-overview`
      : `https://docs.openshift.com/container-platform/${current.major}.${current.minor}/updating/preparing_for_updates/updating-cluster-prepare.html#cluster-upgradeable_updating-cluster-prepare`;
  const message = c.message ?? '';
  const reason = c.reason ?? '';
  for (const [major, minors] of b) {
    if (major < current.major) continue;
    for (const [minor, targets] of minors) {
      if (major === current.major && minor <= current.minor) continue;
      for (const t of targets) {
        if (t.risks.some((r) => r.message.includes(message))) continue;
        t.risks.push({ url: uri, name: 'UpgradeableFalse', message, matchingRules: [{ type: 'Always' }] });
        const rec = findCondition(t.conditions, 'Recommended');
        if (rec === undefined) {
          t.conditions = [
            ...(t.conditions ?? []),
            { type: 'Recommended', status: 'False', reason, message, lastTransitionTime: '' },
          ];
        } else if (rec.status === 'True') Object.assign(rec, { status: 'False', reason, message });
        else
          Object.assign(rec, { status: 'False', reason: 'MultipleReasons', message: `${message}\n\n${rec.message}` });
      }
    }
  }
}

function sortDescending(updates: ConditionalUpdate[]): ConditionalUpdate[] {
  const parsed = (v: string): SemVer | undefined => {
    try {
      return parseSemver(v);
    } catch {
      return undefined;
    }
  };
  return [...updates].sort((x, y) => {
    const a = parsed(x.release.version);
    const b = parsed(y.release.version);
    if (a && !b) return -1;
    if (b && !a) return 1;
    if (a && b) return compareSemver(b, a);
    return x.release.version > y.release.version ? -1 : x.release.version < y.release.version ? 1 : 0;
  });
}

/** One "Updates to M.m:" bucket, emulating oc's tabwriter (buffered rows are lost unless flushed). */
function formatBucket(label: string, updates: ConditionalUpdate[], showOutdated: boolean): string {
  let text = `\nUpdates to ${label}:\n`;
  let buffered: string[][] = [['  VERSION', 'ISSUES']];
  const flush = (): void => {
    if (buffered.length > 0) text += `${tabulate(buffered, 14, 1).join('\n')}\n`;
    buffered = [];
  };
  let lastWasLong = false;
  let headerQueued = true;
  const sorted = sortDescending(updates);
  for (const [i, u] of sorted.entries()) {
    const c = notRecommendedCondition(u);
    if (lastWasLong || (c !== undefined && !showOutdated)) {
      text += '\n';
      if (c === undefined && !headerQueued) {
        buffered.push(['  VERSION', 'ISSUES']);
        headerQueued = true;
      }
      lastWasLong = false;
    }
    if (i === 2 && !showOutdated) {
      text += `And ${sorted.length - 2} older ${label} updates you can see with '--show-outdated-releases' or '--version VERSION'.\n`;
      break;
    }
    if (c === undefined) {
      buffered.push([`  ${u.release.version}`, 'no known issues relevant to this cluster']);
      if (!showOutdated) {
        headerQueued = false;
        flush();
      }
    } else if (showOutdated) buffered.push([`  ${u.release.version}`, c.reason]);
    else {
      text += `  Version: ${u.release.version}\n  Image: ${u.release.image}\n`;
      text += `  Reason: ${c.reason}\n  Message: ${indent(c.message.trim())}\n`;
      lastWasLong = true;
    }
  }
  if (showOutdated) flush();
  return text;
}

function conditionBlock(type: string, status: string, reason: string | undefined, message: string | undefined): string {
  return `${type}=${status}:\n\n  Reason: ${reason ?? ''}\n  Message: ${indent(message)}\n\n`;
}

function preamble(
  cv: ClusterVersion,
  o: RecommendOptions,
  precheck: { conditions: AcceptableCondition[]; error?: string },
  emit: { out: (t: string) => void; err: (t: string) => void; issue: (n: string) => void },
): void {
  const accept = new Set(o.accept ?? []);
  const quiet = o.quiet === true;
  const ctx = (n: string): string => (accept.has(n) ? 'accepted ' : '');
  const failing = findCondition(cv.status?.conditions, 'Failing');
  if (failing === undefined) {
    if (!quiet)
      emit.err(
        `${ctx('Failing')}warning: No current Failing info, see \`oc describe clusterversion\` for more details.\n`,
      );
    emit.issue('Failing');
  } else if (failing.status !== 'False') {
    if (!quiet)
      emit.out(`${ctx('Failing')}${conditionBlock('Failing', failing.status, failing.reason, failing.message)}`);
    emit.issue('Failing');
  }
  const progressing = findCondition(cv.status?.conditions, 'Progressing');
  if (progressing?.status === 'True' && (progressing.message ?? '') !== '') {
    if (!quiet)
      emit.out(
        `${ctx('Progressing')}info: An update is in progress.  You may wish to let this update complete before requesting a new update.\n  ${indent(progressing.message)}\n\n`,
      );
    emit.issue('Progressing');
  }
  if (precheck.error !== undefined) {
    if (!quiet) emit.out(`Failed to check for at least some preconditions: ${precheck.error}\n`);
    emit.issue('FailedToCompletePrecheck');
  }
  const happy: string[] = [];
  const accepted: string[] = [];
  const unhappy: string[] = [];
  for (const c of precheck.conditions) {
    if (c.status === 'True') happy.push(`${c.type} (${c.reason})`);
    else {
      const name = c.acceptanceName ?? '';
      emit.issue(name);
      (accept.has(name) ? accepted : unhappy).push(c.type);
    }
  }
  if (quiet) return;
  const lead = 'The following conditions found';
  if (happy.length > 0)
    emit.out(`${lead} no cause for concern in updating this cluster to later releases: ${happy.sort().join(', ')}\n\n`);
  if (accepted.length > 0)
    emit.out(
      `${lead} cause for concern in updating this cluster to later releases, but were explicitly accepted via --accept: ${accepted.sort().join(', ')}\n\n`,
    );
  if (unhappy.length > 0) {
    emit.out(`${lead} cause for concern in updating this cluster to later releases: ${unhappy.sort().join(', ')}\n\n`);
    for (const c of precheck.conditions)
      if (c.status !== 'True') emit.out(conditionBlock(c.type, c.status, c.reason, c.message));
  }
}

function channelLines(cv: ClusterVersion): string {
  const channel = cv.spec.channel ?? '';
  if (channel === '') return '';
  const upstream = cv.spec.upstream ?? '';
  let text =
    upstream === ''
      ? 'Upstream update service is unset, so the cluster will use an appropriate default.\n'
      : `Upstream update service: ${upstream}\n`;
  const channels = cv.status?.desired?.channels ?? [];
  text +=
    channels.length > 0
      ? `Channel: ${channel} (available channels: ${channels.join(', ')})\n`
      : `Channel: ${channel}\n`;
  return text;
}

function versionDetail(
  b: Buckets,
  v: SemVer,
  o: RecommendOptions,
  issues: Set<string>,
  out: (t: string) => void,
): string | undefined {
  const accept = new Set(o.accept ?? []);
  const want = formatSemver(v);
  if (b.size === 0) return `no updates available, so cannot display context for the requested release ${want}`;
  const major = b.get(v.major);
  if (major === undefined)
    return `no updates to ${v.major} available, so cannot display context for the requested release ${want}`;
  const minor = major.get(v.minor);
  if (minor === undefined)
    return `no updates to ${v.major}.${v.minor} available, so cannot display context for the requested release ${want}`;
  const u = minor.find((x) => x.release.version === want);
  if (u === undefined) return `no update to ${want} available, so cannot display context for the requested release`;
  const quiet = o.quiet === true;
  if (!quiet) out('\n');
  const c = notRecommendedCondition(u);
  const url = u.release.url ?? '';
  if (c === undefined) {
    if (!quiet)
      out(
        `Update to ${want} has no known issues relevant to this cluster.\nImage: ${u.release.image}\nRelease URL: ${url}\n`,
      );
  } else {
    const reason = accept.has('ConditionalUpdateRisk') ? `accepted ${c.reason} via ConditionalUpdateRisk` : c.reason;
    if (!quiet)
      out(
        `Update to ${want} ${c.type}=${c.status}:\nImage: ${u.release.image}\nRelease URL: ${url}\nReason: ${reason}\nMessage: ${indent(c.message)}\n`,
      );
    issues.add('ConditionalUpdateRisk');
  }
  const unaccepted = [...issues].filter((i) => !accept.has(i)).sort();
  if (unaccepted.length > 0)
    return `issues that apply to this cluster but which were not included in --accept: ${unaccepted.join(',')}`;
  if (issues.size > 0 && !quiet)
    out(
      `Update to ${want} has no known issues relevant to this cluster other than the accepted ${[...issues].sort().join(',')}.\n`,
    );
  return undefined;
}

/**
 * Runs oc's recommend logic on a ClusterVersion and the precheck results (`precheck.error`: why the prechecks could
 * not complete). Call {@link validateRecommendOptions} first.
 */
export function recommend(
  cv: ClusterVersion,
  o: RecommendOptions,
  precheck: { conditions: AcceptableCondition[]; error?: string },
): RecommendResult {
  const chunks: RecommendResult['chunks'] = [];
  const out = (text: string): void => void chunks.push({ stream: 'out', text });
  const err = (text: string): void => void chunks.push({ stream: 'err', text });
  const issues = new Set<string>();
  const quiet = o.quiet === true;
  preamble(cv, o, precheck, { out, err, issue: (n) => issues.add(n) });
  const retrieved = findCondition(cv.status?.conditions, 'RetrievedUpdates');
  if (retrieved !== undefined && retrieved.status !== 'True') {
    if (!quiet)
      err(
        `warning: Cannot refresh available updates:\n  Reason: ${retrieved.reason ?? ''}\n  Message: ${indent(retrieved.message)}\n\n`,
      );
    issues.add('CannotRetrieveUpdates');
  }
  if (!quiet) out(channelLines(cv));
  const b = buckets(cv, quiet ? () => undefined : err);
  const upgradeable = findCondition(cv.status?.conditions, 'Upgradeable');
  if (upgradeable?.status === 'False') {
    const version = cv.status?.desired?.version ?? '';
    try {
      injectUpgradeable(b, parseSemver(version), upgradeable);
    } catch (e) {
      if (!quiet)
        err(
          `warning: Cannot inject Upgradeable=False as a conditional update risk: cannot parse SemVer version ${JSON.stringify(version)}: ${(e as Error).message}\n\nReason: ${upgradeable.reason ?? ''}\n  Message: ${indent(upgradeable.message)}\n\n`,
        );
    }
  }
  const version = validateRecommendOptions(o);
  if (version !== undefined) {
    const error = versionDetail(b, version, o, issues, out);
    return { chunks: chunks.filter((c) => c.text !== ''), ...(error !== undefined ? { error } : {}) };
  }
  if (b.size === 0)
    out(
      'No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.\n',
    );
  for (const major of [...b.keys()].sort((x, y) => y - x)) {
    const minors = b.get(major) ?? new Map<number, ConditionalUpdate[]>();
    for (const minor of [...minors.keys()].sort((x, y) => y - x))
      out(formatBucket(`${major}.${minor}`, minors.get(minor) ?? [], o.showOutdatedReleases === true));
  }
  return { chunks: chunks.filter((c) => c.text !== '') };
}
