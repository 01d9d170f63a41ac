/** Node controller decision (pool membership + candidates + status) for a 5,000-node worker pool. Goal < 50 ms. */
import { test } from 'vitest';
import type { MachineConfigPool, Node } from '@keelson/api';
import { decidePoolSync } from '../src/index.js';

const A = 'machineconfiguration.openshift.io/';
const pool = (name: string, spec: Partial<MachineConfigPool['spec']> = {}): MachineConfigPool => ({
  metadata: { name, generation: 3 },
  spec: {
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    configuration: { name: `rendered-${name}-v2` },
    maxUnavailable: '10%',
    ...spec,
  },
});
const pools = [pool('master'), pool('worker'), pool('infra')];
const worker = pools[1] as MachineConfigPool;

function nodes(n: number): Node[] {
  const out: Node[] = [];
  for (let i = 0; i < n; i++) {
    // 40 % updated, 5 % updating, 1 % degraded, the rest waiting on v1
    const r = i % 100;
    const cur = r < 40 ? 'rendered-worker-v2' : 'rendered-worker-v1';
    const des = r < 45 ? 'rendered-worker-v2' : 'rendered-worker-v1';
    const state = r === 99 ? 'Degraded' : r >= 40 && r < 45 ? 'Working' : 'Done';
    out.push({
      metadata: {
        name: `worker-${String(i)}`,
        creationTimestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
        labels: { 'node-role.kubernetes.io/worker': '', 'topology.kubernetes.io/zone': `zone-${String(i % 3)}` },
        annotations: { [`${A}currentConfig`]: cur, [`${A}desiredConfig`]: des, [`${A}state`]: state },
      },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'DiskPressure', status: 'False' },
        ],
      },
    });
  }
  return out;
}

const five = nodes(5000);
const now = new Date();

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('node controller decision', async ({ bench }) => {
  await bench.compare(
    bench('decidePoolSync: 5,000-node worker pool, 10% maxUnavailable', () => {
      decidePoolSync({ pool: worker, pools, nodes: five, now });
    }),
    bench('decidePoolSync: same pool, paused (status only)', () => {
      decidePoolSync({ pool: { ...worker, spec: { ...worker.spec, paused: true } }, pools, nodes: five, now });
    }),
    { time: 2000 },
  );
});
