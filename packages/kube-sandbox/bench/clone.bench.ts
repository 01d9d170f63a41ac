/**
 * The clone on the API server's hot path (every get/list view, every write, every watch fan-out): the plain JSON
 * clone against structuredClone, which it replaced, on a Node as the MCO leaves it (labels, annotations, taints,
 * managedFields, a Ready condition).
 */
import { test } from 'vitest';
import { clone } from '../src/util.js';

// a local binding: the benchmark loop should not go through the module namespace getter on every call
const copy = clone;

const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'worker-1',
    uid: '6f1c2f0e-8a4b-4c55-9d0e-0d5c0f7b9a11',
    resourceVersion: '12345',
    creationTimestamp: '2026-11-24T00:00:00Z',
    labels: { 'kubernetes.io/hostname': 'worker-1', 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/worker': '' },
    annotations: {
      'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-2a617348eae0f6eea2a42481869ac36d',
      'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-2a617348eae0f6eea2a42481869ac36d',
      'machineconfiguration.openshift.io/state': 'Done',
      'machineconfiguration.openshift.io/reason': '',
    },
    managedFields: [
      {
        manager: 'machine-config-daemon',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-11-24T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:machineconfiguration.openshift.io/state': {} } } },
      },
      {
        manager: 'kubelet',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-11-24T00:00:00Z',
        fieldsType: 'FieldsV1',
        subresource: 'status',
        fieldsV1: { 'f:status': { 'f:conditions': {} } },
      },
    ],
  },
  spec: { taints: [{ key: 'UpdateInProgress', effect: 'PreferNoSchedule' }] },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: '2026-11-24T00:00:00Z',
        lastTransitionTime: '2026-11-24T00:00:00Z',
      },
    ],
  },
};

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test('clone of a Node', async ({ bench }) => {
  await bench.compare(
    bench('clone (plain JSON copy)', () => {
      copy(node);
    }),
    bench('structuredClone', () => {
      structuredClone(node);
    }),
    { time: 2000 },
  );
}, 60_000);
