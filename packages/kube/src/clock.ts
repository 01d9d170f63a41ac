/** A source of time and timers; injectable so tests and benchmarks can control time. */
export interface Clock {
  /** Milliseconds since an arbitrary epoch (monotonic for the real clock). */
  now(): number;
  /** Schedule `fn` after `ms`; returns a cancel function. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** The real clock: `performance.now()` and `setTimeout`. */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => {
      clearTimeout(t);
    };
  },
};

/** Resolve after `ms`, or reject early with the signal's reason when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    const t = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `ms` scaled by a random factor in [1, 1 + maxFactor) (client-go's `wait.Jitter`). */
export function jitter(ms: number, maxFactor: number): number {
  return ms * (1 + Math.random() * (maxFactor > 0 ? maxFactor : 1));
}
