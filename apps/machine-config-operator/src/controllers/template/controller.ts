/**
 * The template controller: ControllerConfig + templates → base MachineConfigs (created, or overwritten when edited),
 * ControllerConfig status TemplateControllerRunning/Completed/Failing.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Controller,
  ControllerConfigs,
  defineResource,
  isAlreadyExists,
  isConflict,
  MachineConfigs,
  type KubeObject,
  type ReconcileResult,
} from '@keelson/kube';
import type { ControllerConfig, MachineConfig } from '../../common/api-types.js';
import { CONTROLLER_CONFIG_NAME } from '../../common/constants.js';
import { clusterSingleton, type ControllerContext } from '../context.js';
import { watchDelayed } from '../watch.js';
import {
  completedByVersion,
  computeTemplateStatus,
  generateTemplateMachineConfigs,
  loadTemplateTree,
  semanticEqual,
  TemplateError,
  type TemplateInputs,
  type TemplateTree,
} from '@keelson/machineconfig';

type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };
type APIServerObject = KubeObject & NonNullable<TemplateInputs['apiServer']>;
const Secrets = defineResource<SecretObject>({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});
const APIServers = defineResource<APIServerObject>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'APIServer',
  plural: 'apiservers',
  namespaced: false,
});

/** The default template set shipped in this package (`src/templates`), found from the running module. */
export function defaultTemplatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const c of [join(dir, 'templates'), join(dir, 'src', 'templates')])
      if (existsSync(join(c, 'worker'))) return c;
    dir = dirname(dir);
  }
  throw new Error(
    'default templates directory not found next to the machine-config-operator package; pass --templates DIR',
  );
}

/** True when a generated MC differs from what exists (spec, labels or annotations). */
export function templateMachineConfigChanged(existing: MachineConfig, want: MachineConfig): boolean {
  return (
    !semanticEqual(existing.spec, want.spec) ||
    !semanticEqual(existing.metadata.labels ?? {}, want.metadata.labels ?? {}) ||
    Object.entries(want.metadata.annotations ?? {}).some(([k, v]) => existing.metadata.annotations?.[k] !== v)
  );
}

/** The template controller. */
export class TemplateController {
  readonly controller: Controller;
  private readonly unsubscribe: Array<() => void> = [];
  private tree: TemplateTree | undefined;
  /** Names of the MachineConfigs this controller generates (known after the first sync). */
  private readonly generatedNames = new Set<string>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly templatesDir: string,
    private readonly controllerVersion: string,
  ) {
    this.controller = new Controller({
      name: 'template',
      reconcile: (key) => this.reconcile(key),
      registry: ctx.registry,
      logger: ctx.logger,
    });
    this.unsubscribe.push(
      watchDelayed(
        this.controller,
        ctx.informers.controllerConfigs,
        (c) => [c.metadata.name ?? ''],
        0,
        (o, n) =>
          o.metadata.generation !== n.metadata.generation ||
          !semanticEqual(o.metadata.annotations, n.metadata.annotations),
      ),
      // ours by owner reference, or by name: an apply that dropped the owner reference must not leave another writer's content in place
      watchDelayed(
        this.controller,
        ctx.informers.machineConfigs,
        (mc) =>
          mc.metadata.ownerReferences?.some((r) => r.kind === 'ControllerConfig') === true ||
          this.generatedNames.has(mc.metadata.name ?? '')
            ? [CONTROLLER_CONFIG_NAME]
            : [],
        0,
      ),
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

  /**
   * One sync: TemplateControllerRunning (unless this controller version already completed this generation), the
   * generated MachineConfigs created or overwritten, then TemplateControllerCompleted (or Failing).
   */
  async reconcile(name: string): Promise<ReconcileResult | undefined> {
    let cc = this.ctx.informers.controllerConfigs.store.get(name);
    if (cc === undefined) return undefined;
    if (!completedByVersion(cc, this.controllerVersion)) {
      const written = await this.writeStatus(cc, { state: 'running' });
      if (written === undefined) return { requeueAfterMs: 100 };
      cc = written;
    }
    let mcs: MachineConfig[];
    try {
      const inputs = await this.inputs(cc);
      this.tree ??= loadTemplateTree(this.templatesDir);
      mcs = generateTemplateMachineConfigs(this.tree, cc, this.controllerVersion, inputs);
    } catch (e) {
      await this.writeStatus(cc, { state: 'failing', error: (e as Error).message });
      throw e;
    }
    await this.applyGenerated(mcs);
    return (await this.writeStatus(cc, { state: 'completed' })) === undefined ? { requeueAfterMs: 100 } : undefined;
  }

  /**
   * What upstream's syncControllerConfig reads besides the ControllerConfig: the pull secret it names (type
   * kubernetes.io/dockerconfigjson, key .dockerconfigjson) and the APIServer `cluster` (absent: Intermediate TLS).
   */
  private async inputs(cc: ControllerConfig): Promise<TemplateInputs> {
    const out: TemplateInputs = {};
    const ref = (cc.spec as { pullSecret?: { namespace?: string; name?: string } | null }).pullSecret;
    if (ref) {
      const secret = await this.ctx.client.resource(Secrets).get(ref.name ?? '', ref.namespace ?? '');
      if (secret.type !== 'kubernetes.io/dockerconfigjson')
        throw new TemplateError(
          `expected secret type kubernetes.io/dockerconfigjson found ${secret.type ?? ''}`,
          `secret ${ref.namespace ?? ''}/${ref.name ?? ''}`,
        );
      out.pullSecret = Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString('utf8');
    }
    const apiServer = await clusterSingleton(this.ctx, APIServers);
    if (apiServer !== undefined) out.apiServer = apiServer;
    return out;
  }

  /** Creates each generated MC, or overwrites it when its content was changed by someone else. */
  private async applyGenerated(mcs: readonly MachineConfig[]): Promise<void> {
    const client = this.ctx.client.resource(MachineConfigs);
    for (const want of mcs) {
      const mcName = want.metadata.name ?? '';
      this.generatedNames.add(mcName);
      const existing = this.ctx.informers.machineConfigs.store.get(mcName);
      if (existing === undefined) {
        try {
          await client.create(want);
        } catch (e) {
          if (!isAlreadyExists(e)) throw e;
        }
      } else if (templateMachineConfigChanged(existing, want)) {
        const ownerReferences = want.metadata.ownerReferences ?? existing.metadata.ownerReferences;
        await client.update({
          ...existing,
          metadata: {
            ...existing.metadata,
            labels: want.metadata.labels ?? {},
            annotations: { ...existing.metadata.annotations, ...want.metadata.annotations },
            ...(ownerReferences !== undefined ? { ownerReferences } : {}),
          },
          spec: want.spec ?? {},
        });
      }
    }
  }

  /** Writes the status of `phase` unless unchanged; returns the stored object, or undefined after a conflict. */
  private async writeStatus(
    cc: ControllerConfig,
    phase: Parameters<typeof computeTemplateStatus>[2],
  ): Promise<ControllerConfig | undefined> {
    const status = computeTemplateStatus(cc, this.controllerVersion, phase, this.ctx.now());
    if (semanticEqual(status, cc.status ?? {})) return cc;
    try {
      return await this.ctx.client.resource(ControllerConfigs).updateStatus({ ...cc, status });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return undefined;
    }
  }
}
