/**
 * `keelson simulate operators`: runs the SIMULATOR of cluster operators (from @keelson/kube-sandbox) against any
 * API server until interrupted. It reports ClusterOperator versions and conditions; it operates nothing.
 */
import { readFile } from 'node:fs/promises';
import { OPERATOR_FAULT_KINDS, startOperatorSimulator, type OperatorFault } from '@keelson/kube-sandbox';
import type { Command } from 'commander';
import { parseDuration } from '../duration.js';
import { CliError } from '../errors.js';

export { parseDuration };

/**
 * Parses `--fault KIND=NAME[:ARG]`: ARG is the message for degraded / unavailable / not-upgradeable (optionally
 * `REASON:message`) and the extra delay for slow (default 30s).
 */
export function parseFault(spec: string): { name: string; fault: OperatorFault } {
  const eq = spec.indexOf('=');
  const kind = eq < 0 ? '' : spec.slice(0, eq);
  const rest = eq < 0 ? '' : spec.slice(eq + 1);
  const colon = rest.indexOf(':');
  const name = colon < 0 ? rest : rest.slice(0, colon);
  const arg = colon < 0 ? undefined : rest.slice(colon + 1);
  if (!(OPERATOR_FAULT_KINDS as readonly string[]).includes(kind) || name === '') {
    throw new CliError(
      `--fault must be KIND=NAME[:ARG] with KIND one of ${OPERATOR_FAULT_KINDS.join(', ')}, got "${spec}"`,
      2,
    );
  }
  switch (kind) {
    case 'never':
      return { name, fault: { kind: 'never' } };
    case 'slow':
      return {
        name,
        fault: { kind: 'slow', extraDelayMs: arg === undefined ? 30_000 : parseDuration(arg, '--fault slow') },
      };
    default: {
      const k = kind as 'degraded' | 'unavailable' | 'not-upgradeable';
      if (arg === undefined) return { name, fault: { kind: k } };
      const m = /^([A-Za-z][A-Za-z0-9]*):(.+)$/s.exec(arg);
      return { name, fault: m ? { kind: k, reason: m[1] ?? '', message: m[2] ?? '' } : { kind: k, message: arg } };
    }
  }
}

function jsonLine(level: string, msg: string, fields?: Record<string, unknown>): void {
  process.stdout.write(
    `${JSON.stringify({ ts: new Date().toISOString(), level, component: 'operator-simulator', msg, ...(fields ?? {}) })}\n`,
  );
}

/** Registers `keelson simulate operators`. */
export function registerSimulateCommands(program: Command): void {
  const simulate = program
    .command('simulate')
    .description('Simulators for tests and rehearsals (they report, they do not operate)');
  simulate
    .command('operators')
    .description(
      'SIMULATE cluster operators: report ClusterOperator versions and conditions as healthy (or faulty) operators would, until interrupted',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: KUBECONFIG)')
    .option('--delay <duration>', 'delay before an operator reports (e.g. 500ms, 2s)', '1s')
    .option(
      '--fault <KIND=NAME[:ARG]>',
      `inject a fault (${OPERATOR_FAULT_KINDS.join(', ')}); repeatable`,
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option(
      '--exclude <name>',
      'ClusterOperator never touched; repeatable (default: machine-config)',
      (v: string, acc: string[] | undefined) => [...(acc ?? []), v],
    )
    .option('--no-wait-for-deployments', 'report without waiting for the Deployments in related namespaces to roll out')
    .action(
      async (o: {
        kubeconfig?: string;
        delay: string;
        fault: string[];
        exclude?: string[];
        waitForDeployments: boolean;
      }) => {
        const path = o.kubeconfig ?? process.env['KUBECONFIG']?.split(':')[0];
        if (path === undefined || path === '')
          throw new CliError('no kubeconfig: pass --kubeconfig FILE or set KUBECONFIG', 2);
        let kubeconfig: string;
        try {
          kubeconfig = await readFile(path, 'utf8');
        } catch (e) {
          throw new CliError(`cannot read kubeconfig ${path}: ${(e as Error).message}`);
        }
        const faults: Record<string, OperatorFault> = {};
        for (const f of o.fault) {
          const { name, fault } = parseFault(f);
          faults[name] = fault;
        }
        const sim = await startOperatorSimulator({
          kubeconfig,
          delayMs: parseDuration(o.delay, '--delay'),
          faults,
          exclude: o.exclude ?? ['machine-config'],
          waitForDeployments: o.waitForDeployments,
          logger: {
            info: (m, f) => {
              jsonLine('info', m, f);
            },
            error: (m, f) => {
              jsonLine('error', m, f);
            },
          },
        });
        await new Promise<void>((resolve) => {
          const done = (): void => {
            process.off('SIGINT', done);
            process.off('SIGTERM', done);
            resolve();
          };
          process.on('SIGINT', done);
          process.on('SIGTERM', done);
        });
        await sim.stop();
        jsonLine('info', 'cluster-operator simulator stopped');
      },
    );
}
