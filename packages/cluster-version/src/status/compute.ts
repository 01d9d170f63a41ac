/**
 * Pure computation of ClusterVersion status (upstream pkg/cvo/status.go) from the previous status and the operator's state.
 * The caller writes the result through the /status subresource only when it differs.
 */
import { kubeTime, setCondition, removeCondition, type Condition } from '@keelson/kube';
import type {
  ClusterVersion,
  ClusterVersionStatus,
  ConditionalUpdate as ConditionalUpdateStatus,
  Release,
} from '@keelson/api';
import { summaryForReason } from '../errors.js';
import type { ErrorInterpretation } from '../sync/summarize.js';
import { mergeHistory } from './history.js';

/** What the sync worker reports. */
export interface WorkerState {
  mode: 'initializing' | 'updating' | 'reconciling';
  /** Release being applied. */
  desired: Release;
  verified: boolean;
  acceptedRisks?: string;
  local: boolean;
  done: number;
  total: number;
  /** The last apply of this release completed. */
  completed: boolean;
  /** Interpretation of the last apply's error, if any. */
  failure?: ErrorInterpretation;
  generation: number;
  versionHash: string;
}

/** Everything that feeds the status. */
export interface StatusInput {
  cv: ClusterVersion;
  now: Date;
  worker: WorkerState | undefined;
  releaseAccepted?: Condition;
  retrievedUpdates?: Condition;
  availableUpdates?: Release[] | null;
  conditionalUpdates?: ConditionalUpdateStatus[];
  capabilities: { enabled: readonly string[]; known: readonly string[]; implicit: readonly string[] };
  upgradeable?: Condition | null;
  /**
   * The whole Upgradeable family (upstream `upgradeable.NeedsUpdate`): each is set, and every other `Upgradeable*`
   * condition is removed. Takes precedence over `upgradeable`.
   */
  upgradeableConditions?: readonly Condition[];
  /** Spec validation errors (condition Invalid). */
  invalid: string[];
  /** No release at all to apply. */
  noDesiredImage?: boolean;
}

function set(conds: Condition[], c: Condition, now: Date): Condition[] {
  return setCondition(conds, c, now).conditions;
}

function pct(done: number, total: number): number {
  return total > 0 ? Math.floor((done * 100) / total) : 0;
}

/** Progressing/Failing for the worker state. */
function progressConditions(conds: Condition[], w: WorkerState, invalid: boolean, now: Date): Condition[] {
  const v = w.desired.version ?? '';
  const f = w.failure;
  const reconciling = w.mode === 'reconciling' && w.completed;
  let out = conds;
  if (f && f.failing !== 'false') {
    out = set(
      out,
      { type: 'Failing', status: f.failing === 'true' ? 'True' : 'Unknown', reason: f.reason, message: f.message },
      now,
    );
  } else out = set(out, { type: 'Failing', status: 'False', reason: '', message: '' }, now);
  if (f && f.failing === 'true') {
    const summary = summaryForReason(f.reason, f.name ?? '');
    if (reconciling)
      out = set(
        out,
        { type: 'Progressing', status: 'False', reason: f.reason, message: `Error while reconciling ${v}: ${summary}` },
        now,
      );
    else
      out = set(
        out,
        { type: 'Progressing', status: 'True', reason: f.reason, message: `Unable to apply ${v}: ${summary}` },
        now,
      );
    return out;
  }
  if (reconciling) {
    out = set(
      out,
      {
        type: 'Progressing',
        status: 'False',
        reason: '',
        message: invalid ? `Stopped at ${v}: the cluster version is invalid` : `Cluster version is ${v}`,
      },
      now,
    );
    return out;
  }
  let msg =
    w.total > 0
      ? `Working towards ${v}: ${w.done} of ${w.total} done (${pct(w.done, w.total)}% complete)`
      : `Working towards ${v}`;
  let reason = '';
  if (f?.waitingOn !== undefined) {
    msg += `, ${f.waitingOn}`;
    reason = f.reason;
  }
  return set(out, { type: 'Progressing', status: 'True', reason, message: msg }, now);
}

/** Sets the Upgradeable family and removes the `Upgradeable*` conditions no longer computed. */
function setUpgradeable(conds: Condition[], next: readonly Condition[], now: Date): Condition[] {
  let out = conds;
  for (const c of next) out = set(out, c, now);
  const keep = new Set(next.map((c) => c.type));
  for (const c of conds)
    if (c.type.startsWith('Upgradeable') && !keep.has(c.type)) out = removeCondition(out, c.type).conditions;
  return out;
}

/** Computes the next status. */
export function computeStatus(input: StatusInput): ClusterVersionStatus {
  const prev = input.cv.status;
  const now = input.now;
  const nowStr = kubeTime(now);
  let conds: Condition[] = [...(prev?.conditions ?? [])];
  const w = input.worker;
  let history = prev?.history ?? [];
  let desired: Release = prev?.desired ?? { version: '', image: '' };
  if (w) {
    desired = { ...w.desired };
    history = mergeHistory(
      history,
      {
        version: w.desired.version ?? '',
        image: w.desired.image ?? '',
        verified: w.verified,
        ...(w.acceptedRisks !== undefined ? { acceptedRisks: w.acceptedRisks } : {}),
        completed: w.completed,
        local: w.local,
      },
      nowStr,
    );
  }
  const completed = history.find((h) => h.state === 'Completed');
  if (completed && w?.completed)
    conds = set(
      conds,
      { type: 'Available', status: 'True', reason: '', message: `Done applying ${completed.version}` },
      now,
    );
  else if (!conds.some((c) => c.type === 'Available'))
    conds = set(conds, { type: 'Available', status: 'False', reason: '', message: '' }, now);
  if (input.invalid.length > 0) {
    const msg =
      input.invalid.length === 1
        ? `The cluster version is invalid: ${input.invalid[0] ?? ''}`
        : `The cluster version is invalid:\n* ${input.invalid.join('\n* ')}`;
    conds = set(conds, { type: 'Invalid', status: 'True', reason: 'InvalidClusterVersion', message: msg }, now);
  } else conds = removeCondition(conds, 'Invalid').conditions;
  if (input.noDesiredImage) {
    conds = set(
      conds,
      {
        type: 'Failing',
        status: 'True',
        reason: 'NoDesiredImage',
        message: 'No configured operator version, unable to update cluster',
      },
      now,
    );
  } else if (w) conds = progressConditions(conds, w, input.invalid.length > 0, now);
  conds = set(
    conds,
    input.retrievedUpdates ??
      conds.find((c) => c.type === 'RetrievedUpdates') ?? {
        type: 'RetrievedUpdates',
        status: 'False',
        reason: '',
        message: '',
      },
    now,
  );
  if (input.releaseAccepted) conds = set(conds, input.releaseAccepted, now);
  const implicit = [...input.capabilities.implicit].sort();
  conds = set(
    conds,
    implicit.length > 0
      ? {
          type: 'ImplicitlyEnabledCapabilities',
          status: 'True',
          reason: 'CapabilitiesImplicitlyEnabled',
          message: `The following capabilities could not be disabled: ${implicit.join(', ')}`,
        }
      : {
          type: 'ImplicitlyEnabledCapabilities',
          status: 'False',
          reason: 'AsExpected',
          message: 'Capabilities match configured spec',
        },
    now,
  );
  if (input.upgradeableConditions) conds = setUpgradeable(conds, input.upgradeableConditions, now);
  else if (input.upgradeable) conds = set(conds, input.upgradeable, now);
  else if (input.upgradeable === null) conds = removeCondition(conds, 'Upgradeable').conditions;
  const status: ClusterVersionStatus = {
    desired,
    history,
    observedGeneration: w?.generation ?? prev?.observedGeneration ?? 0,
    versionHash: w?.versionHash ?? prev?.versionHash ?? '',
    capabilities: {
      enabledCapabilities: [...input.capabilities.enabled].sort(),
      knownCapabilities: [...input.capabilities.known].sort(),
    },
    conditions: orderConditions(conds).map((c) => ({ ...c, lastTransitionTime: c.lastTransitionTime ?? nowStr })),
    availableUpdates: input.availableUpdates !== undefined ? input.availableUpdates : (prev?.availableUpdates ?? null),
  };
  const cu = input.conditionalUpdates ?? prev?.conditionalUpdates;
  if (cu !== undefined && cu.length > 0) status.conditionalUpdates = cu;
  return status;
}

const ORDER = [
  'RetrievedUpdates',
  'Invalid',
  'ReleaseAccepted',
  'ImplicitlyEnabledCapabilities',
  'Available',
  'Failing',
  'Progressing',
  'Upgradeable',
];

function orderConditions(conds: Condition[]): Condition[] {
  const rank = (t: string): number => {
    const i = ORDER.indexOf(t);
    return i < 0 ? ORDER.length : i;
  };
  return [...conds].sort((a, b) => rank(a.type) - rank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
