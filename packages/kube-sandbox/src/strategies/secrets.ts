/** Secrets: type `Opaque` by default; `stringData` is write-only and folded into base64 `data`. */
import type { Cluster } from '../cluster.js';
import type { JsonObject, KubeObject } from '../types.js';
import { isObject } from '../util.js';

export function installSecretStrategy(cluster: Cluster): void {
  cluster.setStrategy('', 'secrets', {
    prepareCreate(obj) {
      if (!obj['type']) obj['type'] = 'Opaque';
      foldStringData(obj);
    },
    prepareUpdate(obj) {
      if (!obj['type']) obj['type'] = 'Opaque';
      foldStringData(obj);
    },
  });
}

/** Secrets: `stringData` is write-only and merged into base64 `data`. */
function foldStringData(obj: KubeObject): void {
  const sd = obj['stringData'];
  if (!isObject(sd)) return;
  const data = (isObject(obj['data']) ? obj['data'] : (obj['data'] = {})) as JsonObject;
  for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v)).toString('base64');
  delete obj['stringData'];
}
