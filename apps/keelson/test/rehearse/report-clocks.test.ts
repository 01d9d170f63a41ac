/**
 * What the report says about time and failure (issue 23, 10-12): conditions kept apart by phase on that phase's clock
 * with when they cleared; run levels from first start to first completion; the CVO's waits; the diagnosis of a failed
 * run (pure: from a timeline and a cluster snapshot).
 */
import { describe, expect, it } from 'vitest';
import type { MachineConfigPool, Node, Pod, PodDisruptionBudget } from '@keelson/machine-config-operator';
import {
  diagnoseOperators,
  formatDiagnosis,
  computeReport,
  formatReport,
  type TimelineEvent,
} from '@keelson/rehearsal';
import { diagnosePools } from '../../src/rehearse/cli-hooks.js';
import { renderHtmlReport } from '../../src/rehearse/html.js';
import { API, RUN_LEVELS, sampleTimeline } from './timeline-fixture.js';

const cv = (t: number, type: string, status: string, message = '', reason?: string): TimelineEvent => ({
  t,
  type: 'condition',
  object: 'clusterversion/version',
  condition: { type, status, message, ...(reason !== undefined ? { reason } : {}) },
});

function timeline(): TimelineEvent[] {
  const ev = sampleTimeline();
  const at = (t: number): number => ev.findIndex((e) => e.t > t);
  const insert = (e: TimelineEvent): void => {
    const i = at(e.t);
    ev.splice(i < 0 ? ev.length : i, 0, e);
  };
  // install: Available=False and Failing=True, both cleared before the update
  insert(cv(120, 'Available', 'False'));
  insert(cv(130, 'Failing', 'True', 'Cluster operator machine-config is not available', 'ClusterOperatorNotAvailable'));
  insert(cv(400, 'Failing', 'False'));
  insert(cv(450, 'Available', 'True'));
  // update: the run level 12 walked twice (a second sync attempt), the CVO waiting on etcd then machine-config
  insert({ t: 1010, type: 'runlevel', level: '12', state: 'started', version: '4.18.8' });
  insert({ t: 1150, type: 'runlevel', level: '12', state: 'finished', version: '4.18.8' });
  insert({ t: 1160, type: 'runlevel', level: '12', state: 'started', version: '4.18.8' });
  insert({ t: 1190, type: 'runlevel', level: '12', state: 'finished', version: '4.18.8' });
  insert(cv(1020, 'Progressing', 'True', 'Working towards 4.18.8: 0 of 100 done (0% complete), waiting on etcd'));
  insert(
    cv(1210, 'Progressing', 'True', 'Working towards 4.18.8: 60 of 100 done (60% complete), waiting on machine-config'),
  );
  insert(cv(2150, 'Progressing', 'True', 'Working towards 4.18.8: 99 of 100 done (99% complete)'));
  return ev;
}

describe('report clocks and waits', () => {
  const r = computeReport(timeline(), {
    from: '4.18.7',
    to: '4.18.8',
    outcome: 'Completed',
    message: '',
    timeScale: 60,
    api: API,
    runLevels: RUN_LEVELS,
    faults: [],
  });

  it("keeps install and update conditions apart, each on its phase's clock, with when it cleared", () => {
    const failing = r.conditions.find((c) => c.condition.type === 'Failing');
    expect(failing).toMatchObject({ phase: 'install', atMs: 30, clearedMs: 300, firstMs: 130 });
    expect(r.conditions.find((c) => c.condition.type === 'Available')).toMatchObject({
      phase: 'install',
      atMs: 20,
      clearedMs: 350,
    });
    expect(r.conditions.find((c) => c.object === 'clusteroperator/ingress')).toMatchObject({
      phase: 'update',
      atMs: 300,
      clearedMs: null,
    });
    const text = formatReport(r);
    expect(text).toContain('Conditions seen during the install (time since the install started):');
    expect(text).toContain(
      '+0.0s clusterversion/version Failing=True ClusterOperatorNotAvailable: Cluster operator machine-config is not available [cleared +0.3s]',
    );
    expect(text).toContain('Conditions seen during the update (time since the update started):');
    expect(text).toContain('clusteroperator/ingress Degraded=True Rollout: ingress rolling out [still set at the end]');
  });

  it('draws run levels from first start to first completion, later attempts apart', () => {
    const l12 = r.runLevels.find((l) => l.level === '12');
    expect(l12).toEqual({ level: '12', startMs: 10, endMs: 150, ms: 140, laterStartsMs: [160] });
    expect(formatReport(r)).toContain('12: 0.1s (from +0.0s; walked again by 1 later sync attempt(s))');
  });

  it('names what the CVO waited on, longest first, in wall and simulated time', () => {
    expect(r.waits).toEqual([
      { operator: 'machine-config', fromMs: 210, toMs: 1150, ms: 940 },
      { operator: 'etcd', fromMs: 20, toMs: 210, ms: 190 },
    ]);
    expect(formatReport(r)).toContain('machine-config: 0.9s (~0.9 simulated min, from +0.2s to +1.1s)');
    const html = renderHtmlReport(r, timeline());
    expect(html).toContain('CVO waits on machine-config');
    expect(html).toContain('<h2>What the CVO waited on</h2>');
    expect(html).toContain('<h2>Operators reaching 4.18.8</h2>');
    expect(html).toContain('simulated minutes');
    expect(html).toContain('<td>etcd</td><td>+0.2 s</td>');
  });
});

describe('conditions replaced by another problem, and multi-line messages', () => {
  const multi =
    'Multiple cluster operators should not be upgraded between minor versions:\n* Cluster operator a should not be upgraded: A\n* Cluster operator b should not be upgraded: B';
  const ev = sampleTimeline();
  const at = (t: number): number => ev.findIndex((e) => e.t > t);
  for (const e of [
    cv(1020, 'Failing', 'True', 'Cluster operator etcd is degraded', 'ClusterOperatorDegraded'),
    cv(1100, 'Failing', 'True', 'Cluster operator machine-config is not available', 'ClusterOperatorNotAvailable'),
    cv(1030, 'Upgradeable', 'False', multi, 'ClusterOperatorsNotUpgradeable'),
  ]) {
    const i = at(e.t);
    ev.splice(i < 0 ? ev.length : i, 0, e);
  }
  const r = computeReport(ev, {
    from: '4.18.7',
    to: '4.18.8',
    outcome: 'Failed',
    message: '',
    timeScale: 60,
    api: API,
    runLevels: RUN_LEVELS,
    faults: [],
  });
  const text = formatReport(r);

  it('marks a condition that another problem replaced as superseded, not still set', () => {
    const first = r.conditions.find((c) => c.condition.reason === 'ClusterOperatorDegraded');
    expect(first).toMatchObject({ clearedMs: 100, superseded: true });
    const second = r.conditions.find((c) => c.condition.reason === 'ClusterOperatorNotAvailable');
    expect(second).toMatchObject({ clearedMs: null });
    expect(second?.superseded).toBeUndefined();
    expect(text).toContain(
      'Failing=True ClusterOperatorDegraded: Cluster operator etcd is degraded [superseded +0.1s]',
    );
    expect(text).toContain('Cluster operator machine-config is not available [still set at the end]');
    expect(renderHtmlReport(r, ev)).toContain('+0.1 s (superseded)');
  });

  it('indents every line of a multi-reason Upgradeable message under its condition', () => {
    const lines = text.split('\n');
    const i = lines.findIndex((l) => l.includes('Upgradeable=False ClusterOperatorsNotUpgradeable'));
    expect(i).toBeGreaterThan(0);
    expect(lines[i + 1]).toBe('        * Cluster operator a should not be upgraded: A');
    expect(lines[i + 2]).toBe('        * Cluster operator b should not be upgraded: B [still set at the end]');
    for (const l of lines.slice(1)) if (l !== '') expect(l.startsWith('  ')).toBe(true);
  });
});

describe('diagnosis of a failed run', () => {
  const pool = {
    metadata: { name: 'worker' },
    spec: {
      configuration: { name: 'rendered-worker-b' },
      nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
      maxUnavailable: 1,
    },
    status: { configuration: { name: 'rendered-worker-a' }, conditions: [] },
  } as unknown as MachineConfigPool;
  const node = {
    metadata: {
      name: 'worker-0',
      labels: { 'node-role.kubernetes.io/worker': '' },
      annotations: {
        'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-a',
        'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-b',
        'machineconfiguration.openshift.io/state': 'Working',
        'machineconfiguration.openshift.io/desiredDrain': 'drain-rendered-worker-b',
        'machineconfiguration.openshift.io/lastAppliedDrain': 'uncordon-rendered-worker-a',
      },
    },
    spec: { unschedulable: true },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  } as unknown as Node;
  const pod = {
    metadata: { name: 'critical-app-1', namespace: 'app', labels: { app: 'critical' } },
    spec: { nodeName: 'worker-0' },
  } as unknown as Pod;
  const pdb = {
    metadata: { name: 'critical-app', namespace: 'app' },
    spec: { selector: { matchLabels: { app: 'critical' } } },
    status: { disruptionsAllowed: 0 },
  } as unknown as PodDisruptionBudget;

  it('names the PodDisruptionBudget that blocks the drain and what to do', () => {
    const d = diagnosePools({ pools: [pool], nodes: [node], podsByNode: new Map([['worker-0', [pod]]]), pdbs: [pdb] });
    expect(d).toHaveLength(1);
    expect(d[0]?.subject).toBe('machineconfigpool/worker');
    expect(d[0]?.findings[0]?.message).toContain('PodDisruptionBudget app/critical-app allows 0 disruptions');
    expect(d[0]?.findings[0]?.action).toContain('relax or delete the PodDisruptionBudget');
    const text = formatDiagnosis(d).join('\n');
    expect(text).toContain('what to do:');
  });

  it('names a degraded operator with its condition', () => {
    const d = diagnoseOperators(
      [
        {
          metadata: { name: 'dns' },
          status: {
            conditions: [{ type: 'Degraded', status: 'True', reason: 'Injected', message: 'dns is degraded' }],
            versions: [{ name: 'operator', version: '4.18.8' }],
          },
        },
        {
          metadata: { name: 'etcd' },
          status: {
            conditions: [{ type: 'Available', status: 'True' }],
            versions: [{ name: 'operator', version: '4.18.8' }],
          },
        },
      ],
      '4.18.8',
    );
    expect(d.map((x) => x.subject)).toEqual(['clusteroperator/dns']);
    expect(d[0]?.summary).toBe('Degraded=True Injected: dns is degraded');
  });

  it('leads the text and the HTML report', () => {
    const base = computeReport(sampleTimeline(), {
      from: '4.18.7',
      to: '4.18.8',
      outcome: 'Failed',
      message: 'ClusterVersion Failing=True',
      timeScale: 60,
      api: API,
      runLevels: RUN_LEVELS,
      faults: [],
      diagnosis: [
        {
          subject: 'clusteroperator/dns',
          summary: 'Degraded=True Injected: dns is degraded',
          findings: [{ message: 'Degraded=True Injected: dns is degraded', action: 'read its conditions' }],
        },
      ],
    });
    expect(formatReport(base).split('\n').slice(2, 4)).toEqual([
      '  Diagnosis (as keelson mcp why and upgrade status see it):',
      '    clusteroperator/dns: Degraded=True Injected: dns is degraded',
    ]);
    expect(renderHtmlReport(base, sampleTimeline())).toContain(
      '<div class="diagnosis"><h2>Diagnosis: what holds the update</h2>',
    );
    expect(JSON.parse(JSON.stringify(base)).diagnosis[0].subject).toBe('clusteroperator/dns');
  });
});

describe('a target the CVO never started applying', () => {
  it('has no run levels (the CVO walked only the current release), not levels "not finished" from the start', () => {
    const ev: TimelineEvent[] = sampleTimeline().filter((e) => e.type !== 'runlevel');
    const i = ev.findIndex((e) => e.t > 1010);
    ev.splice(i < 0 ? ev.length : i, 0, {
      t: 1010,
      type: 'runlevel',
      level: '12',
      state: 'started',
      version: '4.18.7',
    });
    const r = computeReport(ev, {
      from: '4.18.7',
      to: '4.18.8',
      outcome: 'Stalled',
      message: 'ClusterVersion ReleaseAccepted=False PreconditionChecks: …',
      timeScale: 60,
      api: API,
      runLevels: RUN_LEVELS,
      faults: [],
    });
    expect(r.runLevels).toEqual([]);
    expect(formatReport(r)).not.toContain('Run levels:');
  });
});
