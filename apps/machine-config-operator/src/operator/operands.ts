/**
 * The operator's operands (openshift/machine-config-operator pkg/operator/sync.go syncMachineConfigDaemon,
 * syncMachineConfigController, syncMachineConfigServer): the daemon DaemonSet, the controller Deployment and the
 * server DaemonSet rendered from this package's `operands/` (upstream keeps them in `manifests/machineconfigdaemon/`,
 * `manifests/machineconfigcontroller/`, `manifests/machineconfigserver/`, compiled into the operator binary, while
 * the release payload's `install/` carries none of them) with the release's machine-config-operator image, applied
 * in upstream's order (daemon, controller, server), each waited for as waitForDaemonsetRollout /
 * waitForDeploymentRollout do before the next. Upstream blocks its sync in a 1 s poll for up to 10 minutes; here a
 * rollout in progress is the operator's pending state (its sync stops at that task and the DaemonSet/Deployment
 * watch queues the next pass), and after 10 minutes the task fails with upstream's error text.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { defineResource, Informer, isNotFound, type KubeClient, type KubeObject } from '@keelson/kube';
import { MCO_NAMESPACE } from '../common/constants.js';
import { semanticallyContains } from '@keelson/machineconfig';
import { OperatorSyncError } from '@keelson/machineconfig';
import type { InformerSource } from './informers.js';

/** A workload as the operator reads and writes it. */
export type Workload = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, number | undefined>;
};

export const DaemonSets = defineResource<Workload>({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  namespaced: true,
});
export const Deployments = defineResource<Workload>({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
});

/** One operand: the sync task that owns it and its manifest. */
export interface Operand {
  /** Sync task name (upstream's syncFunc name). */
  readonly task: 'MachineConfigDaemon' | 'MachineConfigController' | 'MachineConfigServer';
  readonly kind: 'DaemonSet' | 'Deployment';
  readonly name: string;
  /** File in the operands directory. */
  readonly file: string;
}

/** The operands in upstream's sync order. */
export const OPERANDS: readonly Operand[] = [
  {
    task: 'MachineConfigDaemon',
    kind: 'DaemonSet',
    name: 'machine-config-daemon',
    file: 'machineconfigdaemon/daemonset.yaml',
  },
  {
    task: 'MachineConfigController',
    kind: 'Deployment',
    name: 'machine-config-controller',
    file: 'machineconfigcontroller/deployment.yaml',
  },
  {
    task: 'MachineConfigServer',
    kind: 'DaemonSet',
    name: 'machine-config-server',
    file: 'machineconfigserver/daemonset.yaml',
  },
];

/** The image placeholder the manifests carry (oc adm release new replaces it in a payload; the operator here). */
export const MCO_IMAGE_PLACEHOLDER =
  'placeholder.url.oc.will.replace.this.org/placeholdernamespace:machine-config-operator';

/** The operand manifests directory of this package (`operands/`), found from the running module. */
export function defaultOperandsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const c = join(dir, 'operands');
    if (existsSync(join(c, OPERANDS[0]?.file ?? ''))) return c;
    dir = dirname(dir);
  }
  throw new Error('operand manifests not found next to the machine-config-operator package; pass --operands-dir DIR');
}

/**
 * Reads and renders one operand: image placeholder → `image`; release-payload annotations are dropped (a copy of a
 * manifest taken from a release carries them; what the operator applies is not the CVO's).
 */
export async function renderOperand(dir: string, op: Operand, image: string): Promise<Workload> {
  const text = await readFile(join(dir, op.file), 'utf8');
  const obj = parseYaml(text.split(MCO_IMAGE_PLACEHOLDER).join(image)) as Workload;
  if (obj.kind !== op.kind || obj.metadata.name !== op.name)
    throw new Error(
      `${join(dir, op.file)}: expected ${op.kind} ${op.name}, found ${obj.kind ?? '?'} ${obj.metadata.name ?? '?'}`,
    );
  const annotations = Object.fromEntries(
    Object.entries(obj.metadata.annotations ?? {}).filter(([k]) => !k.startsWith('include.release.openshift.io/')),
  );
  return { ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? MCO_NAMESPACE, annotations } };
}

/** Whether the stored workload already has everything `want` sets (spec, labels, annotations). */
export function workloadUpToDate(have: Workload, want: Workload): boolean {
  return (
    semanticallyContains(have.spec ?? {}, want.spec ?? {}) &&
    semanticallyContains(have.metadata.labels ?? {}, want.metadata.labels ?? {}) &&
    semanticallyContains(have.metadata.annotations ?? {}, want.metadata.annotations ?? {})
  );
}

const n = (w: Workload, k: string): number => w.status?.[k] ?? 0;

/**
 * Undefined when the rollout is complete, else upstream's "not ready" text (waitForDaemonsetRollout /
 * waitForDeploymentRollout: generation observed, all updated, none unavailable).
 */
export function rolloutProblem(w: Workload): string | undefined {
  const observed = (w.metadata.generation ?? 0) <= n(w, 'observedGeneration');
  if (w.kind === 'DaemonSet') {
    if (
      observed &&
      n(w, 'updatedNumberScheduled') === n(w, 'desiredNumberScheduled') &&
      n(w, 'numberUnavailable') === 0
    )
      return undefined;
    return `daemonset ${w.metadata.name ?? ''} is not ready. status: (desired: ${n(w, 'desiredNumberScheduled')}, updated: ${n(w, 'updatedNumberScheduled')}, ready: ${n(w, 'numberReady')}, unavailable: ${n(w, 'numberUnavailable')})`;
  }
  if (observed && n(w, 'updatedReplicas') === n(w, 'replicas') && n(w, 'unavailableReplicas') === 0) return undefined;
  return `deployment ${w.metadata.name ?? ''} is not ready. status: (replicas: ${n(w, 'replicas')}, updated: ${n(w, 'updatedReplicas')}, ready: ${n(w, 'readyReplicas')}, unavailable: ${n(w, 'unavailableReplicas')})`;
}

/** Creates or updates a workload; the stored object and whether it was written. */
export async function applyWorkload(
  client: KubeClient,
  have: Workload | undefined,
  want: Workload,
): Promise<{ obj: Workload; updated: boolean }> {
  const r = client.resource(want.kind === 'DaemonSet' ? DaemonSets : Deployments);
  if (have === undefined) {
    try {
      return { obj: await r.create(want), updated: true };
    } catch (e) {
      if (isNotFound(e))
        throw new Error(
          `namespace ${want.metadata.namespace ?? ''} not found for ${want.kind} ${want.metadata.name ?? ''}`,
          { cause: e },
        );
      throw e;
    }
  }
  if (workloadUpToDate(have, want)) return { obj: have, updated: false };
  const merged: Workload = {
    ...have,
    metadata: {
      ...have.metadata,
      labels: { ...have.metadata.labels, ...want.metadata.labels },
      annotations: { ...have.metadata.annotations, ...want.metadata.annotations },
    },
    spec: want.spec ?? {},
  };
  return { obj: await r.update(merged), updated: true };
}

/** Options of the operator's operand management. */
export interface OperandOptions {
  /** Directory of the operand manifests (default: this package's `operands/`). */
  readonly dir?: string;
  /** Image of the daemon, controller and server (default: images.machineConfigOperator, else the operator image). */
  readonly image?: string;
  /** How long a rollout may take before the task fails (upstream 10 min). */
  readonly rolloutTimeoutMs?: number;
}

/** The operand tasks and the DaemonSet/Deployment watches that wake the operator when a rollout moves. */
export class OperandSync {
  readonly daemonSets: Informer<Workload>;
  readonly deployments: Informer<Workload>;
  readonly #rollingSince = new Map<string, number>();
  readonly #rendered = new Map<string, Promise<Workload>>();

  constructor(
    private readonly client: KubeClient,
    private readonly o: OperandOptions & { image: string },
    informers: InformerSource,
  ) {
    this.daemonSets = informers(DaemonSets, { namespace: MCO_NAMESPACE });
    this.deployments = informers(Deployments, { namespace: MCO_NAMESPACE });
  }

  #render(op: Operand): Promise<Workload> {
    let p = this.#rendered.get(op.name);
    if (p === undefined) {
      p = renderOperand(this.o.dir ?? defaultOperandsDir(), op, this.o.image);
      p.catch(() => this.#rendered.delete(op.name));
      this.#rendered.set(op.name, p);
    }
    return p;
  }

  /** One operand task: apply, then the rollout's pending text (undefined once rolled out). */
  async sync(op: Operand, now: number = Date.now()): Promise<string | undefined> {
    const want = await this.#render(op);
    const inf = op.kind === 'DaemonSet' ? this.daemonSets : this.deployments;
    const have = inf.store.get(op.name, MCO_NAMESPACE);
    const { obj, updated } = await applyWorkload(this.client, have, want);
    // upstream waits for a rollout only after it changed the workload; that wait outlives this pass here
    if (updated && !this.#rollingSince.has(op.name)) this.#rollingSince.set(op.name, now);
    const since = this.#rollingSince.get(op.name);
    if (since === undefined) return undefined;
    const problem = rolloutProblem(obj);
    if (problem === undefined) {
      this.#rollingSince.delete(op.name);
      return undefined;
    }
    if (now - since > (this.o.rolloutTimeoutMs ?? 10 * 60_000)) {
      const fn = op.kind === 'DaemonSet' ? 'waitForDaemonsetRollout' : 'waitForDeploymentRollout';
      throw new OperatorSyncError(op.task, `error during ${fn}: [context deadline exceeded, ${problem}]`);
    }
    return problem;
  }
}
