import { nullLogger, type Logger } from './logger.js';

/** Options of {@link onShutdown}. */
export interface ShutdownOptions {
  /** Signals handled (default SIGTERM and SIGINT). */
  signals?: NodeJS.Signals[];
  /** Exit with code 1 if the handlers have not finished after this long (default 30 s). */
  timeoutMs?: number;
  /** Call `process.exit` when done (default true). With false, only the handlers run. */
  exit?: boolean;
  logger?: Logger;
}

/** Handle returned by {@link onShutdown}. */
export interface ShutdownHandle {
  /** Aborted as soon as the first signal arrives (pass it to long-running work). */
  readonly signal: AbortSignal;
  /** Resolves with the exit code once the handlers finished (0) or failed/timed out (1). */
  readonly done: Promise<number>;
  /** Run the shutdown sequence now, as if a signal had arrived. */
  trigger(reason?: string): Promise<number>;
  /** Remove the signal listeners. */
  dispose(): void;
}

/**
 * Graceful shutdown: on the first SIGTERM/SIGINT, abort `signal`, run `handler` (e.g. stop controllers, release the
 * leader lease, close servers) and exit 0, or exit 1 if it throws or exceeds `timeoutMs`. A second signal exits 1 at once.
 */
export function onShutdown(
  handler: (reason: string) => void | Promise<void>,
  options: ShutdownOptions = {},
): ShutdownHandle {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const timeoutMs = options.timeoutMs ?? 30_000;
  const exit = options.exit ?? true;
  const log = (options.logger ?? nullLogger).child({ component: 'shutdown' });
  const ctl = new AbortController();
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((r) => (resolveDone = r));
  let started = false;

  const trigger = (reason = 'requested'): Promise<number> => {
    if (started) return done;
    started = true;
    log.info('shutting down', { reason });
    ctl.abort(new Error(`shutdown: ${reason}`));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<number>((r) => {
      timer = setTimeout(() => {
        log.error('shutdown timed out', { timeoutMs });
        r(1);
      }, timeoutMs);
    });
    const work = Promise.resolve()
      .then(() => handler(reason))
      .then(
        () => 0,
        (err: unknown) => {
          log.error('shutdown handler failed', { err });
          return 1;
        },
      );
    void Promise.race([work, timeout]).then((code) => {
      clearTimeout(timer);
      dispose();
      resolveDone(code);
      if (exit) process.exit(code);
    });
    return done;
  };

  const listener = (sig: NodeJS.Signals): void => {
    if (started) {
      log.warn('second signal, exiting immediately', { signal: sig });
      if (exit) process.exit(1);
      return;
    }
    void trigger(sig);
  };
  for (const s of signals) process.on(s, listener);
  const dispose = (): void => {
    if (!started) {
      signals.forEach((s) => process.off(s, listener));
      return;
    }
    // keep the listener while shutting down so a second signal can force exit; drop it afterwards
    void done.then(() => {
      signals.forEach((s) => process.off(s, listener));
    });
  };
  return { signal: ctl.signal, done, trigger, dispose };
}
