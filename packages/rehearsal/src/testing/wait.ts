/** The one `waitFor` of operator tests: poll a condition until it holds, or fail naming what was awaited. */

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Pause between two checks (default 50 ms). */
  intervalMs?: number;
}

function describe(e: unknown): string {
  return `last error: ${e instanceof Error ? e.message : JSON.stringify(e)}`;
}

/** {@link waitFor} gave up: `what` never held; `lastError` is the last error the check threw, if any. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly lastError: unknown,
  ) {
    super(
      `timed out after ${timeoutMs} ms waiting for ${what}${lastError !== undefined ? ` (${describe(lastError)})` : ''}`,
    );
  }
}

/**
 * Calls `check` until it returns a value other than `undefined`, `null` or `false`, and returns that value. A check
 * that throws counts as not yet (an object not created yet answers 404); its last error is kept for the timeout message.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const intervalMs = opts.intervalMs ?? 50;
  const end = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== null && v !== false) return v;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= end) throw new WaitTimeoutError(what, timeoutMs, lastError);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
