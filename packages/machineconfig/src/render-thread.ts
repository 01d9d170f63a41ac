/**
 * `renderPool` on a worker thread, so that rendering a hostile MachineConfig (about 0.1–0.4 s for 1 MB on a loaded
 * machine) never blocks the caller's event loop (Lease renewals, watches). One worker per RenderThread, started on
 * first use, requests answered in order; the errors are the same typed errors `renderPool` throws. ESM only.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PoolSelectionError, type PoolSelectionErrorCode, type renderPool } from './pool.js';
import { MachineConfigRenderError, type RenderErrorCode, type RenderResult } from './render.js';

/** One request to the worker. */
export interface RenderRequest {
  id: number;
  args: Parameters<typeof renderPool>;
}

type ReplyError =
  | {
      type: 'render';
      code: RenderErrorCode;
      message: string;
      machineConfig: string | undefined;
      path: (string | number)[];
    }
  | { type: 'pool'; code: PoolSelectionErrorCode; message: string; pool: string; path: (string | number)[] }
  | { type: 'other'; message: string };

/** One answer of the worker. */
export type RenderReply = { id: number; result: RenderResult } | { id: number; error: ReplyError };

function workerUrl(): URL {
  // dist/index.js → dist/render-worker.js; from the sources (tests) the built worker
  const candidates = [
    new URL('./render-worker.js', import.meta.url),
    new URL('../dist/render-worker.js', import.meta.url),
  ];
  return candidates.find((u) => existsSync(u)) ?? (candidates[0] as URL);
}

function toError(e: ReplyError): Error {
  if (e.type === 'render') return new MachineConfigRenderError(e.code, e.message, e.machineConfig, e.path);
  if (e.type === 'pool') return new PoolSelectionError(e.code, e.message, e.pool, e.path);
  return new Error(`render worker: ${e.message}`);
}

/** Renders pools on a worker thread. */
export class RenderThread {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<number, { resolve: (r: RenderResult) => void; reject: (e: Error) => void }>();

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const w = new Worker(workerUrl());
    w.unref();
    w.on('message', (m: RenderReply) => {
      const p = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (!p) return;
      if ('result' in m) p.resolve(m.result);
      else p.reject(toError(m.error));
    });
    const fail = (err: Error): void => {
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
      this.#worker = undefined;
    };
    w.on('error', fail);
    w.on('exit', (code) => {
      fail(new Error(`render worker exited (${code})`));
    });
    this.#worker = w;
    return w;
  }

  /** `renderPool(...args)` on the worker thread. */
  render(...args: Parameters<typeof renderPool>): Promise<RenderResult> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#start().postMessage({ id, args } satisfies RenderRequest);
    });
  }

  /** Stops the worker (pending renders are rejected). */
  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = undefined;
    if (w) await w.terminate();
  }
}
