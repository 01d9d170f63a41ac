/**
 * Pure decisions of the render controller (upstream pkg/controller/render): whether a pool may be
 * rendered now, the rendered MachineConfig, the pool's new spec.configuration and the RenderDegraded condition.
 */
import { PoolSelectionError, renderPool } from '../../pool.js';
import { MachineConfigRenderError, type RenderResult } from '../../render.js';
import type { MachineConfig as IgnMachineConfig } from '../../types.js';
import { compileLabelSelector, isEmptyLabelSelector } from '@keelson/api';
import type {
  ContainerRuntimeConfig,
  ControllerConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
} from '@keelson/api';
import { McAnnotations } from '../constants.js';
import { completedByVersion, TemplateConditions } from '../template/status.js';
import { semanticEqual } from '../semantic.js';

/**
 * Why a pool was not rendered on this pass (the render controller requeues with backoff): `RENDER_WAITING` while a
 * gate is closed (ControllerConfig not completed, KubeletConfig pending), `RENDER_FAILED` with the RenderDegraded
 * message otherwise.
 */
export class RenderPoolError extends Error {
  constructor(
    readonly code: 'RENDER_WAITING' | 'RENDER_FAILED',
    /** The pool. */
    readonly pool: string,
    message: string,
  ) {
    super(message);
    this.name = 'RenderPoolError';
  }
}

/**
 * ControllerConfig gate: observed and completed by the template controller, not running, not failing (upstream
 * `IsControllerConfigCompleted`). With `controllerVersion`, the completion must also be this controller's (its
 * TemplateControllerCompleted message names the version): after a controller upgrade the render waits until its own
 * template controller has regenerated the base MachineConfigs instead of rendering the previous controller's.
 */
export function controllerConfigGate(cc: ControllerConfig | undefined, controllerVersion?: string): string | undefined {
  if (cc === undefined) return 'ControllerConfig machine-config-controller does not exist yet';
  const conds = cc.status?.conditions ?? [];
  const is = (t: string): boolean => conds.some((c) => c.type === t && c.status === 'True');
  const completed = is(TemplateConditions.completed);
  const running = is(TemplateConditions.running);
  const failing = is(TemplateConditions.failing);
  if (cc.status?.observedGeneration !== cc.metadata.generation) {
    return `status for ControllerConfig ${cc.metadata.name ?? ''} is being reported for ${String(cc.status?.observedGeneration ?? 0)}, expecting it for ${String(cc.metadata.generation ?? 0)}`;
  }
  if (!completed || running || failing) {
    return `ControllerConfig has not completed: completed(${String(completed)}) running(${String(running)}) failing(${String(failing)})`;
  }
  if (controllerVersion !== undefined && !completedByVersion(cc, controllerVersion)) {
    return `ControllerConfig has not completed for controller version ${controllerVersion} yet`;
  }
  return undefined;
}

/** Version-skew guard: the ControllerConfig must have been written by the operator of our version. */
export function controllerConfigVersionSkew(cc: ControllerConfig, myVersion: string): string | undefined {
  const v = cc.metadata.annotations?.[McAnnotations.generatedByVersion];
  if (v === undefined)
    return `ignoring controller config generated without ${McAnnotations.generatedByVersion} annotation (my version: ${myVersion})`;
  if (v !== myVersion) return `ignoring controller config generated from ${v} (my version: ${myVersion})`;
  return undefined;
}

type SubConfig = KubeletConfig | ContainerRuntimeConfig;

/** A KubeletConfig/ContainerRuntimeConfig selecting the pool that is not done yet (render waits for it). */
export function pendingSubConfig(pool: MachineConfigPool, configs: readonly SubConfig[]): string | undefined {
  for (const c of configs) {
    const sel = c.spec.machineConfigPoolSelector;
    if (sel === undefined || !compileLabelSelector(sel).matches(pool.metadata.labels)) continue;
    const conds = c.status?.conditions ?? [];
    const last = conds[conds.length - 1];
    const ok = last !== undefined && (last.type === 'Success' || last.type === 'Accepted') && last.status === 'True';
    if (c.metadata.generation !== c.status?.observedGeneration || !ok)
      return `${c.kind ?? 'config'} ${c.metadata.name ?? ''} is not completed`;
  }
  return undefined;
}

/** Outcome of {@link decideRender}. */
export type RenderDecision =
  | { kind: 'selectingAll' }
  | { kind: 'failed'; message: string }
  | {
      kind: 'rendered';
      result: RenderResult;
      spec: NonNullable<MachineConfigPool['spec']['configuration']>;
      specChanged: boolean;
    };

/** Inputs of {@link decideRender}. */
export interface RenderInput {
  pool: MachineConfigPool;
  machineConfigs: readonly MachineConfig[];
  controllerConfig: ControllerConfig;
  controllerVersion: string;
  operatorVersion: string;
}

/** The arguments of `renderPool` for a pool, or the decision when it is not rendered at all. */
function renderArgs(input: RenderInput): { args: Parameters<typeof renderPool> } | { decision: RenderDecision } {
  const { pool } = input;
  const name = pool.metadata.name ?? '';
  if (isEmptyLabelSelector(pool.spec.machineConfigSelector)) return { decision: { kind: 'selectingAll' } };
  const skew = controllerConfigVersionSkew(input.controllerConfig, input.operatorVersion);
  if (skew !== undefined) return { decision: failed(name, `could not generate rendered MachineConfig: ${skew}`) };
  const currentName = pool.spec.configuration?.name ?? '';
  const current = currentName === '' ? undefined : input.machineConfigs.find((m) => m.metadata.name === currentName);
  const all = input.machineConfigs as unknown as IgnMachineConfig[];
  const poolRef = {
    metadata: {
      name,
      ...(pool.metadata.uid !== undefined ? { uid: pool.metadata.uid } : {}),
      labels: pool.metadata.labels ?? {},
    },
    spec: pool.spec,
  };
  const opts = {
    controllerVersion: input.controllerVersion,
    ...(current !== undefined ? { currentRendered: current as unknown as IgnMachineConfig } : {}),
  };
  return { args: [poolRef, all, input.controllerConfig, opts] };
}

const failed = (pool: string, m: string): RenderDecision => ({
  kind: 'failed',
  message: `Failed to render configuration for pool ${pool}: ${m}`,
});

/** The decision from renderPool's result or error (other errors are thrown). */
function decideFrom(pool: MachineConfigPool, outcome: { result: RenderResult } | { error: unknown }): RenderDecision {
  const name = pool.metadata.name ?? '';
  if ('error' in outcome) {
    const e = outcome.error;
    if (e instanceof PoolSelectionError) return failed(name, e.message);
    if (e instanceof MachineConfigRenderError) {
      if (e.code === 'MC_NO_CONFIGS' || e.code === 'MC_TOO_LARGE') return failed(name, e.message);
      return failed(name, `could not generate rendered MachineConfig: ${e.message}`);
    }
    throw e;
  }
  const { result } = outcome;
  const spec = {
    name: result.name,
    source: result.source.map((n) => ({
      kind: 'MachineConfig',
      name: n,
      apiVersion: 'machineconfiguration.openshift.io/v1',
    })),
  };
  const prev = pool.spec.configuration;
  const specChanged = prev?.name !== spec.name || !semanticEqual(prev.source ?? [], spec.source);
  return { kind: 'rendered', result, spec, specChanged };
}

/**
 * Renders a pool: selection, merge, hash, reconcilability against the current target.
 * `failed.message` is the RenderDegraded message ("Failed to render configuration for pool <p>: …").
 */
export function decideRender(input: RenderInput): RenderDecision {
  const r = renderArgs(input);
  if ('decision' in r) return r.decision;
  try {
    return decideFrom(input.pool, { result: renderPool(...r.args) });
  } catch (error) {
    return decideFrom(input.pool, { error });
  }
}

/**
 * {@link decideRender} with the render itself done by `render` (the controller passes a worker thread's, so that a
 * hostile MachineConfig never blocks its event loop).
 */
export async function decideRenderWith(
  input: RenderInput,
  render: (...args: Parameters<typeof renderPool>) => Promise<RenderResult>,
): Promise<RenderDecision> {
  const r = renderArgs(input);
  if ('decision' in r) return r.decision;
  let result: RenderResult;
  try {
    result = await render(...r.args);
  } catch (error) {
    return decideFrom(input.pool, { error });
  }
  return decideFrom(input.pool, { result });
}
