/** Runs `keelson rehearse --json` with the smallest cluster and one fault, as a real child process. */
import type { RehearsalReport } from '@keelson/rehearsal';
import { cli } from '../cli-helpers.js';

/** Exit code, the parsed JSON report and stderr of one rehearsal. */
export interface FaultRun {
  code: number;
  report: RehearsalReport;
  stderr: string;
}

/** Size and per-phase timeout of a fault rehearsal. */
export interface FaultRunOptions {
  /** Worker nodes (default 1). */
  workers?: number;
  /**
   * `--timeout` seconds per phase (default 300, generous for loaded CI cores). Faults that end in a held condition
   * use a shorter one: a NodeDegraded or Failing condition counts once held for a quarter of it.
   */
  timeoutSeconds?: number;
}

/** One master, one worker (or `workers`), time scale 120. */
export async function rehearseWith(args: readonly string[], o: FaultRunOptions = {}): Promise<FaultRun> {
  const r = await cli(
    'rehearse',
    '--masters',
    '1',
    '--workers',
    String(o.workers ?? 1),
    '--time-scale',
    '120',
    '--timeout',
    String(o.timeoutSeconds ?? 300),
    '--json',
    ...args,
  );
  let report: RehearsalReport;
  try {
    report = JSON.parse(r.stdout) as RehearsalReport;
  } catch {
    throw new Error(`rehearse ${args.join(' ')} printed no JSON report (exit ${r.code}): ${r.stderr.slice(-2000)}`);
  }
  return { code: r.code, report, stderr: r.stderr };
}

/** `object type=status reason: message` of every condition the report saw. */
export function conditionLines(report: RehearsalReport): string[] {
  return report.conditions.map(
    (c) =>
      `${c.object} ${c.condition.type}=${c.condition.status ?? ''} ${c.condition.reason ?? ''}: ${c.condition.message ?? ''}`,
  );
}
