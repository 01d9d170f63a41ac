/**
 * ControllerConfig status of the template controller (upstream pkg/controller/template/status.go), as pure functions:
 * TemplateControllerRunning at the start of a sync towards a generation (Completed reset when the generation moved),
 * then Completed or Failing. The condition messages name the generation and the controller version, which is how the
 * render controller tells a ControllerConfig completed by *this* controller from one an older controller completed.
 */
import type { Condition } from '@keelson/api';
import type { ControllerConfig } from '@keelson/api';
import { setPoolCondition } from '../conditions.js';
import { controllerCertificates } from './certificates.js';

/** ControllerConfig condition types set by the template controller. */
export const TemplateConditions = {
  running: 'TemplateControllerRunning',
  completed: 'TemplateControllerCompleted',
  failing: 'TemplateControllerFailing',
} as const;

type CcStatus = NonNullable<ControllerConfig['status']>;
type Phase = { state: 'running' } | { state: 'completed' } | { state: 'failing'; error: string };

const towards = (cc: ControllerConfig, version: string): string =>
  `towards (${String(cc.metadata.generation ?? 0)}) generation using controller version ${version}`;

/** Message of TemplateControllerCompleted=True once `version` has synced the ControllerConfig's generation. */
export function completedMessage(cc: ControllerConfig, version: string): string {
  return `sync completed ${towards(cc, version)}`;
}

/**
 * True when the ControllerConfig's current generation was completed by the controller of `version` and nothing is
 * running or failing: a sync then only re-asserts the generated MachineConfigs and needs no Running phase.
 */
export function completedByVersion(cc: ControllerConfig, version: string): boolean {
  const conds = cc.status?.conditions ?? [];
  const get = (t: string): Condition | undefined => conds.find((c) => c.type === t);
  const done = get(TemplateConditions.completed);
  return (
    cc.status?.observedGeneration === cc.metadata.generation &&
    done?.status === 'True' &&
    done.message === completedMessage(cc, version) &&
    get(TemplateConditions.running)?.status !== 'True' &&
    get(TemplateConditions.failing)?.status !== 'True'
  );
}

/**
 * The status after one phase of a sync by the controller of `version` (observedGeneration set to the generation,
 * `controllerCertificates` from the spec's bundles as upstream's UpdateControllerConfigCerts lists them).
 */
export function computeTemplateStatus(cc: ControllerConfig, version: string, phase: Phase, now: Date): CcStatus {
  let conditions: Condition[] = cc.status?.conditions ?? [];
  const set = (type: string, status: 'True' | 'False', message: string): void => {
    conditions = setPoolCondition(conditions, { type, status, reason: '', message }, now);
  };
  if (phase.state === 'running') {
    set(TemplateConditions.running, 'True', `syncing ${towards(cc, version)}`);
    const done = conditions.find((c) => c.type === TemplateConditions.completed);
    if (cc.metadata.generation !== cc.status?.observedGeneration && done?.status === 'True')
      set(TemplateConditions.completed, 'False', `syncing ${towards(cc, version)} due to change in Generation`);
  } else if (phase.state === 'completed') {
    set(TemplateConditions.completed, 'True', completedMessage(cc, version));
    set(TemplateConditions.running, 'False', '');
    set(TemplateConditions.failing, 'False', '');
  } else {
    set(TemplateConditions.failing, 'True', `failed to syncing ${towards(cc, version)}: ${phase.error}`);
    set(TemplateConditions.completed, 'False', '');
    set(TemplateConditions.running, 'False', '');
  }
  return {
    ...(cc.status ?? {}),
    controllerCertificates: controllerCertificates(cc),
    observedGeneration: cc.metadata.generation ?? 0,
    conditions: conditions.map((c) => ({ ...c, lastTransitionTime: c.lastTransitionTime ?? null })),
  };
}
