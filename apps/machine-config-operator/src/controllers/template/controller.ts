/**
 * The template controller: ControllerConfig + templates → base MachineConfigs (created, or overwritten when edited),
 * ControllerConfig status TemplateControllerRunning/Completed/Failing.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Controller, ControllerConfigs, isAlreadyExists, isConflict, MachineConfigs, type Condition, type ReconcileResult } from '@keelson/kube';
import type { ControllerConfig, MachineConfig } from '../../common/api-types.js';
import { CONTROLLER_CONFIG_NAME } from '../../common/constants.js';
import { setPoolCondition } from '../../common/conditions.js';
import type { ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import { generateTemplateMachineConfigs, loadTemplateTree, type TemplateTree } from './generate.js';

/** The default template set shipped in this package (`src/templates`), found from the running module. */
export function defaultTemplatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const c of [join(dir, 'templates'), join(dir, 'src', 'templates')]) if (existsSync(join(c, 'worker'))) return c;
    dir = dirname(dir);
  }
  throw new Error('default templates directory not found next to the machine-config-operator package; pass --templates DIR');
}

/** True when a generated MC differs from what exists (spec, labels or annotations). */
export function templateMachineConfigChanged(existing: MachineConfig, want: MachineConfig): boolean {
  return (
    JSON.stringify(existing.spec) !== JSON.stringify(want.spec) ||
    JSON.stringify(existing.metadata.labels ?? {}) !== JSON.stringify(want.metadata.labels ?? {}) ||
    Object.entries(want.metadata.annotations ?? {}).some(([k, v]) => existing.metadata.annotations?.[k] !== v)
  );
}

/** The template controller. */
export class TemplateController {
  readonly controller: Controller;
  private readonly unsubscribe: Array<() => void> = [];
  private tree: TemplateTree | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly templatesDir: string,
    private readonly controllerVersion: string,
  ) {
    this.controller = new Controller({ name: 'template', reconcile: (key) => this.reconcile(key), registry: ctx.registry, logger: ctx.logger });
    this.unsubscribe.push(
      watchDelayed(this.controller, ctx.informers.controllerConfigs, (c) => [c.metadata.name ?? ''], 0, (o, n) => o.metadata.generation !== n.metadata.generation || JSON.stringify(o.metadata.annotations) !== JSON.stringify(n.metadata.annotations)),
      watchDelayed(this.controller, ctx.informers.machineConfigs, (mc) => (mc.metadata.ownerReferences?.some((r) => r.kind === 'ControllerConfig') ? [CONTROLLER_CONFIG_NAME] : []), 0),
    );
  }

  run(): Promise<void> {
    this.controller.enqueue(CONTROLLER_CONFIG_NAME);
    return this.controller.run();
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.controller.stop();
  }

  async reconcile(name: string): Promise<ReconcileResult | undefined> {
    const cc = this.ctx.informers.controllerConfigs.store.get(name);
    if (cc === undefined) return undefined;
    let mcs: MachineConfig[];
    try {
      this.tree ??= loadTemplateTree(this.templatesDir);
      mcs = generateTemplateMachineConfigs(this.tree, cc, this.controllerVersion);
    } catch (e) {
      await this.setStatus(cc, 'failing', (e as Error).message);
      throw e;
    }
    const client = this.ctx.client.resource(MachineConfigs);
    for (const want of mcs) {
      const existing = this.ctx.informers.machineConfigs.store.get(want.metadata.name ?? '');
      if (existing === undefined) {
        try {
          await client.create(want);
        } catch (e) {
          if (!isAlreadyExists(e)) throw e;
        }
      } else if (templateMachineConfigChanged(existing, want)) {
        await client.update({ ...existing, metadata: { ...existing.metadata, labels: want.metadata.labels ?? {}, annotations: { ...existing.metadata.annotations, ...want.metadata.annotations } }, spec: want.spec ?? {} });
      }
    }
    await this.setStatus(cc, 'completed', '');
    return undefined;
  }

  private async setStatus(cc: ControllerConfig, state: 'completed' | 'failing', message: string): Promise<void> {
    const now = this.ctx.now();
    const conds: Array<[string, 'True' | 'False', string]> =
      state === 'completed'
        ? [['TemplateControllerRunning', 'False', ''], ['TemplateControllerCompleted', 'True', `sync completed towards (${String(cc.metadata.generation ?? 0)}) generation using controller version ${this.controllerVersion}`], ['TemplateControllerFailing', 'False', '']]
        : [['TemplateControllerRunning', 'False', ''], ['TemplateControllerCompleted', 'False', ''], ['TemplateControllerFailing', 'True', `failed to sync towards (${String(cc.metadata.generation ?? 0)}) generation using controller version ${this.controllerVersion}: ${message}`]];
    let conditions: Condition[] = cc.status?.conditions ?? [];
    for (const [type, status, msg] of conds) conditions = setPoolCondition(conditions, { type, status, reason: '', message: msg }, now);
    const status = { ...(cc.status ?? {}), observedGeneration: cc.metadata.generation ?? 0, conditions: conditions.map((c) => ({ ...c, lastTransitionTime: c.lastTransitionTime ?? null })) };
    if (JSON.stringify(status) === JSON.stringify(cc.status ?? {})) return;
    try {
      await this.ctx.client.resource(ControllerConfigs).updateStatus({ ...cc, status });
    } catch (e) {
      if (!isConflict(e)) throw e;
      this.controller.queue.addAfter(cc.metadata.name ?? '', 100);
    }
  }
}
