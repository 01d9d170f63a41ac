/**
 * Worker-thread side of {@link RenderThread}: renders pools off the caller's event loop. Each message is one
 * `renderPool` call; the answer is the result or the typed error's fields.
 */
import { parentPort } from 'node:worker_threads';
import { PoolSelectionError, renderPool } from './pool.js';
import { MachineConfigRenderError } from './render.js';
import type { RenderRequest, RenderReply } from './render-thread.js';

function reply(req: RenderRequest): RenderReply {
  try {
    return { id: req.id, result: renderPool(...req.args) };
  } catch (e) {
    if (e instanceof MachineConfigRenderError)
      return {
        id: req.id,
        error: { type: 'render', code: e.code, message: e.message, machineConfig: e.machineConfig, path: e.path },
      };
    if (e instanceof PoolSelectionError)
      return { id: req.id, error: { type: 'pool', code: e.code, message: e.message, pool: e.pool, path: e.path } };
    return { id: req.id, error: { type: 'other', message: (e as Error).message } };
  }
}

parentPort?.on('message', (req: RenderRequest) => {
  parentPort?.postMessage(reply(req));
});
