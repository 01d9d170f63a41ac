/**
 * The daemon's sync of its own Node (daemon.go syncNode / checkStateOnFirstRun / updateConfigAndState): a single
 * serialized loop woken by Node changes; failures set Degraded (or Unreconcilable) with the error as reason and
 * are retried with per-item exponential backoff 1 s .. 60 s, Node changes included (upstream's rate-limited queue).
 */
import { promises as fs } from 'node:fs';
import { NODE_ANNOTATIONS, POST_CONFIG_ACTION_REBOOTING, type MachineConfig, type Node } from '@keelson/api';
import type { ClusterAccess, DaemonContext } from './context.js';
import { MachineConfigNotFoundError } from './cluster.js';
import { emit } from './context.js';
import { killPoint } from './crash.js';
import { CURRENT_CONFIG_PATH, FORCE_FILE_PATH, NODE_ANNOTATIONS_BAK_PATH, NODE_ANNOTATIONS_PATH } from './constants.js';
import { DaemonStoppedError, performDrainRequest } from './drain.js';
import { clearJournal, readJournal, type UpdateJournal } from './journal.js';
import { ConfigDriftMonitor } from './drift-monitor.js';
import { OnDiskValidationError, validateOnDiskState } from './on-disk-validation.js';
import { UnreconcilableError, rebootInto, update } from './update.js';
import * as mcnReports from './mcn-reports.js';
import { flushMcn, reportMcn } from './mcn-reports.js';
import { atomicWrite, exists } from './writer.js';

/** Maximum length of the `reason` annotation. */
export const MAX_REASON_LENGTH = 2000;

/** Backoff of failed syncs. */
export interface SyncBackoff {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** Upstream: 1 s doubling up to 60 s. */
export const DEFAULT_SYNC_BACKOFF: SyncBackoff = { initialMs: 1000, maxMs: 60_000 };

const ann = (n: Node | undefined, k: string): string => n?.metadata.annotations?.[k] ?? '';

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The MachineConfig of /etc/machine-config-daemon/currentconfig, if any. */
export async function readOnDiskConfig(ctx: DaemonContext): Promise<MachineConfig | undefined> {
  const v = (await readJson(ctx.root.resolve(CURRENT_CONFIG_PATH))) as MachineConfig | undefined;
  return v && typeof v === 'object' && typeof v.metadata === 'object' ? v : undefined;
}

/** A running daemon for one node. */
export class MachineConfigDaemon {
  readonly ctx: DaemonContext;
  readonly #cluster: ClusterAccess;
  readonly #backoff: SyncBackoff;
  #booting = true;
  #rebooting = false;
  #running = false;
  #dirty = false;
  #failures = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryAt = 0;
  #unsubscribe: (() => void) | undefined;
  #loop: Promise<void> = Promise.resolve();
  #stopped = false;
  #waitLogged = false;
  #drift: ConfigDriftMonitor | undefined;

  constructor(ctx: DaemonContext, backoff: SyncBackoff = DEFAULT_SYNC_BACKOFF) {
    if (!ctx.cluster) throw new Error('MachineConfigDaemon needs cluster access (use runFirstboot without it)');
    this.ctx = ctx;
    this.#cluster = ctx.cluster;
    this.#backoff = backoff;
  }

  /** Starts syncing on Node changes. */
  start(): void {
    this.#unsubscribe = this.#cluster.source.subscribe(() => {
      this.#onNodeEvent();
    });
    this.kick();
  }

  /**
   * A Node change. Upstream (openshift/machine-config-operator pkg/daemon/daemon.go, handleNodeEvent →
   * enqueueDefault) adds the node with `queue.AddRateLimited`: while syncs keep failing, a Node change (our own
   * Degraded annotation, a kubelet status update) waits for the item's exponential delay too, and counts as one more
   * requeue. Without failures the sync starts at once.
   */
  #onNodeEvent(): void {
    if (this.#failures === 0 || this.#retryTimer === undefined) {
      this.kick();
      return;
    }
    this.#scheduleRetry();
  }

  /** Schedules the next rate-limited attempt (ItemExponentialFailureRateLimiter: initial × 2^failures, capped). */
  #scheduleRetry(): void {
    const delay = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** this.#failures);
    this.#failures++;
    const at = Date.now() + delay;
    // the earliest pending time wins (a waiting item is not pushed later)
    if (this.#retryTimer !== undefined && this.#retryAt <= at) return;
    clearTimeout(this.#retryTimer);
    this.#retryAt = at;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.kick();
    }, delay);
  }

  /** Stops (waits for the sync in progress, which aborts at its next wait). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopDriftMonitor();
    this.#unsubscribe?.();
    clearTimeout(this.#retryTimer);
    await this.#loop;
  }

  /** True once a reboot was requested (the host takes over). */
  get rebooting(): boolean {
    return this.#rebooting;
  }

  /** Schedules a sync (coalesced). */
  kick(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    while (this.#dirty && !this.#stopped && !this.#rebooting) {
      this.#dirty = false;
      try {
        await this.sync();
        this.#failures = 0;
      } catch (e) {
        if (e instanceof DaemonStoppedError || this.#stopped) break;
        await this.#updateErrorState(e as Error).catch((err: unknown) => {
          this.ctx.logger.error('could not report error state', { error: (err as Error).message });
        });
        // the retry waits for its backoff: Node changes seen meanwhile (our own Degraded annotation among them)
        // do not start the next attempt at once (upstream handleErr → AddRateLimited)
        this.#dirty = false;
        clearTimeout(this.#retryTimer);
        this.#retryTimer = undefined;
        this.#scheduleRetry();
      }
    }
    this.#running = false;
  }

  async #updateErrorState(err: Error): Promise<void> {
    const unreconcilable = err instanceof UnreconcilableError;
    const reason = err.message.slice(0, MAX_REASON_LENGTH);
    const state = unreconcilable ? 'Unreconcilable' : 'Degraded';
    this.ctx.logger.error('update failed', { node: this.ctx.nodeName, state, error: reason });
    emit(
      this.ctx,
      unreconcilable ? 'unreconcilable' : 'degraded',
      ann(this.#cluster.source.current(), NODE_ANNOTATIONS.desiredConfig),
      reason,
    );
    this.ctx.metrics?.setState(state, reason);
    this.ctx.metrics?.setUpdateState(ann(this.#cluster.source.current(), NODE_ANNOTATIONS.desiredConfig), reason);
    const node = this.#cluster.source.current();
    if (ann(node, NODE_ANNOTATIONS.state) !== state || ann(node, NODE_ANNOTATIONS.reason) !== reason)
      await this.#cluster.writer.setAnnotations({ [NODE_ANNOTATIONS.state]: state, [NODE_ANNOTATIONS.reason]: reason });
    // what the failed update reported (e.g. UpdatePrepared Unknown for an unreconcilable config), after the node state
    await flushMcn(this.ctx);
  }

  /** One sync of the node (syncNode). */
  async sync(): Promise<void> {
    const node = this.#cluster.source.current();
    if (!node && !this.#waitLogged) {
      // upstream's Daemon.Run waits for its node informer; the kubelet registers the Node later (the watch wakes us)
      this.#waitLogged = true;
      this.ctx.logger.info('waiting for the node', {
        node: this.ctx.nodeName,
        for: `node "${this.ctx.nodeName}" does not exist yet`,
      });
    }
    if (!node || this.#rebooting) return;
    if (this.#booting) {
      await this.#checkStateOnFirstRun(node);
      this.#booting = false;
      return;
    }
    const desiredDrain = ann(node, NODE_ANNOTATIONS.desiredDrain);
    if (
      desiredDrain !== '' &&
      desiredDrain !== ann(node, NODE_ANNOTATIONS.lastAppliedDrain) &&
      !desiredDrain.startsWith('uncordon-')
    )
      return;
    const desired = ann(node, NODE_ANNOTATIONS.desiredConfig);
    if (desired === '') return;
    // an update whose files and OS were staged, then failed while asking for the reboot (an API error on the
    // post-config-action annotation): the disk already holds the new config and the OS waits for the reboot, so
    // validating now would report the old deployment as drift; ask for the reboot again, as at boot
    const journal = await readJournal(this.ctx.root);
    if (journal?.phase === 'rebooting' && (await this.#resume(journal))) return;
    const onDisk = await readOnDiskConfig(this.ctx);
    const currentName = onDisk?.metadata.name ?? ann(node, NODE_ANNOTATIONS.currentConfig);
    const force = await exists(this.ctx.root.resolve(FORCE_FILE_PATH));
    if (
      currentName === desired &&
      ann(node, NODE_ANNOTATIONS.state) === 'Done' &&
      ann(node, NODE_ANNOTATIONS.currentConfig) === desired &&
      !force
    )
      return;
    const current = await this.#currentConfig(currentName, onDisk);
    const desiredMc = await this.#cluster.configs.get(desired);
    if (!force) await this.#preflight(current);
    if (currentName === desired && !force) {
      await this.#complete(desired);
      return;
    }
    await this.#triggerUpdate(current, desiredMc);
  }

  /** The current config: the cluster's object, or the on-disk copy when the cluster no longer has it. */
  async #currentConfig(name: string, onDisk: MachineConfig | undefined): Promise<MachineConfig> {
    try {
      return await this.#cluster.configs.get(name);
    } catch (e) {
      if (e instanceof MachineConfigNotFoundError && onDisk?.metadata.name === name) return onDisk;
      throw e;
    }
  }

  async #preflight(current: MachineConfig): Promise<void> {
    try {
      await validateOnDiskState(this.ctx.root, this.ctx.host, this.ctx.os, current);
    } catch (e) {
      if (e instanceof OnDiskValidationError)
        this.#cluster.writer.event('Warning', 'PreflightConfigDriftCheckFailed', e.message);
      throw e;
    }
  }

  async #triggerUpdate(current: MachineConfig, desired: MachineConfig): Promise<void> {
    // upstream stops the drift monitor before an update and starts it again once the node is Done
    this.#stopDriftMonitor();
    reportMcn(this.ctx, mcnReports.needsUpdate(this.ctx.nodeName));
    const result = await update(this.ctx, current, desired);
    if (result.rebooted) {
      this.#rebooting = true;
      return;
    }
    await this.#complete(desired.metadata.name ?? '');
  }

  /** completeUpdate + SetDone: uncordon, then state=Done, currentConfig, reason="". */
  async #complete(config: string): Promise<void> {
    await performDrainRequest(
      this.#cluster.writer,
      this.#cluster.source,
      'uncordon',
      config,
      this.ctx.drainTimeouts,
      this.ctx.signal,
    );
    killPoint('boot-after-uncordon-requested');
    const node = this.#cluster.source.current();
    const patch: Record<string, string> = {
      [NODE_ANNOTATIONS.state]: 'Done',
      [NODE_ANNOTATIONS.currentConfig]: config,
      [NODE_ANNOTATIONS.reason]: '',
    };
    if (ann(node, NODE_ANNOTATIONS.postConfigAction) !== '') patch[NODE_ANNOTATIONS.postConfigAction] = '';
    reportMcn(this.ctx, mcnReports.resumed(config));
    const done = await this.#cluster.writer.setAnnotations(patch);
    reportMcn(this.ctx, mcnReports.updated(this.ctx.nodeName));
    this.ctx.metrics?.setState('Done', '');
    this.ctx.metrics?.setUpdateState(config, '');
    killPoint('boot-after-done');
    await clearJournal(this.ctx.root);
    this.#cluster.writer.event(
      'Normal',
      'NodeDone',
      `Setting node ${this.ctx.nodeName}, currentConfig ${config} to Done`,
    );
    emit(this.ctx, 'done', config);
    await this.#startDriftMonitor(config);
    // after the monitor watches again: an edit right after Done must not fall in the MCN write's window
    await flushMcn(this.ctx, done);
  }

  /** Watches the files and units of the config the node is Done on (see drift-monitor.ts). */
  /** upstream startConfigDriftMonitor's shutdown(): monitor stopped, event ConfigDriftMonitorStopped. */
  #stopDriftMonitor(): void {
    const drift = this.#drift;
    this.#drift = undefined;
    if (!drift) return;
    drift.stop();
    this.#cluster.writer.event('Normal', 'ConfigDriftMonitorStopped', 'Config Drift Monitor stopped');
  }

  async #startDriftMonitor(config: string): Promise<void> {
    this.#stopDriftMonitor();
    if (this.ctx.driftMonitor === false || this.#stopped) return;
    const mc = await this.#cluster.configs.get(config);
    const monitor = new ConfigDriftMonitor({
      root: this.ctx.root,
      host: this.ctx.host,
      mc,
      logger: this.ctx.logger,
      handlers: {
        onDrift: (err) => {
          // upstream Daemon.onConfigDrift: event ConfigDriftDetected, mcd_config_drift, node Degraded with the message
          this.#cluster.writer.event('Warning', 'ConfigDriftDetected', err.message);
          this.ctx.metrics?.configDrift.setToCurrentTime();
          this.#updateErrorState(err).catch((e: unknown) => {
            this.ctx.logger.error('could not report config drift', { error: (e as Error).message });
          });
        },
        onRecovered: () => {
          this.ctx.logger.info('config drift resolved', { node: this.ctx.nodeName, config });
          this.kick();
        },
      },
    });
    this.#drift = monitor;
    monitor.start();
    this.#cluster.writer.event(
      'Normal',
      'ConfigDriftMonitorStarted',
      `Config Drift Monitor started, watching against ${config}`,
    );
  }

  /** First node annotations from node-annotations.json (first boot) or the on-disk currentconfig. */
  async #loadNodeAnnotations(node: Node): Promise<Node> {
    if (ann(node, NODE_ANNOTATIONS.currentConfig) !== '') return node;
    const initial = (await readJson(this.ctx.root.resolve(NODE_ANNOTATIONS_PATH))) as
      Record<string, string> | undefined;
    if (initial && typeof initial === 'object') return this.#cluster.writer.setAnnotations(initial);
    const onDisk = await readOnDiskConfig(this.ctx);
    const name = onDisk?.metadata.name;
    if (name) {
      // Upstream (pkg/daemon/daemon.go loadNodeAnnotations) sets only currentConfig here. A node carrying
      // currentConfig without desiredConfig is never Done for the node controller (isNodeDone needs both), so it
      // counts as unavailable for good and, with maxUnavailable of them, no node of the pool is ever targeted: a
      // machine re-registering after its Node object was lost (a new cluster over the same virtual roots) kept
      // the pool UPDATING forever. desiredConfig = the on-disk config makes it a Done node the controller retargets.
      this.ctx.logger.info('setting initial node config based on current configuration on disk', {
        node: this.ctx.nodeName,
        config: name,
      });
      return this.#cluster.writer.setAnnotations({
        [NODE_ANNOTATIONS.currentConfig]: name,
        [NODE_ANNOTATIONS.desiredConfig]: name,
        [NODE_ANNOTATIONS.state]: 'Done',
      });
    }
    throw new Error(
      `node ${this.ctx.nodeName} has no ${NODE_ANNOTATIONS.currentConfig} annotation and no ${NODE_ANNOTATIONS_PATH} or ${CURRENT_CONFIG_PATH} to take it from`,
    );
  }

  /** Resumes an update a killed daemon left (see journal.ts); true when it handled the boot. */
  async #resume(journal: UpdateJournal): Promise<boolean> {
    const bootId = await this.ctx.host.bootId();
    if (journal.bootId === bootId && journal.phase === 'rebooting') {
      this.ctx.logger.info('reboot was requested but did not happen; rebooting again', {
        node: this.ctx.nodeName,
        config: journal.to,
      });
      this.#rebooting = true;
      await rebootInto(this.ctx, journal.from, journal.to);
      return true;
    }
    if (journal.phase === 'applying') {
      this.ctx.logger.info('resuming an interrupted update', {
        node: this.ctx.nodeName,
        from: journal.from,
        to: journal.to,
      });
      const from = await this.#cluster.configs.get(journal.from);
      const to = await this.#cluster.configs.get(journal.to);
      await this.#triggerUpdate(from, to);
      return true;
    }
    return false;
  }

  /** checkStateOnFirstRun. */
  async #checkStateOnFirstRun(initialNode: Node): Promise<void> {
    let node = initialNode;
    if (ann(node, NODE_ANNOTATIONS.postConfigAction) === POST_CONFIG_ACTION_REBOOTING) {
      emit(this.ctx, 'booted', ann(node, NODE_ANNOTATIONS.desiredConfig));
      reportMcn(this.ctx, mcnReports.rebooted());
    }
    node = await this.#loadNodeAnnotations(node);
    const journal = await readJournal(this.ctx.root);
    if (journal && (await this.#resume(journal))) return;
    const bootstrapping = await exists(this.ctx.root.resolve(NODE_ANNOTATIONS_PATH));
    await this.ctx.os.cleanupRollback();
    const onDisk = await readOnDiskConfig(this.ctx);
    const currentName =
      (!bootstrapping ? onDisk?.metadata.name : undefined) ?? ann(node, NODE_ANNOTATIONS.currentConfig);
    const desiredName = ann(node, NODE_ANNOTATIONS.desiredConfig) || currentName;
    const current = await this.#currentConfig(currentName, onDisk);
    const desired = await this.#cluster.configs.get(desiredName);
    if (await exists(this.ctx.root.resolve(FORCE_FILE_PATH))) {
      await this.#triggerUpdate(current, desired);
      return;
    }
    killPoint('boot-before-validate');
    try {
      await validateOnDiskState(this.ctx.root, this.ctx.host, this.ctx.os, current);
    } catch (e) {
      if (e instanceof OnDiskValidationError)
        this.#cluster.writer.event('Warning', 'OnDiskStateValidationFailed', e.message);
      throw e;
    }
    if (bootstrapping) {
      // firstboot stored the encapsulated config (empty Ignition); from now on the in-cluster config is current
      await atomicWrite(this.ctx.root.resolve(CURRENT_CONFIG_PATH), `${JSON.stringify(current)}\n`, { mode: 0o644 });
      await fs.rename(this.ctx.root.resolve(NODE_ANNOTATIONS_PATH), this.ctx.root.resolve(NODE_ANNOTATIONS_BAK_PATH));
    }
    if (currentName === desiredName) {
      await this.#complete(currentName);
      return;
    }
    this.#cluster.writer.event(
      'Normal',
      'BootResync',
      `Booting node ${this.ctx.nodeName}, currentConfig ${currentName}, desiredConfig ${desiredName}`,
    );
    await this.#triggerUpdate(current, desired);
  }
}
