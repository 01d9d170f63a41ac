/**
 * The CVO as a child process (`cluster-version-operator start`, the bin users run), for `--kill cvo@N%`: an in-process
 * operator cannot be stopped abruptly, a process can (SIGKILL: no Lease release, no last status write).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** Flags of one CVO process. */
export interface CvoProcessOptions {
  kubeconfig: string;
  payloadDir: string;
  releaseImage: string;
  payloadCache: string;
  /**
   * The node the CVO runs on: with it, target payloads are retrieved as upstream does (`--payload-retrieval pod`: a
   * `version-<v>-<rand>` Pod on that node, whose kubelet writes under `payloadCache`).
   */
  nodeName?: string;
  /**
   * The metrics serving pair (upstream mounts the service-ca Secret `cluster-version-operator-serving-cert` at
   * /etc/tls/serving-cert): `--listen 127.0.0.1:0` over HTTPS; without it `--listen=` (no metrics endpoint), since
   * upstream refuses a listen address without `--serving-cert-file`/`--serving-key-file`.
   */
  servingCert?: { certFile: string; keyFile: string };
  updateService: string;
  promqlTarget: string;
  /** Multiplier of every upstream interval (`--time-scale`). */
  timeScale: number;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Receives each stdout/stderr line (JSON log lines). */
  log: (line: string) => void;
}

/** A started CVO process. */
export interface CvoProcess {
  pid: number;
  /** SIGTERM (graceful: releases the Lease), SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** SIGKILL. */
  kill(): Promise<void>;
  /**
   * Whether it leads, as far as a parent can tell: true once it logged that it became leader, false once it exited on
   * its own (upstream's CVO exits when it loses its Lease), undefined after the rehearsal stopped or killed it.
   */
  leading(): boolean | undefined;
  /** True once it exited without {@link stop} or {@link kill} (a crash, or upstream's exit on a lost Lease). */
  exited(): boolean;
}

/** The path of the `cluster-version-operator` bin of the installed package. */
export function cvoBinPath(): string {
  const pkg = createRequire(import.meta.url).resolve('@keelson/cluster-version-operator/package.json');
  return join(dirname(pkg), 'dist', 'bin', 'cluster-version-operator.js');
}

/** The command line of `cluster-version-operator start` for these options (pure). */
export function cvoArgs(o: Omit<CvoProcessOptions, 'log'>): string[] {
  return [
    'start',
    '--kubeconfig',
    o.kubeconfig,
    '--payload-dir',
    o.payloadDir,
    '--release-image',
    o.releaseImage,
    '--payload-cache',
    o.payloadCache,
    ...(o.nodeName !== undefined ? ['--payload-retrieval', 'pod', '--node-name', o.nodeName] : []),
    ...(o.servingCert
      ? [
          '--listen',
          '127.0.0.1:0',
          '--serving-cert-file',
          o.servingCert.certFile,
          '--serving-key-file',
          o.servingCert.keyFile,
        ]
      : ['--listen=']),
    '--update-service',
    o.updateService,
    '--promql-target',
    o.promqlTarget,
    '--time-scale',
    String(o.timeScale),
    '--lease-duration',
    `${o.leaseDurationMs}ms`,
    '--renew-deadline',
    `${o.renewDeadlineMs}ms`,
    '--retry-period',
    `${o.retryPeriodMs}ms`,
  ];
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
}

/** Starts `cluster-version-operator start` as a child of this process. */
export function startCvoProcess(o: CvoProcessOptions): Promise<CvoProcess> {
  const child = spawn(process.execPath, [cvoBinPath(), ...cvoArgs(o)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let becameLeader = false;
  let endedByUs = false;
  const onLine = (line: string): void => {
    if (line.includes('"msg":"became leader')) becameLeader = true;
    o.log(line);
  };
  for (const s of [child.stdout, child.stderr]) createInterface({ input: s }).on('line', onLine);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      resolve({
        pid: child.pid ?? -1,
        leading: () => {
          if (endedByUs) return undefined;
          return becameLeader && child.exitCode === null && child.signalCode === null;
        },
        exited: () => !endedByUs && (child.exitCode !== null || child.signalCode !== null),
        stop: async () => {
          endedByUs = true;
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited(child);
          clearTimeout(t);
        },
        kill: async () => {
          endedByUs = true;
          child.kill('SIGKILL');
          await exited(child);
        },
      });
    });
  });
}
