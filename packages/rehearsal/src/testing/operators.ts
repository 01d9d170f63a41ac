/**
 * Fake operators: every ClusterOperator of the release but yours is reported by `@keelson/kube-sandbox`'s
 * cluster-operator simulator, the way the rehearsal fakes the ~30 operators of a real release. It follows the
 * Deployments the CVO rolls out and reports `Available=True, Progressing=False, Degraded=False` at the version of the
 * operator's `RELEASE_VERSION` once they rolled out, so the CVO moves past each run level.
 */
import { readFile } from 'node:fs/promises';
import { startOperatorSimulator, type OperatorFault, type OperatorSimulator } from '@keelson/kube-sandbox';

/** Options of {@link startFakeOperators}. */
export interface FakeOperatorsOptions {
  /** Kubeconfig file of the cluster. */
  kubeconfigPath: string;
  /** ClusterOperators left alone: yours (reported by your operator), and `machine-config` (the real MCO) always. */
  except?: readonly string[];
  /** ClusterOperators reported `Degraded=True` (what the CVO does when one of them fails). */
  degraded?: readonly string[];
  /** ClusterOperators never reported (what the CVO does when one of them hangs). */
  never?: readonly string[];
  /** Delay between a rolled-out operator and its report (default 50 ms). */
  delayMs?: number;
}

/** Starts the fake operators; resolves once they listed the cluster's ClusterOperators and Deployments. */
export async function startFakeOperators(opts: FakeOperatorsOptions): Promise<OperatorSimulator> {
  const faults: Record<string, OperatorFault> = {};
  for (const n of opts.degraded ?? []) faults[n] = { kind: 'degraded' };
  for (const n of opts.never ?? []) faults[n] = { kind: 'never' };
  const sim = await startOperatorSimulator({
    kubeconfig: await readFile(opts.kubeconfigPath, 'utf8'),
    delayMs: opts.delayMs ?? 50,
    faults,
    exclude: ['machine-config', ...(opts.except ?? [])],
  });
  await sim.synced;
  return sim;
}
