/** Runs `keelson rehearse --json` with the smallest cluster and one fault, as a real child process. */
import type { RehearsalReport } from '../../src/rehearse/report.js';
import { cli } from '../cli-helpers.js';

/** Exit code, the parsed JSON report and stderr of one rehearsal. */
export interface FaultRun {
  code: number;
  report: RehearsalReport;
  stderr: string;
}

/** One master, one worker (two when `workers` says so), time scale 120, generous per-phase timeout. */
export async function rehearseWith(args: readonly string[], workers = 1): Promise<FaultRun> {
  const r = await cli('rehearse', '--masters', '1', '--workers', String(workers), '--time-scale', '120', '--timeout', '300', '--json', ...args);
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
  return report.conditions.map((c) => `${c.object} ${c.condition.type}=${c.condition.status ?? ''} ${c.condition.reason ?? ''}: ${c.condition.message ?? ''}`);
}
