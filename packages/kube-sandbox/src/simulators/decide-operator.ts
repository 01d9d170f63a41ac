/**
 * Pure decisions of the cluster-operator simulator: which versions a simulated operator reports, whether its
 * component finished rolling out, and the status it writes. No I/O; the controller in operator-simulator.ts
 * feeds these functions from its informers.
 */
import type {
  OperandVersion,
  OperatorCondition,
  OperatorFault,
  RelatedObject,
  SimClusterOperator,
  SimDeployment,
} from './operator-types.js';

/** Environment variable through which real OpenShift operators learn the release they belong to. */
export const RELEASE_VERSION_ENV = 'RELEASE_VERSION';

/** Condition reason written when nothing is wrong (the value upstream operators use). */
export const REASON_AS_EXPECTED = 'AsExpected';

/** Namespaces named by a ClusterOperator's `status.relatedObjects` (namespace objects and namespaced objects). */
export function relatedNamespaces(related: readonly RelatedObject[] | undefined): string[] {
  const out = new Set<string>();
  for (const r of related ?? []) {
    if (r.group === '' && r.resource === 'namespaces' && r.name !== '') out.add(r.name);
    if (r.namespace !== undefined && r.namespace !== '') out.add(r.namespace);
  }
  return [...out].sort();
}

/** `RELEASE_VERSION` of the first container that sets it, or undefined. */
export function releaseVersionOf(d: SimDeployment): string | undefined {
  for (const c of d.spec?.template?.spec?.containers ?? []) {
    const e = c.env?.find((v) => v.name === RELEASE_VERSION_ENV);
    if (e?.value !== undefined && e.value !== '') return e.value;
  }
  return undefined;
}

/** Inputs of {@link resolveExpectedVersions}. */
export interface ExpectedVersionsInput {
  /** Versions given by the caller for this operator (from the payload's ClusterOperator manifest). */
  explicit: readonly OperandVersion[] | undefined;
  /** Deployments in the operator's related namespaces. */
  deployments: readonly SimDeployment[];
  /** `ClusterVersion.status.desired.version`. */
  desiredVersion: string | undefined;
}

/**
 * The versions a simulated operator reports, in order of preference: the manifest's `status.versions` given by
 * the caller; else `operator: <RELEASE_VERSION>` of its Deployments (how real operators learn their version, so
 * the report follows the CVO's rollout of the Deployment); else `operator: <ClusterVersion desired version>`.
 */
export function resolveExpectedVersions(input: ExpectedVersionsInput): OperandVersion[] | undefined {
  if (input.explicit !== undefined && input.explicit.length > 0)
    return input.explicit.map((v) => ({ name: v.name, version: v.version }));
  const sorted = [...input.deployments].sort((a, b) => deploymentKey(a).localeCompare(deploymentKey(b)));
  for (const d of sorted) {
    const v = releaseVersionOf(d);
    if (v !== undefined) return [{ name: 'operator', version: v }];
  }
  if (input.desiredVersion !== undefined && input.desiredVersion !== '')
    return [{ name: 'operator', version: input.desiredVersion }];
  return undefined;
}

function deploymentKey(d: SimDeployment): string {
  return `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`;
}

/**
 * Deployments that have not finished rolling out: the controller has not observed the latest generation, or
 * fewer than `spec.replicas` (default 1) replicas are updated and available. Returns `namespace/name` keys.
 */
export function unavailableDeployments(deployments: readonly SimDeployment[]): string[] {
  const out: string[] = [];
  for (const d of deployments) {
    const want = d.spec?.replicas ?? 1;
    const st = d.status ?? {};
    const observed = (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
    const ok = observed && (st.updatedReplicas ?? 0) >= want && (st.availableReplicas ?? 0) >= want;
    if (!ok) out.push(deploymentKey(d));
  }
  return out.sort();
}

/** The conditions a simulated operator reports for a fault (or none). */
export function simulatedConditions(
  fault: OperatorFault | undefined,
  operatorVersion: string,
): { type: string; status: OperatorCondition['status']; reason: string; message: string }[] {
  const at = operatorVersion === '' ? '' : ` at ${operatorVersion}`;
  const available = {
    type: 'Available',
    status: 'True' as const,
    reason: REASON_AS_EXPECTED,
    message: `Simulated cluster operator: available${at}`,
  };
  const progressing = {
    type: 'Progressing',
    status: 'False' as const,
    reason: REASON_AS_EXPECTED,
    message: `Simulated cluster operator: rolled out${at}`,
  };
  const degraded = {
    type: 'Degraded',
    status: 'False' as const,
    reason: REASON_AS_EXPECTED,
    message: 'Simulated cluster operator: no problems',
  };
  const upgradeable = {
    type: 'Upgradeable',
    status: 'True' as const,
    reason: REASON_AS_EXPECTED,
    message: 'Simulated cluster operator: upgradeable',
  };
  switch (fault?.kind) {
    case 'degraded':
      return [
        available,
        progressing,
        {
          type: 'Degraded',
          status: 'True',
          reason: fault.reason ?? 'SimulatedFault',
          message: fault.message ?? 'Simulated cluster operator: degraded by an injected fault',
        },
        upgradeable,
      ];
    case 'unavailable':
      return [
        {
          type: 'Available',
          status: 'False',
          reason: fault.reason ?? 'SimulatedFault',
          message: fault.message ?? 'Simulated cluster operator: unavailable by an injected fault',
        },
        progressing,
        degraded,
        upgradeable,
      ];
    case 'not-upgradeable':
      return [
        available,
        progressing,
        degraded,
        {
          type: 'Upgradeable',
          status: 'False',
          reason: fault.reason ?? 'SimulatedFault',
          message: fault.message ?? 'Simulated cluster operator: not upgradeable by an injected fault',
        },
      ];
    default:
      return [available, progressing, degraded, upgradeable];
  }
}

/**
 * The status to write: the given versions and conditions, keeping `lastTransitionTime` of a condition whose
 * status did not change, and the live conditions of other types (written by someone else) untouched.
 */
export function buildOperatorStatus(
  live: SimClusterOperator,
  versions: readonly OperandVersion[],
  fault: OperatorFault | undefined,
  nowIso: string,
): { versions: OperandVersion[]; conditions: OperatorCondition[] } {
  const prev = live.status?.conditions ?? [];
  const operatorVersion = versions.find((v) => v.name === 'operator')?.version ?? versions[0]?.version ?? '';
  const wanted = simulatedConditions(fault, operatorVersion);
  const ours = new Set(wanted.map((c) => c.type));
  const conditions: OperatorCondition[] = prev.filter((c) => !ours.has(c.type)).map((c) => ({ ...c }));
  for (const w of wanted) {
    const old = prev.find((c) => c.type === w.type);
    conditions.push({
      ...w,
      lastTransitionTime: old !== undefined && old.status === w.status ? old.lastTransitionTime : nowIso,
    });
  }
  return { versions: versions.map((v) => ({ name: v.name, version: v.version })), conditions };
}

/** True when the live status already says exactly what `next` says (ignoring transition times). */
export function statusUpToDate(
  live: SimClusterOperator,
  next: { versions: OperandVersion[]; conditions: OperatorCondition[] },
): boolean {
  const lv = live.status?.versions ?? [];
  if (lv.length !== next.versions.length) return false;
  for (const v of next.versions) if (!lv.some((l) => l.name === v.name && l.version === v.version)) return false;
  const lc = live.status?.conditions ?? [];
  for (const c of next.conditions) {
    const l = lc.find((x) => x.type === c.type);
    if (!l || l.status !== c.status || (l.reason ?? '') !== (c.reason ?? '') || (l.message ?? '') !== (c.message ?? ''))
      return false;
  }
  return true;
}

/** Inputs of {@link decideOperatorReport}. */
export interface OperatorReportInput {
  operator: SimClusterOperator;
  /** What it should report (see {@link resolveExpectedVersions}); undefined = nothing known yet. */
  expected: readonly OperandVersion[] | undefined;
  fault: OperatorFault | undefined;
  /** Deployments in the related namespaces (only looked at when `waitForDeployments`). */
  deployments: readonly SimDeployment[];
  waitForDeployments: boolean;
  /** When the simulator first saw the operator needing this report (ms since epoch). */
  pendingSince: number;
  now: number;
  /** Base delay before an operator reports. */
  delayMs: number;
}

/** What the simulator does for one operator now. */
export type OperatorReportDecision =
  | { action: 'none'; why: string }
  | { action: 'wait'; afterMs: number | undefined; why: string }
  | { action: 'report'; status: { versions: OperandVersion[]; conditions: OperatorCondition[] } };

/**
 * Decides whether a simulated operator writes its status now, later (and why), or never. `afterMs` undefined
 * means "until something changes" (a Deployment rollout).
 */
export function decideOperatorReport(input: OperatorReportInput): OperatorReportDecision {
  if (input.fault?.kind === 'never') return { action: 'none', why: 'fault "never": this operator never reports' };
  if (input.expected === undefined || input.expected.length === 0)
    return {
      action: 'none',
      why: 'no version to report (no manifest versions, RELEASE_VERSION or ClusterVersion desired version)',
    };
  const status = buildOperatorStatus(input.operator, input.expected, input.fault, new Date(input.now).toISOString());
  if (statusUpToDate(input.operator, status)) return { action: 'none', why: 'status already reported' };
  if (input.waitForDeployments) {
    const pending = unavailableDeployments(input.deployments);
    if (pending.length > 0)
      return { action: 'wait', afterMs: undefined, why: `waiting for Deployments to roll out: ${pending.join(', ')}` };
  }
  const extra = input.fault?.kind === 'slow' ? input.fault.extraDelayMs : 0;
  const due = input.pendingSince + input.delayMs + extra;
  if (input.now < due) return { action: 'wait', afterMs: due - input.now, why: `reporting in ${due - input.now} ms` };
  return { action: 'report', status };
}
