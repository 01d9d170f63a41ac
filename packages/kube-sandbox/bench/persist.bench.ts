/** Cost of durability: HTTP create throughput (8 concurrent clients) in memory and with `persistDir` (fdatasync per write). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';
import { startSandbox } from '../src/index.js';

async function throughput(persist: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-walbench-'));
  const sb = await startSandbox(persist ? { persistDir: dir, token: 't' } : { token: 't' });
  const headers = { Authorization: 'Bearer t', 'Content-Type': 'application/json' };
  const n = 1000;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const i = next++;
        const r = await fetch(`${sb.url}/api/v1/namespaces/default/configmaps`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ metadata: { name: `c${i}` }, data: { a: 'b' } }),
        });
        await r.arrayBuffer();
      }
    }),
  );
  const perSecond = n / ((performance.now() - t0) / 1000);
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
  return perSecond;
}

test('create throughput with and without persistDir', async () => {
  console.log(`in memory: ${Math.round(await throughput(false))} creates/s`);
  console.log(
    `persistDir (write-ahead log, fdatasync before each answer): ${Math.round(await throughput(true))} creates/s`,
  );
}, 120_000);
