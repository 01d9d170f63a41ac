/**
 * Virtual machines provisioned without a machine-config-server read their pool's config through the API. Started
 * by hand (the README's "Try it") before the operator, the pool does not exist yet, or exists without a rendered
 * config: the machine waits — on a watch of the pools, never polling — and says what it waits for, as a real
 * machine's Ignition retries the server's 500 and as upstream's daemon waits for its node's annotations
 * (openshift/machine-config-operator pkg/daemon/daemon.go, `Daemon.Run` waiting for its informers and `syncNode`
 * requeueing until the node carries its config annotations), instead of failing the boot.
 */
import { Informer, MachineConfigPools, type KubeClient, type Logger } from '@keelson/kube';
import type { MachineConfigPool } from '@keelson/api';
import { servedConfigName } from '../server/source.js';

/** Why a pool cannot be served yet ('' = it can). */
export function poolWaitReason(name: string, pool: MachineConfigPool | undefined): string {
  if (pool === undefined) return `machineconfigpool "${name}" does not exist yet`;
  if (servedConfigName(pool) === '') return `machineconfigpool "${name}" has no rendered config yet`;
  return '';
}

/** The machine was stopped while waiting. */
export class PoolWaitAbortedError extends Error {
  readonly code = 'VIRTUAL_POOL_WAIT_ABORTED';
  constructor(readonly pool: string) {
    super(`stopped while waiting for machineconfigpool "${pool}" to have a rendered config`);
    this.name = 'PoolWaitAbortedError';
  }
}

/** One watch of the pools shared by every machine of a process. */
export class PoolWaiter {
  readonly #informer: Informer<MachineConfigPool>;
  readonly #logger: Logger;
  readonly #waiters = new Set<() => void>();
  /** Last reason logged per pool (one log line per change, not one per machine). */
  readonly #logged = new Map<string, string>();
  #started = false;

  constructor(client: KubeClient, logger: Logger) {
    this.#logger = logger;
    this.#informer = new Informer(client, MachineConfigPools, { logger });
    const wake = (): void => {
      for (const w of [...this.#waiters]) w();
    };
    this.#informer.addHandlers({ add: wake, update: wake, delete: wake });
  }

  async #start(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      this.#informer.start();
    }
    await this.#informer.waitForSync();
  }

  #check(pool: string): string {
    const p = this.#informer.store.get(pool);
    const why = poolWaitReason(pool, p);
    const before = this.#logged.get(pool);
    if (why !== before) {
      this.#logged.set(pool, why);
      if (why !== '') this.#logger.info('waiting for the pool', { pool, for: why });
      else if (before !== undefined)
        this.#logger.info('pool has a rendered config, provisioning', {
          pool,
          config: servedConfigName(p as MachineConfigPool),
        });
    }
    return why === '' ? servedConfigName(p as MachineConfigPool) : '';
  }

  /** The rendered config the pool serves, once it has one; waits on the watch until then or until `signal` aborts. */
  async renderedConfig(pool: string, signal: AbortSignal): Promise<string> {
    await this.#start();
    const now = this.#check(pool);
    if (now !== '') return now;
    return new Promise<string>((resolve, reject) => {
      const done = (): void => {
        this.#waiters.delete(wake);
        signal.removeEventListener('abort', onAbort);
      };
      const wake = (): void => {
        const name = this.#check(pool);
        if (name === '') return;
        done();
        resolve(name);
      };
      const onAbort = (): void => {
        done();
        reject(new PoolWaitAbortedError(pool));
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      this.#waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stops the watch. */
  async stop(): Promise<void> {
    if (this.#started) await this.#informer.stop();
  }
}
