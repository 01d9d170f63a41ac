/**
 * Writes a node's MachineConfigNode as upstream's upgrade monitor does (openshift/machine-config-operator
 * pkg/upgrademonitor/upgrade_monitor.go), with fewer requests: upstream GETs the MCN and server-side-applies its
 * status on every report; here reports queue in memory and {@link MachineConfigNodeReporter.flush} folds them into
 * the last MCN this reporter read or wrote and PUTs the status once — only when a condition changed. Callers flush at
 * the points an observer must see (before a reboot, when the node is Done, when an update fails), so an update costs
 * two status writes instead of upstream's dozen GET + apply pairs. A conflict (the drain controller wrote the same
 * MCN) re-reads the object and folds the reports again. Failures are logged and the reports kept for the next flush:
 * MCN status is reporting, never a reason to fail an update (upstream only logs them too).
 */
import { isConflict, isNotFound, MachineConfigNodes, type KubeClient, type Logger } from '@keelson/kube';
import type { MachineConfigNode, Node } from '@keelson/api';
import { applyMcnReport, newMachineConfigNode, primaryPoolFromLabels, type McnCondition } from './conditions.js';

/** Options of {@link MachineConfigNodeReporter}. */
export interface McnReporterOptions {
  readonly client: KubeClient;
  readonly nodeName: string;
  /** The node as last seen (its desired/current annotations go into the status). */
  readonly node: () => Node | undefined;
  /** The node's primary pool, for an MCN this reporter must create (default: from the node's role labels). */
  readonly pool?: (node: Node) => string;
  readonly logger?: Logger;
  /** Counters of the API requests made (shared with the daemon's other writers: the benchmark's count). */
  readonly stats?: ReadonlyArray<{ writes: number }>;
  /** The MCN as an informer last saw it (a shared watch): read instead of a GET when present. */
  readonly lookup?: () => MachineConfigNode | undefined;
  /** Clock (tests). */
  readonly now?: () => Date;
}

/** Most reports kept while they cannot be written. */
const MAX_QUEUED = 64;

interface Queued {
  parent: McnCondition;
  child?: McnCondition | undefined;
}

class McnNotServedError extends Error {}

/** Whether `a` is a later version of the object than `b` (etcd resource versions are increasing integers). */
function newer(a: MachineConfigNode, b: MachineConfigNode): boolean {
  const x = Number(a.metadata.resourceVersion);
  const y = Number(b.metadata.resourceVersion);
  if (!Number.isSafeInteger(x) || !Number.isSafeInteger(y)) return true;
  return x > y;
}

/** One node's MachineConfigNode writer. */
export class MachineConfigNodeReporter {
  readonly #o: McnReporterOptions;
  #queue: Queued[] = [];
  #mcn: MachineConfigNode | undefined;
  #chain: Promise<void> = Promise.resolve();
  #disabled = false;

  constructor(o: McnReporterOptions) {
    this.#o = o;
  }

  /** Queues a report (upstream GenerateAndApplyMachineConfigNodes' parent and child). */
  report(parent: McnCondition, child?: McnCondition): void {
    this.#queue.push({ parent, child });
    // bounded while the API is unreachable: the oldest reports are superseded by the newer ones anyway
    if (this.#queue.length > MAX_QUEUED) this.#queue.splice(0, this.#queue.length - MAX_QUEUED);
  }

  /** Reports not yet written. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Writes the queued reports (one status PUT when anything changed); never throws. `node`: the Node as a write
   * just returned it (newer than the watch's copy).
   */
  flush(node?: Node): Promise<void> {
    this.#chain = this.#chain.then(() => this.#write(node));
    return this.#chain;
  }

  #count(): void {
    for (const s of this.#o.stats ?? []) s.writes++;
  }

  async #load(node: Node, reread: boolean): Promise<MachineConfigNode> {
    const seen = reread ? undefined : this.#o.lookup?.();
    if (seen !== undefined && (this.#mcn === undefined || newer(seen, this.#mcn))) this.#mcn = seen;
    if (this.#mcn) return this.#mcn;
    const mcns = this.#o.client.resource(MachineConfigNodes);
    this.#count();
    try {
      this.#mcn = await mcns.get(this.#o.nodeName);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      // upstream's daemon creates the MCN when the operator has not yet (createOrGetMachineConfigNode)
      this.#count();
      const pool = (this.#o.pool ?? primaryPoolFromLabels)(node);
      try {
        this.#mcn = await mcns.create(newMachineConfigNode(node, pool));
      } catch (err) {
        // a 404 on create: the cluster does not serve MachineConfigNodes (no CRD); report nothing from now on
        if (isNotFound(err)) throw new McnNotServedError();
        throw err;
      }
    }
    return this.#mcn;
  }

  async #write(given: Node | undefined): Promise<void> {
    const batch = this.#queue;
    if (batch.length === 0 || this.#disabled) return;
    const node = given ?? this.#o.node();
    if (node === undefined) return;
    this.#queue = [];
    try {
      for (let attempt = 0; ; attempt++) {
        const mcn = await this.#load(node, attempt > 0);
        const now = this.#o.now?.() ?? new Date();
        let status = mcn.status;
        for (const q of batch)
          status = applyMcnReport(status === undefined ? mcn : { ...mcn, status }, q, node, now) ?? status;
        if (status === mcn.status || status === undefined) return;
        this.#count();
        try {
          this.#mcn = await this.#o.client.resource(MachineConfigNodes).updateStatus({ ...mcn, status });
          return;
        } catch (e) {
          this.#mcn = undefined;
          if (!isConflict(e) || attempt >= 2) throw e;
        }
      }
    } catch (e) {
      if (e instanceof McnNotServedError) {
        this.#disabled = true;
        this.#queue = [];
        this.#o.logger?.info('MachineConfigNodes are not served; not reporting them', { node: this.#o.nodeName });
        return;
      }
      this.#queue = [...batch, ...this.#queue];
      this.#mcn = undefined;
      this.#o.logger?.error('Error applying MCN status', { node: this.#o.nodeName, err: (e as Error).message });
    }
  }
}
