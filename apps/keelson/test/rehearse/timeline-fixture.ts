/**
 * A recorded-shape timeline for the pure report / view / HTML functions: plain data in the form the observer emits,
 * written by hand for these tests (the functions under test take no I/O).
 */
import type { NodePhase, NodeView, PoolView, TimelineEvent } from '@keelson/rehearsal';

const node = (name: string, pool: string, phase: NodePhase, desired: string, current: string): NodeView => ({
  name,
  pool,
  phase,
  currentConfig: current,
  desiredConfig: desired,
  ready: phase !== 'rebooting',
  cordoned: phase === 'draining' || phase === 'rebooting' || phase === 'updating',
  unavailable: phase !== 'done' || desired !== current,
});

const pool = (name: string, updated: number, config: string, target: string, unavailable = 0): PoolView => ({
  name,
  machineCount: 2,
  updated,
  ready: 2 - unavailable,
  unavailable,
  degraded: 0,
  paused: false,
  config,
  target,
  maxUnavailable: 1,
  conditions: [],
});

/** Two workers rolled one after the other, one operator per run level. */
export function sampleTimeline(): TimelineEvent[] {
  const A = 'rendered-worker-a';
  const B = 'rendered-worker-b';
  const ev: TimelineEvent[] = [
    { t: 0, type: 'phase', phase: 'setup', detail: 'setup' },
    { t: 100, type: 'phase', phase: 'install', detail: 'install' },
    { t: 150, type: 'node', node: node('worker-0', 'worker', 'done', A, A) },
    { t: 150, type: 'node', node: node('worker-1', 'worker', 'done', A, A) },
    { t: 160, type: 'pool', pool: pool('worker', 2, A, A) },
    { t: 200, type: 'operator', name: 'etcd', version: '4.18.7' },
    { t: 1000, type: 'phase', phase: 'upgrade', detail: 'upgrade' },
    { t: 1100, type: 'progress', done: 10, total: 100, version: '4.18.8' },
    { t: 1200, type: 'operator', name: 'etcd', version: '4.18.8' },
    {
      t: 1300,
      type: 'condition',
      object: 'clusteroperator/ingress',
      condition: { type: 'Degraded', status: 'True', reason: 'Rollout', message: 'ingress rolling out' },
    },
    { t: 1500, type: 'operator', name: 'ingress', version: '4.18.8' },
    { t: 1600, type: 'node', node: node('worker-0', 'worker', 'draining', B, A), previous: 'done' },
    { t: 1700, type: 'node', node: node('worker-0', 'worker', 'rebooting', B, A), previous: 'draining' },
    { t: 1800, type: 'node', node: node('worker-0', 'worker', 'done', B, B), previous: 'rebooting' },
    { t: 1900, type: 'node', node: node('worker-1', 'worker', 'draining', B, A), previous: 'done' },
    { t: 2000, type: 'node', node: node('worker-1', 'worker', 'rebooting', B, A), previous: 'draining' },
    { t: 2100, type: 'node', node: node('worker-1', 'worker', 'done', B, B), previous: 'rebooting' },
    { t: 2150, type: 'pool', pool: pool('worker', 2, B, B) },
    { t: 2200, type: 'history', version: '4.18.8', state: 'Completed' },
    { t: 2300, type: 'phase', phase: 'finished', detail: 'Completed' },
  ];
  return ev;
}

export const API = {
  total: 42,
  byVerb: { get: 20, watch: 4, patch: 18 },
  evictions: 3,
  pdbRefusals: 1,
  injectedErrors: 0,
};
export const RUN_LEVELS = [
  { level: '12', operators: ['etcd'] },
  { level: '50', operators: ['ingress'] },
];
