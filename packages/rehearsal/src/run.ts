/**
 * `rehearse`: a whole OpenShift update on one machine. Releases A and B (generated, published as signed OCI images, or
 * the user's), a local update service, the embedded API server behind a counting proxy, the real Keelson components
 * (through {@link loadComponents}), install A, `upgrade --to B`, and a timeline of everything the observer saw.
 */
import { KubeClient } from '@keelson/kube';
import { computeRunLevels } from './run-levels.js';
import { loadComponents, type RehearsalComponents } from './components.js';
import { describeFaults } from './faults.js';
import { diagnose, type Diagnosis } from './diagnosis.js';
import { computeReport, EXIT_CODES, withinMaxUnavailable, type ApiCounts, type RehearsalReport } from './report.js';
import type { TimelineEvent } from './timeline.js';
import { type RehearsalVerdict } from './verdict.js';
import { InstallStalled, Session } from './session.js';
import { EMPTY_API, type Release, type RehearseOptions, type RehearsalResult } from './options.js';
import { checkFaultTargets, connectTarget, heldKubeconfig, prepareReleases, startCluster } from './phase-setup.js';
import { armFailBoot, install, mirrorRelease } from './phase-install.js';
import { arm, daemonsSettled, update } from './phase-update.js';

function configName(p: unknown): string {
  const name = (p as { status?: { configuration?: { name?: unknown } } }).status?.configuration?.name;
  return typeof name === 'string' ? name : '';
}

/** Runs the rehearsal; never throws for a failed update (that is the report's outcome), only for broken setup. */
export async function rehearse(opts: RehearseOptions): Promise<RehearsalResult> {
  const t0 = Date.now();
  const events: TimelineEvent[] = [];
  const emit = (e: TimelineEvent): void => {
    events.push(e);
    opts.onEvent?.(e);
  };
  return runWith(loadComponents(opts.requestUpgrade).components, opts, t0, emit, events);
}

async function runWith(
  c: RehearsalComponents,
  opts: RehearseOptions,
  t0: number,
  emit: (e: TimelineEvent) => void,
  events: TimelineEvent[],
): Promise<RehearsalResult> {
  const s = new Session(c, opts, t0, emit, events);
  let verdict: RehearsalVerdict = { outcome: 'Stalled', message: '' };
  let a: Release | undefined;
  let b: Release | undefined;
  let diagnosis: Diagnosis[] = [];
  let direct: KubeClient | undefined;
  let result: RehearsalResult | undefined;
  // refused before anything is started, written or reported
  if (opts.kubeconfig !== undefined) await connectTarget(s, opts.kubeconfig);
  try {
    try {
      emit({
        t: s.t(),
        type: 'phase',
        phase: 'setup',
        detail:
          opts.kubeconfig !== undefined
            ? `releases, registry, signature store, update service; the API server of --kubeconfig ${opts.kubeconfig}`
            : 'releases, registry, signature store, update service, API server',
      });
      ({ a, b } = await prepareReleases(s));
      checkFaultTargets(s, a, b);
      emit({
        t: s.t(),
        type: 'phase',
        phase: 'setup',
        detail: `releases ${a.version} (${a.pullSpec}) -> ${b.version} (${b.pullSpec})`,
        from: a.version,
        to: b.version,
      });
      const cl = await startCluster(s, a, b);
      direct = cl.direct;
      const { nodes, operators, startCvo } = await install(s, a, cl.svc, cl.obs, cl.ctx, cl.direct);
      await mirrorRelease(s, b, cl.obs, cl.ctx, cl.direct);
      const installedConfigs = new Map(cl.obs.pools().map((p) => [p.metadata.name ?? '', configName(p)]));
      await daemonsSettled(cl.obs);
      await arm(s, b, cl.direct, operators, cl.ctx);
      const machines = await armFailBoot(s, nodes, cl.ctx);
      verdict = await update(s, b, cl.obs, machines, startCvo, cl.ctx, installedConfigs, cl.direct);
    } catch (e) {
      if (!(e instanceof InstallStalled)) throw e;
      verdict = { outcome: 'Stalled', message: e.message };
    }
    // what holds a failed or stalled run, read while the cluster still runs
    if (verdict.outcome !== 'Completed' && direct !== undefined)
      diagnosis = await diagnose(direct, b?.version ?? a?.version ?? '', {
        workloads: opts.kubeconfig !== undefined,
        ...(opts.diagnosePools !== undefined ? { pools: opts.diagnosePools } : {}),
      });
    emit({ t: s.t(), type: 'phase', phase: 'finished', detail: verdict.outcome });
    result = {
      report: finalReport(events, opts, { a, b, verdict, api: s.proxy?.counts() ?? EMPTY_API, diagnosis }),
      events,
    };
    if (opts.hold !== undefined && s.proxy !== undefined && s.kubeconfigPath !== undefined)
      await opts.hold(result.report, await heldKubeconfig(s, s.proxy, s.kubeconfigPath));
  } finally {
    s.closed = true;
    if (result === undefined) emit({ t: s.t(), type: 'phase', phase: 'finished', detail: verdict.outcome });
    await s.stack.stopAll();
  }
  return result;
}

/** The report of a run, with the maxUnavailable invariant checked. */
function finalReport(
  events: readonly TimelineEvent[],
  opts: RehearseOptions,
  r: {
    a: Release | undefined;
    b: Release | undefined;
    verdict: RehearsalVerdict;
    api: ApiCounts;
    diagnosis: Diagnosis[];
  },
): RehearsalReport {
  const { a, b } = r;
  const report = computeReport(events, {
    from: a?.version ?? opts.from ?? 'A',
    to: b?.version ?? opts.to ?? 'B',
    outcome: r.verdict.outcome,
    message: r.verdict.message,
    timeScale: opts.timeScale,
    api: r.api,
    runLevels:
      a !== undefined && b !== undefined
        ? computeRunLevels(a.payload, b.payload).map((l) => ({
            level: l.level,
            operators: l.operators.map((o) => o.name),
          }))
        : [],
    faults: describeFaults(opts.faults),
    diagnosis: r.diagnosis,
  });
  if (report.outcome === 'Completed' && !withinMaxUnavailable(report)) {
    return {
      ...report,
      outcome: 'InvariantViolated',
      exitCode: EXIT_CODES.InvariantViolated,
      message: `more nodes than maxUnavailable were unavailable at once: ${report.pools.map((p) => `${p.name} ${p.maxUnavailableSeen}/${p.maxUnavailable}`).join(', ')}`,
    };
  }
  return report;
}
