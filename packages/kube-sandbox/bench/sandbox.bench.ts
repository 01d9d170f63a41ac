/**
 * Benchmarks over real loopback HTTP: listing 5,000 objects, fanning 5,000 changes out to 20 watchers, write
 * throughput with 8 concurrent clients, and heap per 10,000 stored objects (printed once).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startSandbox, type Sandbox } from '../src/index.js';

let sb: Sandbox;
let headers: Record<string, string>;
let seq = 0;

beforeAll(async () => {
  sb = await startSandbox({ historySize: 20000 });
  headers = { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' };
  const cm = sb.cluster.findType('', 'v1', 'configmaps')!;
  sb.cluster.create(sb.cluster.findType('', 'v1', 'namespaces')!, undefined, { metadata: { name: 'bench' } });
  for (let i = 0; i < 5000; i++)
    sb.cluster.create(cm, 'bench', {
      metadata: { name: `cm-${i}`, labels: { app: 'bench', i: String(i % 10) } },
      data: { key: `value-${i}` },
    });
  // memory per 10k objects (printed once; run with --expose-gc for a steadier figure)
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  sb.cluster.create(sb.cluster.findType('', 'v1', 'namespaces')!, undefined, { metadata: { name: 'mem' } });
  for (let i = 0; i < 10000; i++)
    sb.cluster.create(cm, 'mem', { metadata: { name: `m-${i}`, labels: { app: 'mem' } }, data: { key: `value-${i}` } });
  gc?.();
  const after = process.memoryUsage().heapUsed;
  console.log(`heap per 10k ConfigMaps (incl. watch history): ${((after - before) / 1024 / 1024).toFixed(1)} MiB`);
});

afterAll(async () => {
  await sb.stop();
});

async function post(path: string, body: unknown): Promise<void> {
  const r = await fetch(`${sb.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  await r.arrayBuffer();
  if (r.status !== 201) throw new Error(`create failed: ${r.status}`);
}

describe('kube-sandbox', () => {
  test('list 5,000 ConfigMaps over HTTP', async () => {
    await measure('list 5,000 ConfigMaps (GET, JSON decode)', 10, async () => {
      const r = await fetch(`${sb.url}/api/v1/namespaces/bench/configmaps?labelSelector=app%3Dbench`, { headers });
      const body = (await r.json()) as { items: unknown[] };
      if (body.items.length !== 5000) throw new Error('wrong count');
    });
  }, 120_000);

  test('5,000 changes delivered to 20 watchers', async () => {
    await measure('5,000 creates fanned out to 20 HTTP watchers (100,000 events)', 3, fanout);
  }, 120_000);

  test('write throughput with 8 concurrent clients', async () => {
    const ms = await measure('2,000 HTTP creates from 8 concurrent clients (same process)', 3, writes);
    console.log(`  => ${Math.round(2000 / (ms / 1000))} objects/s`);
    const ext = await measure(
      '2,000 HTTP creates from 8 concurrent clients (client in a child process)',
      3,
      writesFromChild,
    );
    console.log(`  => ${Math.round(2000 / (ext / 1000))} objects/s`);
  }, 240_000);
});

async function measure(name: string, n: number, fn: () => Promise<void>): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${name}: median ${median.toFixed(1)} ms over ${n} runs (min ${times[0]!.toFixed(1)}, max ${times[times.length - 1]!.toFixed(1)})`,
  );
  return median;
}

async function fanout(): Promise<void> {
  {
    const ns = `w${seq++}`;
    await post('/api/v1/namespaces', { metadata: { name: ns } });
    const ac = new AbortController();
    const done: Promise<void>[] = [];
    for (let w = 0; w < 20; w++) {
      const res = await fetch(`${sb.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${sb.cluster.rv}`, {
        headers,
        signal: ac.signal,
      });
      done.push(
        (async () => {
          const reader: ReadableStreamDefaultReader<Uint8Array> = res.body!.getReader();
          let n = 0;
          const dec = new TextDecoder();
          while (n < 5000) {
            const { value, done: end } = await reader.read();
            if (end) break;
            for (const ch of dec.decode(value, { stream: true })) if (ch === '\n') n++;
          }
        })().catch(() => undefined),
      );
    }
    const cm = sb.cluster.findType('', 'v1', 'configmaps')!;
    for (let i = 0; i < 5000; i++) sb.cluster.create(cm, ns, { metadata: { name: `c-${i}` }, data: { v: String(i) } });
    await Promise.all(done);
    ac.abort();
  }
}

const CHILD = `
const [url, token, ns] = process.argv.slice(1);
const headers = { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' };
let next = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  while (next < 2000) {
    const i = next++;
    const r = await fetch(url + '/api/v1/namespaces/' + ns + '/configmaps', { method: 'POST', headers, body: JSON.stringify({ metadata: { name: 'c-' + i }, data: { v: String(i) } }) });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error('create failed ' + r.status);
  }
}));
`;

async function writesFromChild(): Promise<void> {
  const ns = `x${seq++}`;
  await post('/api/v1/namespaces', { metadata: { name: ns } });
  await new Promise<void>((resolve, reject) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', CHILD, sb.url, sb.token, ns], { stdio: 'inherit' });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited ${String(code)}`))));
  });
}

async function writes(): Promise<void> {
  {
    const ns = `t${seq++}`;
    await post('/api/v1/namespaces', { metadata: { name: ns } });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 2000) {
          const i = next++;
          await post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `c-${i}` }, data: { v: String(i) } });
        }
      }),
    );
  }
}
