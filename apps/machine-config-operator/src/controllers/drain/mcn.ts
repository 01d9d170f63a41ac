/**
 * The drain controller's MachineConfigNode reports, with upstream's types, reasons and messages
 * (openshift/machine-config-operator pkg/controller/drain/drain_controller.go syncNode / cordonOrUncordonNode /
 * drainNode): Cordoned and Drained under UpdateExecuted, Uncordoned under UpdateComplete. One reporter per node,
 * reading the MCNs from one watch of its own.
 */
import { Informer, MachineConfigNodes, type KubeClient, type Logger } from '@keelson/kube';
import { MACHINE_CONFIG_NODE_CONDITIONS as C } from '@keelson/api';
import type { MachineConfigNode, Node } from '@keelson/api';
import { NodeAnnotations } from '../../common/constants.js';
import type { McnCondition, McnConditionStatus } from '../../upgrade-monitor/conditions.js';
import { MachineConfigNodeReporter } from '../../upgrade-monitor/reporter.js';

const c = (type: string, status: McnConditionStatus, reason: string, message: string): McnCondition => ({
  type,
  status,
  reason,
  message,
});
const ann = (n: Node, k: string): string => n.metadata.annotations?.[k] ?? '';
const drainers = (n: Node): string =>
  `desired drainer ${ann(n, NodeAnnotations.desiredDrain)} matches current drainer ${ann(n, NodeAnnotations.lastAppliedDrain)}`;

/** The drain controller's MCN writers. */
export class DrainMcnReporters {
  readonly #informer: Informer<MachineConfigNode>;
  readonly #reporters = new Map<string, MachineConfigNodeReporter>();

  constructor(
    private readonly client: KubeClient,
    private readonly node: (name: string) => Node | undefined,
    private readonly logger: Logger,
  ) {
    this.#informer = new Informer(client, MachineConfigNodes, { logger });
  }

  start(): void {
    this.#informer.start();
  }

  async stop(): Promise<void> {
    await this.#informer.stop();
  }

  #for(name: string): MachineConfigNodeReporter {
    let r = this.#reporters.get(name);
    if (r === undefined) {
      r = new MachineConfigNodeReporter({
        client: this.client,
        nodeName: name,
        node: () => this.node(name),
        logger: this.logger,
        lookup: () => (this.#informer.hasSynced() ? this.#informer.store.get(name) : undefined),
      });
      this.#reporters.set(name, r);
    }
    return r;
  }

  /** Forgets a deleted node. */
  forget(name: string): void {
    this.#reporters.delete(name);
  }

  /** Cordoned, then the drain started: written before the (possibly long) drain. */
  async draining(node: Node, cordoned: boolean): Promise<void> {
    const r = this.#for(node.metadata.name ?? '');
    if (cordoned)
      r.report(
        c(C.UpdateExecuted, 'Unknown', C.Cordoned, 'Cordoned Node as part of update executed phase'),
        c(
          C.Cordoned,
          'True',
          `${C.UpdateExecuted}${C.Cordoned}`,
          'Cordoned node. The node is reporting Unschedulable = true',
        ),
      );
    r.report(
      c(C.UpdateExecuted, 'Unknown', C.Drained, 'Draining Node as part of update executed phase'),
      c(
        C.Drained,
        'Unknown',
        `${C.UpdateExecuted}${C.Drained}`,
        `Draining node. The drain will not be complete until ${drainers(node)}`,
      ),
    );
    await r.flush();
  }

  /** A drain attempt failed (upstream writes it on every failure; an unchanged parent writes nothing). */
  async drainFailed(node: Node, err: string): Promise<void> {
    const r = this.#for(node.metadata.name ?? '');
    r.report(
      c(C.UpdateExecuted, 'Unknown', C.Drained, 'Node Drain has not succeeded'),
      c(
        C.Drained,
        'Unknown',
        `${C.UpdateExecuted}${C.Drained}`,
        `Error: Node Drain has not succeeded. Error is: ${err} The drain will not be complete until ${drainers(node)}`,
      ),
    );
    await r.flush();
  }

  /** Drained: written before the completion annotation the daemon waits for. */
  async drained(node: Node): Promise<void> {
    const r = this.#for(node.metadata.name ?? '');
    r.report(
      c(C.UpdateExecuted, 'Unknown', C.Drained, 'Drained Node as part of update executed phase'),
      c(
        C.Drained,
        'True',
        `${C.UpdateExecuted}${C.Drained}`,
        `Drained node. The drain is complete as the desired drainer matches current drainer: ${ann(node, NodeAnnotations.desiredDrain)}`,
      ),
    );
    await r.flush();
  }

  /** Uncordoned: written before the completion annotation. */
  async uncordoned(node: Node): Promise<void> {
    const r = this.#for(node.metadata.name ?? '');
    r.report(
      c(C.UpdateComplete, 'True', C.Uncordoned, 'Uncordoned Node as part of completing upgrade phase'),
      c(
        C.Uncordoned,
        'True',
        `${C.UpdateComplete}${C.Uncordoned}`,
        'UnCordoned node. The node is reporting Unschedulable = false',
      ),
    );
    await r.flush();
  }
}
