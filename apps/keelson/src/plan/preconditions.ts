/**
 * The CVO's update preconditions as the plan reports them. The checks are the CVO's own (`runPreconditions` and
 * `summarizePreconditions` from @keelson/cluster-version, the functions the CVO app calls), run against the cluster's
 * ClusterVersion when the plan reads a live cluster, else against a ClusterVersion made from `--from` (history: the
 * current version Completed) and the update-service answer. What cannot be known without a cluster is reported
 * `NotEvaluated` instead of being guessed.
 */
import type { ClusterVersion, ConditionalUpdate, Release } from '@keelson/api';
import { parseSemver } from '@keelson/update-graph';
import {
  PRECONDITION_NAMES,
  runPreconditions,
  summarizePreconditions,
  updateType,
  type PreconditionError,
  type PreconditionName,
} from '@keelson/cluster-version';

/** One precondition result. */
export interface PreconditionResult {
  name: PreconditionName;
  /** passed, failed (blocking unless `warning`), or cannot be known without the cluster. */
  state: 'Passed' | 'Failed' | 'NotEvaluated';
  reason?: string;
  message?: string;
  /** A failure that does not block (upstream NonBlockingWarning). */
  warning?: boolean;
}

/** What the update service says about the current version (absent when no service was consulted). */
export interface GraphVerdict {
  upstream: string;
  channel: string;
  /** Recommended updates (the CVO's `availableUpdates`). */
  recommended: readonly { version: string; image: string }[];
  /** Conditional updates with their evaluated `Recommended` condition (absent when evaluation gave none). */
  conditional: readonly {
    version: string;
    image: string;
    risks: readonly string[];
    recommended?: { status: string; reason: string; message: string };
  }[];
}

/** The ClusterVersion the preconditions judge when there is no cluster: `current` installed and Completed. */
export function offlineClusterVersion(current: { version: string; image: string }): ClusterVersion {
  return {
    metadata: { name: 'version' },
    spec: { clusterID: '' },
    status: {
      desired: { version: current.version, image: current.image },
      history: [
        {
          state: 'Completed',
          version: current.version,
          image: current.image,
          startedTime: '',
          completionTime: '',
          verified: false,
        },
      ],
      observedGeneration: 0,
      versionHash: '',
      availableUpdates: null,
    },
  };
}

/** `cv` with the update service's answer in place of its status (what the CVO writes after polling the graph). */
export function withGraphVerdict(cv: ClusterVersion, graph: GraphVerdict): ClusterVersion {
  const status = cv.status ?? offlineClusterVersion({ version: '', image: '' }).status;
  if (status === undefined) return cv;
  const availableUpdates: Release[] = graph.recommended.map((r) => ({ version: r.version, image: r.image }));
  const conditionalUpdates: ConditionalUpdate[] = graph.conditional.map((c) => ({
    release: { version: c.version, image: c.image },
    risks: [],
    conditions:
      c.recommended === undefined
        ? []
        : [
            {
              type: 'Recommended',
              status: c.recommended.status as 'True' | 'False' | 'Unknown',
              reason: c.recommended.reason,
              message: c.recommended.message,
              lastTransitionTime: '',
            },
          ],
  }));
  const conditions = [
    ...(status.conditions ?? []).filter((c) => c.type !== 'RetrievedUpdates'),
    { type: 'RetrievedUpdates', status: 'True' as const, lastTransitionTime: '' },
  ];
  return {
    ...cv,
    spec: { ...cv.spec, upstream: graph.upstream, channel: graph.channel },
    status: { ...status, availableUpdates, conditionalUpdates, conditions },
  };
}

/** How the ClusterVersion being judged was obtained. */
export interface JudgeContext {
  /** True when `cv` was read from a live cluster (every precondition can be judged). */
  live: boolean;
  /** True when the update service was consulted (or the live ClusterVersion carries its answer). */
  graph: boolean;
}

function minorOrMajor(current: string, target: string): boolean {
  try {
    const t = updateType(parseSemver(current), parseSemver(target));
    return t === 'Major' || t === 'Minor';
  } catch {
    return false;
  }
}

/** Why a precondition that passed offline still cannot be trusted (undefined when the result stands). */
function notEvaluated(name: PreconditionName, current: string, target: string, ctx: JudgeContext): string | undefined {
  if (ctx.live) return undefined;
  if (name === 'ClusterVersionUpgradeable' && minorOrMajor(current, target)) {
    return 'a minor or major update is blocked while ClusterVersion reports Upgradeable=False (any ClusterOperator Upgradeable=False, overrides, deletions in progress): give --kubeconfig to judge it';
  }
  if (name === 'ClusterVersionRecommendedUpdate' && !ctx.graph)
    return 'no update service given (--upstream URL --channel NAME) and no cluster (--kubeconfig)';
  return undefined;
}

/**
 * Runs the CVO's preconditions for `cv` → `target` and reports every one of them in upstream order: `Failed` with the
 * CVO's reason and message, `Passed`, or `NotEvaluated` when the answer depends on cluster state the plan does not have.
 */
export function computePreconditions(
  cv: ClusterVersion,
  target: string,
  ctx: JudgeContext,
): { results: PreconditionResult[]; errors: PreconditionError[] } {
  const current = cv.status?.desired.version ?? '';
  const errors = runPreconditions(cv, target).filter((e) => notEvaluated(e.name, current, target, ctx) === undefined);
  const results = PRECONDITION_NAMES.map((name): PreconditionResult => {
    const e = errors.find((x) => x.name === name);
    if (e !== undefined)
      return {
        name,
        state: 'Failed',
        reason: e.reason,
        message: e.message,
        ...(e.nonBlockingWarning ? { warning: true } : {}),
      };
    const why = notEvaluated(name, current, target, ctx);
    return why === undefined ? { name, state: 'Passed' } : { name, state: 'NotEvaluated', message: why };
  });
  return { results, errors };
}

/** B's signature check as the plan reports it. */
export interface SignatureVerdict {
  verified: boolean;
  detail: string;
}

/** What the CVO would do with the update request. */
export interface Acceptance {
  /** `Accepted` (nothing to report), `AcceptedWithRisks` (warnings or forced, recorded in history acceptedRisks), `Blocked`. */
  verdict: 'Accepted' | 'AcceptedWithRisks' | 'Blocked';
  /** The ReleaseAccepted=False reason when blocked: `RetrievePayload` (signature) or `PreconditionChecks`. */
  reason?: 'RetrievePayload' | 'PreconditionChecks';
  /** The CVO's text: the ReleaseAccepted message when blocked, the acceptedRisks text otherwise. */
  message?: string;
  /** Preconditions the plan could not judge (no cluster, no update service): the verdict holds only if they pass. */
  notEvaluated?: PreconditionName[];
}

/**
 * The CVO's decision (upstream pkg/cvo/sync_worker.go and pkg/payload/precondition): an unverified signature refuses the payload unless forced; then the
 * preconditions' summary blocks (ReleaseAccepted=False, `PreconditionChecks`) or becomes accepted risks.
 */
export function decideAcceptance(input: {
  version: string;
  image: string;
  errors: readonly PreconditionError[];
  signature?: SignatureVerdict;
  force: boolean;
  notEvaluated?: readonly PreconditionName[];
}): Acceptance {
  const a = acceptance(input);
  return input.notEvaluated !== undefined && input.notEvaluated.length > 0 && a.verdict !== 'Blocked'
    ? { ...a, notEvaluated: [...input.notEvaluated] }
    : a;
}

function acceptance(input: {
  version: string;
  image: string;
  errors: readonly PreconditionError[];
  signature?: SignatureVerdict;
  force: boolean;
}): Acceptance {
  const risks: string[] = [];
  const sig = input.signature;
  if (sig !== undefined && !sig.verified) {
    const failure = `The update cannot be verified: ${sig.detail}`;
    if (!input.force)
      return {
        verdict: 'Blocked',
        reason: 'RetrievePayload',
        message: `Retrieving payload failed version="${input.version}" image="${input.image}" failure=${failure}`,
      };
    risks.push(
      `Target release version="${input.version}" image="${input.image}" cannot be verified, but continuing anyway because the update was forced: ${failure}`,
    );
  }
  const summary = summarizePreconditions(input.errors, input.force);
  if (summary.blocking) {
    return {
      verdict: 'Blocked',
      reason: 'PreconditionChecks',
      message: `Preconditions failed for payload loaded version="${input.version}" image="${input.image}": ${summary.message ?? ''}`,
    };
  }
  if (summary.message !== null) risks.push(summary.message);
  return risks.length === 0 ? { verdict: 'Accepted' } : { verdict: 'AcceptedWithRisks', message: risks.join('\n') };
}
