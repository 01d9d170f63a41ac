/** `keelson rehearse`: a whole OpenShift update of a simulated cluster on this machine, with a live view and a report. */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import {
  RehearsalPayloadError,
  FaultSpecError,
  parseFaults,
  FAULT_KINDS,
  MaxUnavailableSpecError,
  parseMaxUnavailable,
  EXIT_CODES,
  formatReport,
  type RehearsalReport,
  type TimelineEvent,
  rehearse,
  RehearsalTargetError,
  type RehearseOptions,
} from '@keelson/rehearsal';
import { CliError } from '../errors.js';
import { diagnoseClusterPools, requestUpgradeLikeTheCli } from '../rehearse/cli-hooks.js';
import { renderHtmlReport } from '../rehearse/html.js';
import { LiveView, type LiveMode } from '../rehearse/live-view.js';

interface RehearseFlags {
  from?: string;
  to?: string;
  force?: boolean;
  releaseMirror?: boolean;
  masters: string;
  workers: string;
  pools: string[];
  maxUnavailable: string[];
  timeScale: string;
  fault: string[];
  kill: string[];
  pausePool: string[];
  quiet?: boolean;
  json?: boolean;
  report?: string;
  timeout: string;
  workDir?: string;
  keep?: boolean;
  componentLog?: string;
  hold?: boolean;
  kubeconfig?: string;
}

const repeat = (v: string, prev: string[]): string[] => [...prev, v];

function count(v: string, flag: string, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) > max)
    throw new CliError(`${flag} must be an integer 0..${max}, got ${JSON.stringify(v)}`, 2);
  return Number(v);
}

function parsePools(list: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of list.flatMap((x) => x.split(','))) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(\d+)$/.exec(p);
    if (m === null || m[1] === 'master' || m[1] === 'worker')
      throw new CliError(`--pools ${p}: expected NAME=COUNT for a custom pool (not master or worker)`, 2);
    out[m[1] ?? ''] = count(m[3] ?? '', `--pools ${p}`, 1000);
  }
  return out;
}

/**
 * `--hold`: says how to reach the cluster, writes its kubeconfig path to `marker` (scripts wait for that file), and
 * resolves on SIGINT or SIGTERM (the rehearsal then stops every component).
 */
async function holdCluster(kubeconfig: string, marker: string): Promise<void> {
  await writeFile(marker, `${kubeconfig}\n`);
  process.stderr.write(
    [
      `cluster held (Ctrl-C or kill ${process.pid} stops it); explore it with:`,
      `  export KUBECONFIG=${kubeconfig}`,
      `  keelson upgrade status --kubeconfig ${kubeconfig}`,
      `  keelson mcp --kubeconfig ${kubeconfig}; keelson mcp why worker --kubeconfig ${kubeconfig}`,
      `  kubectl --kubeconfig ${kubeconfig} get clusterversion,clusteroperators,machineconfigpools,nodes`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  process.stderr.write('stopping the held cluster\n');
}

/** Registers `keelson rehearse`. */
export function registerRehearseCommand(program: Command): void {
  program
    .command('rehearse')
    .description(
      'Rehearse a whole OpenShift update on this machine: embedded API server, the Keelson CVO and MCO, simulated operators, virtual nodes',
    )
    .option(
      '--from <source>',
      'current release: directory, OCI layout, archive or docker://image (default: generated release A)',
    )
    .option('--to <source>', 'target release (default: generated release B)')
    .option(
      '--force',
      'request the update with --force (oc adm upgrade --force): the CVO accepts a --to release it cannot verify',
    )
    .option(
      '--release-mirror',
      "publish the generated release B only under a mirror repository of the rehearsal registry and create an ImageDigestMirrorSet before the update: the CVO's version Pod pulls B through master-0's registries.conf, which the MCO renders from it",
    )
    .option('--masters <n>', 'control-plane nodes', '3')
    .option('--workers <n>', 'worker nodes', '3')
    .option('--pools <name=n>', 'custom pool with n nodes, e.g. infra=2 (repeatable)', repeat, [])
    .option(
      '--max-unavailable <pool=n>',
      'spec.maxUnavailable of a pool, a count or a percentage, e.g. worker=10% (repeatable; set on master/worker after the install, as oc patch mcp would)',
      repeat,
      [],
    )
    .option('--time-scale <x>', 'simulated durations are divided by x (reboots, roll-outs)', '60')
    .option('--fault <fault>', `inject a fault (repeatable): ${FAULT_KINDS.join(', ')}`, repeat, [])
    .option(
      '--kill <what>',
      'kill a component mid-update and start it again: cvo@N% or daemon@NODE (repeatable)',
      repeat,
      [],
    )
    .option('--pause-pool <pool>', 'pause a pool before the update (repeatable)', repeat, [])
    .option('--timeout <seconds>', 'give up on a phase after this many seconds', '120')
    .option('-q, --quiet', 'no live view')
    .option('--json', 'print the final report as JSON')
    .option('--report <file.html>', 'write a self-contained HTML report with a timeline chart')
    .option('--work-dir <dir>', 'where releases and node roots go (default: a temporary directory)')
    .option(
      '--kubeconfig <file>',
      'rehearse against this existing API server (kube-apiserver, kind, k3s, keelson sandbox start) instead of an embedded one: needs cluster-admin and a cluster without OpenShift objects; what the rehearsal creates is deleted at the end unless --keep',
    )
    .option('--keep', 'keep the work directory (and, with --kubeconfig, what the rehearsal created in the cluster)')
    .option('--component-log <file>', "append the components' JSON log lines to this file (default: dropped)")
    .option(
      '--hold',
      'after the verdict, print the report and keep the cluster running for kubectl / keelson upgrade status / keelson mcp why (its kubeconfig is printed and written to WORK-DIR/held) until Ctrl-C or SIGTERM',
    )
    .action(runRehearse);
}

/** The flags checked and parsed into the rehearsal's cluster, faults and limits (a usage error exits 2). */
function parseRehearseFlags(f: RehearseFlags): Pick<
  RehearseOptions,
  'faults' | 'timeScale' | 'masters' | 'workers' | 'timeoutSeconds' | 'pools'
> & {
  maxUnavailable: NonNullable<RehearseOptions['maxUnavailable']>;
} {
  let faults;
  try {
    faults = parseFaults(f.fault, f.kill, f.pausePool);
  } catch (e) {
    if (e instanceof FaultSpecError) throw new CliError(e.message, 2);
    throw e;
  }
  if ((f.from === undefined) !== (f.to === undefined)) throw new CliError('--from and --to go together', 2);
  if (f.releaseMirror === true && f.from !== undefined)
    throw new CliError('--release-mirror mirrors the generated release B: it does not go with --from/--to', 2);
  const timeScale = Number(f.timeScale);
  if (!Number.isFinite(timeScale) || timeScale < 1 || timeScale > 100_000)
    throw new CliError(`--time-scale must be a number 1..100000, got ${f.timeScale}`, 2);
  const masters = count(f.masters, '--masters', 1000);
  const workers = count(f.workers, '--workers', 5000);
  const timeoutSeconds = count(f.timeout, '--timeout', 86_400);
  const pools = parsePools(f.pools);
  let maxUnavailable;
  try {
    maxUnavailable = parseMaxUnavailable(f.maxUnavailable, ['master', 'worker', ...Object.keys(pools)]);
  } catch (e) {
    if (e instanceof MaxUnavailableSpecError) throw new CliError(e.message, 2);
    throw e;
  }
  return { faults, timeScale, masters, workers, timeoutSeconds, pools, maxUnavailable };
}

/** `keelson rehearse`'s action: the rehearsal with its live view, the report printed (and written), the exit code. */
async function runRehearse(f: RehearseFlags): Promise<void> {
  const { faults, timeScale, masters, workers, timeoutSeconds, pools, maxUnavailable } = parseRehearseFlags(f);
  const mode: LiveMode = f.quiet === true || f.json === true ? 'quiet' : process.stderr.isTTY ? 'tty' : 'plain';
  const view = new LiveView(process.stderr, mode, f.from ?? 'release A', f.to ?? 'release B');
  const workDir = f.workDir ?? (await mkdtemp(join(tmpdir(), 'keelson-rehearse-')));
  const logStream = f.componentLog !== undefined ? createWriteStream(f.componentLog, { flags: 'a' }) : undefined;
  let result;
  let printed = false;
  const seen: TimelineEvent[] = [];
  const output = async (report: RehearsalReport, events: readonly TimelineEvent[]): Promise<void> => {
    if (f.report !== undefined) {
      const tmp = join(dirname(f.report), `.${process.pid}.rehearsal-report.tmp`);
      await writeFile(tmp, renderHtmlReport(report, events));
      await rename(tmp, f.report);
    }
    process.stdout.write(f.json === true ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    printed = true;
  };
  const hold = async (report: RehearsalReport, kubeconfig: string): Promise<void> => {
    view.close();
    await output(report, seen);
    await holdCluster(kubeconfig, join(workDir, 'held'));
  };
  try {
    result = await rehearse({
      ...(f.from !== undefined ? { from: f.from } : {}),
      ...(f.to !== undefined ? { to: f.to } : {}),
      ...(f.force === true ? { force: true } : {}),
      ...(f.releaseMirror === true ? { releaseMirror: true } : {}),
      masters,
      workers,
      pools,
      maxUnavailable,
      timeScale,
      faults,
      timeoutSeconds,
      workDir,
      onEvent: (e) => {
        seen.push(e);
        view.push(e);
      },
      ...(f.hold === true ? { hold } : {}),
      ...(f.kubeconfig !== undefined ? { kubeconfig: f.kubeconfig, keepCluster: f.keep === true } : {}),
      onNotice: (line: string) => {
        process.stderr.write(`${line}\n`);
      },
      requestUpgrade: requestUpgradeLikeTheCli,
      diagnosePools: diagnoseClusterPools,
      ...(logStream !== undefined
        ? {
            onLog: (component: string, line: string) => {
              if (!logStream.writableEnded) logStream.write(`${component} ${line}\n`);
            },
          }
        : {}),
    });
  } catch (e) {
    throw cliErrorOf(e);
  } finally {
    view.close();
    logStream?.end();
    if (f.keep !== true && f.workDir === undefined) await rm(workDir, { recursive: true, force: true });
  }
  const { report, events } = result;
  if (!printed) await output(report, events);
  if (report.exitCode !== 0) throw new CliError(report.message, report.exitCode);
}

/** What a rehearsal's setup error means for the CLI: a usage error (2), a refused server, or itself. */
function cliErrorOf(e: unknown): unknown {
  // a --from/--to release that cannot be rehearsed: the flags' values are unusable (the message says what to do)
  if (e instanceof RehearsalPayloadError) return new CliError(`${e.message} [${e.code}]`, 2);
  // a --fault/--kill/--pause-pool target that is not in the cluster (checked once the releases are open)
  if (e instanceof FaultSpecError) return new CliError(e.message, 2);
  // --kubeconfig: a server the rehearsal refuses (nothing was written to it)
  if (e instanceof RehearsalTargetError)
    return new CliError(`${e.message} [${e.code}]`, e.code === 'KUBECONFIG' ? 2 : EXIT_CODES.NotRunnable);
  return e;
}
