/** The render controller's pure decisions (`src/controller/render/decide.ts`): when a pool is rendered, from which MachineConfigs, and its RenderDegraded messages. */
import { describe, expect, it } from 'vitest';
import type { ControllerConfig, MachineConfig, MachineConfigPool } from '@keelson/api';
import {
  completedByVersion,
  computeTemplateStatus,
  controllerConfigGate,
  decideRender,
  pendingSubConfig,
  semanticallyContains,
  semanticEqual,
} from '../../../src/index.js';
import { A } from '../decide-fixtures.js';

describe('render decisions', () => {
  const cc = (
    extra: Partial<ControllerConfig['metadata']> = {},
    status: ControllerConfig['status'] = {
      observedGeneration: 1,
      conditions: [{ type: 'TemplateControllerCompleted', status: 'True', lastTransitionTime: null }],
    },
  ): ControllerConfig => ({
    metadata: {
      name: 'machine-config-controller',
      generation: 1,
      annotations: { [`${A}generated-by-version`]: '0.1.0', [`${A}release-image-version`]: '4.99.0' },
      ...extra,
    },
    spec: { baseOSContainerImage: 'os@sha256:1' } as ControllerConfig['spec'],
    status,
  });
  const mc = (name: string, role: string): MachineConfig => ({
    metadata: { name, labels: { [`${A}role`]: role } },
    spec: { kernelArguments: [name] },
  });
  const worker: MachineConfigPool = {
    metadata: { name: 'worker', uid: 'u' },
    spec: { machineConfigSelector: { matchLabels: { [`${A}role`]: 'worker' } } },
  };
  const base = { controllerVersion: 'h', operatorVersion: '0.1.0' };
  it('gates on the ControllerConfig', () => {
    expect(controllerConfigGate(undefined)).toBe('ControllerConfig machine-config-controller does not exist yet');
    expect(controllerConfigGate(cc({}, { observedGeneration: 1, conditions: [] }))).toBe(
      'ControllerConfig has not completed: completed(false) running(false) failing(false)',
    );
    expect(controllerConfigGate(cc())).toBeUndefined();
    expect(controllerConfigGate(cc({ generation: 2 }))).toBe(
      'status for ControllerConfig machine-config-controller is being reported for 1, expecting it for 2',
    );
  });
  it('waits for the ControllerConfig to be completed by this controller version (a controller upgrade renders once)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const fresh = cc({ generation: 2 }, { observedGeneration: 1, conditions: [] });
    const byOld = { ...fresh, status: computeTemplateStatus(fresh, 'ctrl-1', { state: 'completed' }, now) };
    expect(controllerConfigGate(byOld)).toBeUndefined();
    expect(controllerConfigGate(byOld, 'ctrl-1')).toBeUndefined();
    expect(controllerConfigGate(byOld, 'ctrl-2')).toBe(
      'ControllerConfig has not completed for controller version ctrl-2 yet',
    );
    const running = { ...byOld, status: computeTemplateStatus(byOld, 'ctrl-2', { state: 'running' }, now) };
    expect(completedByVersion(running, 'ctrl-2')).toBe(false);
    expect(controllerConfigGate(running, 'ctrl-2')).toBe(
      'ControllerConfig has not completed: completed(true) running(true) failing(false)',
    );
    const done = { ...running, status: computeTemplateStatus(running, 'ctrl-2', { state: 'completed' }, now) };
    expect(controllerConfigGate(done, 'ctrl-2')).toBeUndefined();
    expect(completedByVersion(done, 'ctrl-2')).toBe(true);
    // a new generation: Running=True and Completed reset until the sync is done
    const gen3 = { ...done, metadata: { ...done.metadata, generation: 3 } };
    const s3 = computeTemplateStatus(gen3, 'ctrl-2', { state: 'running' }, now);
    expect(s3.observedGeneration).toBe(3);
    expect(s3.conditions?.find((c) => c.type === 'TemplateControllerCompleted')).toMatchObject({
      status: 'False',
      message: 'syncing towards (3) generation using controller version ctrl-2 due to change in Generation',
    });
    expect(controllerConfigGate({ ...gen3, status: s3 }, 'ctrl-2')).toBe(
      'ControllerConfig has not completed: completed(false) running(true) failing(false)',
    );
    const failing = computeTemplateStatus(gen3, 'ctrl-2', { state: 'failing', error: 'boom' }, now);
    expect(failing.conditions?.find((c) => c.type === 'TemplateControllerFailing')?.message).toBe(
      'failed to syncing towards (3) generation using controller version ctrl-2: boom',
    );
  });
  it('compares stored objects semantically: key order and server defaults are no change', () => {
    expect(semanticEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(semanticEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(semanticEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(
      semanticallyContains(
        { infra: { status: { cpuPartitioning: 'None', platform: 'None' } }, proxy: null },
        { proxy: null, infra: { status: { platform: 'None' } } },
      ),
    ).toBe(true);
    expect(semanticallyContains({ infra: {} }, { infra: {}, proxy: null })).toBe(true);
    expect(semanticallyContains({ images: { a: 'x' } }, { images: { a: 'y' } })).toBe(false);
    expect(semanticallyContains({ list: [1, 2, 3] }, { list: [1, 2] })).toBe(false);
  });
  it('waits for KubeletConfigs selecting the pool', () => {
    const labelled = {
      ...worker,
      metadata: { ...worker.metadata, labels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } },
    };
    const kc = {
      kind: 'KubeletConfig',
      metadata: { name: 'k', generation: 2 },
      spec: {
        machineConfigPoolSelector: { matchLabels: { 'pools.operator.machineconfiguration.openshift.io/worker': '' } },
      },
      status: { observedGeneration: 1, conditions: [] },
    };
    expect(pendingSubConfig(labelled, [kc])).toBe('KubeletConfig k is not completed');
  });
  it('renders, names the sources and reports no change on a second pass', () => {
    const d = decideRender({
      pool: worker,
      machineConfigs: [mc('10-w', 'worker'), mc('00-m', 'master'), mc('00-w', 'worker')],
      controllerConfig: cc(),
      ...base,
    });
    if (d.kind !== 'rendered') throw new Error(d.kind);
    expect(d.spec.source?.map((s) => s.name)).toEqual(['00-w', '10-w']);
    expect(d.result.machineConfig.metadata.annotations).toEqual({
      [`${A}generated-by-controller-version`]: 'h',
      [`${A}release-image-version`]: '4.99.0',
    });
    const again = decideRender({
      pool: { ...worker, spec: { ...worker.spec, configuration: d.spec } },
      machineConfigs: [mc('10-w', 'worker'), mc('00-w', 'worker'), d.result.machineConfig as MachineConfig],
      controllerConfig: cc(),
      ...base,
    });
    expect(again.kind === 'rendered' && again.specChanged).toBe(false);
  });
  it('RenderDegraded messages', () => {
    expect(
      decideRender({ pool: worker, machineConfigs: [mc('00-m', 'master')], controllerConfig: cc(), ...base }),
    ).toEqual({
      kind: 'failed',
      message:
        'Failed to render configuration for pool worker: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=worker',
    });
    expect(
      decideRender({
        pool: worker,
        machineConfigs: [mc('00-w', 'worker')],
        controllerConfig: cc(),
        controllerVersion: 'h',
        operatorVersion: '0.2.0',
      }),
    ).toEqual({
      kind: 'failed',
      message:
        'Failed to render configuration for pool worker: could not generate rendered MachineConfig: ignoring controller config generated from 0.1.0 (my version: 0.2.0)',
    });
    const bad: MachineConfig = {
      metadata: { name: '50-w', labels: { [`${A}role`]: 'worker' } },
      spec: { kernelType: 'lowlatency' },
    };
    expect(decideRender({ pool: worker, machineConfigs: [bad], controllerConfig: cc(), ...base })).toEqual({
      kind: 'failed',
      message:
        'Failed to render configuration for pool worker: could not generate rendered MachineConfig: kernelType=lowlatency is invalid',
    });
    expect(
      decideRender({
        pool: { ...worker, spec: { machineConfigSelector: {} } },
        machineConfigs: [],
        controllerConfig: cc(),
        ...base,
      }),
    ).toEqual({ kind: 'selectingAll' });
  });
});
