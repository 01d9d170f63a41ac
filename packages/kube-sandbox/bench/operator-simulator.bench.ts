/**
 * The cluster-operator SIMULATOR's reporting speed over loopback HTTP: 100 ClusterOperators appear at once (as
 * the CVO's precreation makes them) and the in-process simulator, with no delay, reports all of them. Measures
 * from the first create to the moment a reader sees the last report (median of 5 runs, printed).
 */
import { describe, test } from 'vitest';
import { startSandbox } from '../src/index.js';

const N = 100;

async function oneRound(): Promise<number> {
  const versions = Object.fromEntries(
    Array.from({ length: N }, (_, i) => [`op-${i}`, [{ name: 'operator', version: '4.18.3' }]]),
  );
  const sb = await startSandbox({
    openshiftCrds: ['ClusterOperator', 'ClusterVersion'],
    simulateOperators: { delayMs: 0, versions },
  });
  try {
    await sb.operatorSimulator?.synced;
    const headers = { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' };
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        fetch(`${sb.url}/apis/config.openshift.io/v1/clusteroperators`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            apiVersion: 'config.openshift.io/v1',
            kind: 'ClusterOperator',
            metadata: { name: `op-${i}` },
            spec: {},
          }),
        }).then((r) => r.arrayBuffer()),
      ),
    );
    for (;;) {
      const list = (await (
        await fetch(`${sb.url}/apis/config.openshift.io/v1/clusteroperators`, { headers })
      ).json()) as { items: { status?: { versions?: unknown[] } }[] };
      if (list.items.filter((c) => c.status?.versions !== undefined).length === N) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await sb.stop();
  }
}

describe('operator simulator', () => {
  test(`${N} ClusterOperators created, all reported`, async () => {
    await oneRound(); // warm-up
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await oneRound());
    times.sort((a, b) => a - b);
    console.log(
      `${N} ClusterOperators reported by the simulator: median ${times[2]!.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times[4]!.toFixed(0)}) => ${Math.round(N / (times[2]! / 1000))} reports/s`,
    );
  }, 120_000);
});
