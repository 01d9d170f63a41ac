/** CEL rule evaluation on a write: the MachineConfigPool and MachineConfiguration schemas of the shipped CRDs. */
import { loadCrd } from '@keelson/api';
import { test } from 'vitest';
import { validateCelRules } from '../src/cel/index.js';
import type { JsonObject } from '../src/types.js';

const mcp = await loadCrd('MachineConfigPool');
const mcpSchema = mcp.spec.versions[0]!.schema!.openAPIV3Schema as JsonObject;
const sync = {
  poolSynchronizerType: 'PinnedImageSets',
  machineCount: 3,
  updatedMachineCount: 3,
  readyMachineCount: 3,
  availableMachineCount: 3,
  unavailableMachineCount: 0,
  observedGeneration: 4,
};
const pool: JsonObject = {
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'MachineConfigPool',
  metadata: { name: 'worker' },
  spec: { osImageStream: { name: 'rhel-9' } },
  status: { poolSynchronizersStatus: [sync] },
};
const oldPool: JsonObject = { ...pool, status: { poolSynchronizersStatus: [{ ...sync, observedGeneration: 3 }] } };

const mcfg = await loadCrd('MachineConfiguration');
const mcfgSchema = mcfg.spec.versions[0]!.schema!.openAPIV3Schema as JsonObject;
const files = Array.from({ length: 20 }, (_, i) => ({
  path: `/etc/f${i}`,
  actions: [{ type: 'Restart', restart: { serviceName: `svc${i}.service` } }],
}));
const config: JsonObject = {
  apiVersion: 'operator.openshift.io/v1',
  kind: 'MachineConfiguration',
  metadata: { name: 'cluster' },
  spec: { managementState: 'Managed', nodeDisruptionPolicy: { files } },
  status: { bootImageSkewEnforcementStatus: { mode: 'None' } },
};

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('CEL validation', async ({ bench }) => {
  await bench.compare(
    bench('MachineConfigPool status update (6 rules + 1 transition rule)', () => {
      validateCelRules(mcpSchema, pool, oldPool);
    }),
    bench('MachineConfiguration with 20 node-disruption file policies (~70 rule evaluations)', () => {
      validateCelRules(mcfgSchema, config, undefined);
    }),
    { time: 3000 },
  );
}, 60_000);
