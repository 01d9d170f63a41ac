/**
 * The machine-config-controller process: shared informers and the template, render, kubelet-config,
 * container-runtime-config, node and drain controllers, run while holding the `machine-config-controller` Lease.
 */
import { Registry, type Manager } from '@keelson/kube';
import { CONTROLLER_VERSION, MCO_NAMESPACE } from '../common/constants.js';
import { clientFrom, loggerFrom, runLeading, type ProcessOptions, type Running } from '../common/runtime.js';
import { MCO_VERSION } from '../common/version.js';
import { createRecorder, createSharedInformers, startSharedInformers, type ControllerContext } from './context.js';
import { DEFAULT_DURATIONS, scaleDurations, type ControllerDurations } from '@keelson/machineconfig';
import { DrainController, type CordonBackoff } from './drain/controller.js';
import { GeneratedConfigController } from './generated/controller.js';
import { NodeController } from './node/controller.js';
import { KubeletFeaturesController } from './kubelet/features-controller.js';
import { RegistriesController } from './registries/controller.js';
import { RenderController } from './render/controller.js';
import { defaultTemplatesDir, TemplateController } from './template/controller.js';

/** The sub-controllers of the machine-config-controller. */
export type ControllerName = 'template' | 'render' | 'kubeletconfig' | 'containerruntimeconfig' | 'node' | 'drain';

/** Options of {@link startMachineConfigController}. */
export interface MachineConfigControllerOptions extends ProcessOptions {
  /** Templates directory in upstream layout (default: the set shipped with this package). */
  templatesDir?: string;
  /** Durations (upstream values by default, divided by `timeScale`); explicit values win. */
  durations?: Partial<ControllerDurations>;
  /** Clock compression: upstream durations are divided by this (rehearsals; default 1). */
  timeScale?: number;
  /** Cordon/uncordon retry (upstream 10 s ×2, 5 steps). */
  cordonBackoff?: CordonBackoff;
  /** Which controllers run (default: all). */
  controllers?: readonly ControllerName[];
  /** generated-by-controller-version stamped on generated MCs (default: this build's). */
  controllerVersion?: string;
  /** Operator version the ControllerConfig must carry in generated-by-version (default: this build's). */
  operatorVersion?: string;
}

type Stoppable = { run(): Promise<void>; stop(): Promise<void> };

/**
 * Starts the machine-config-controller. Resolves once started (leading or campaigning); `stop()` ends it.
 */
export async function startMachineConfigController(opts: MachineConfigControllerOptions = {}): Promise<Running> {
  const client = clientFrom(opts.kubeconfig);
  const logger = loggerFrom(opts, 'machine-config-controller');
  const registry = opts.registry ?? new Registry();
  const durations: ControllerDurations = {
    ...scaleDurations(DEFAULT_DURATIONS, opts.timeScale ?? 1),
    ...opts.durations,
  };
  const enabled = new Set<ControllerName>(
    opts.controllers ?? ['template', 'render', 'kubeletconfig', 'containerruntimeconfig', 'node', 'drain'],
  );
  const controllerVersion = opts.controllerVersion ?? CONTROLLER_VERSION;
  const operatorVersion = opts.operatorVersion ?? MCO_VERSION;
  const templatesDir = opts.templatesDir ?? (enabled.has('template') ? defaultTemplatesDir() : '');
  const lead = async (mgr: Manager): Promise<() => Promise<void>> => {
    // the process's shared cache: one informer per kind for every controller, stopped by the Manager after them
    const informers = createSharedInformers(mgr, logger);
    const ctx: ControllerContext = {
      client,
      informers,
      manager: mgr,
      recorder: createRecorder(client, logger, 'machineconfigcontroller', opts.timeScale ?? 1),
      logger,
      registry,
      durations,
      now: () => new Date(),
    };
    const abort = new AbortController();
    await startSharedInformers(informers, abort.signal);
    const list: Stoppable[] = [];
    if (enabled.has('template')) list.push(new TemplateController(ctx, templatesDir, controllerVersion));
    if (enabled.has('kubeletconfig')) {
      list.push(new GeneratedConfigController(ctx, 'kubelet', controllerVersion));
      list.push(new KubeletFeaturesController(ctx, opts.templatesDir ?? defaultTemplatesDir(), controllerVersion));
    }
    if (enabled.has('containerruntimeconfig')) {
      list.push(new GeneratedConfigController(ctx, 'containerruntime', controllerVersion));
      list.push(new RegistriesController(ctx, opts.templatesDir ?? defaultTemplatesDir(), controllerVersion));
    }
    if (enabled.has('render')) list.push(new RenderController(ctx, { controllerVersion, operatorVersion }));
    if (enabled.has('node')) list.push(new NodeController(ctx));
    if (enabled.has('drain')) list.push(new DrainController(ctx, opts.cordonBackoff));
    const runs = list.map((c) =>
      c.run().catch((err: unknown) => {
        logger.error('controller crashed', { err });
      }),
    );
    logger.info('controllers started', { controllers: [...enabled] });
    return async () => {
      abort.abort();
      await Promise.all(list.map((c) => c.stop()));
      await Promise.all(runs);
      logger.info('controllers stopped');
    };
  };
  return runLeading(
    opts,
    { namespace: MCO_NAMESPACE, name: 'machine-config-controller' },
    client,
    logger,
    registry,
    lead,
  );
}
