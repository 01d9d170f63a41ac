/**
 * Durability of `persistDir`: every acknowledged write survives kill -9 of the server process (real child process,
 * real SIGKILL while writes are in flight), and the log reader ignores only a torn last record.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { readPersistedState, SNAPSHOT_FILE, WAL_FILE } from '../../src/persist.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'keelson-sandbox-wal-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const DIST = new URL('../../dist/index.js', import.meta.url);

/** Starts a sandbox in a child process (the built package) and resolves with its URL. */
function startChild(dir: string, token: string): Promise<{ url: string; kill: () => Promise<void> }> {
  const code = `const { startSandbox } = await import(${JSON.stringify(pathToFileURL(DIST.pathname).href)});
const sb = await startSandbox({ persistDir: process.argv[1], token: process.argv[2], walCompactRecords: 40 });
process.stdout.write(sb.url + '\\n');
setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, dir, token], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => { r(); }));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ url: line, kill: async () => { child.kill('SIGKILL'); await exited; } });
    });
    child.once('exit', (c) => { reject(new Error(`sandbox child exited early (${String(c)})`)); });
  });
}

describe('persistDir durability', () => {
  it('keeps every acknowledged write across kill -9 (writes in flight, log compacted meanwhile)', async () => {
    if (!existsSync(DIST)) throw new Error('build @keelson/kube-sandbox first (pnpm --filter @keelson/kube-sandbox build): this test runs the built server in a child process');
    const dir = tempDir();
    const token = 'wal-token';
    const child = await startChild(dir, token);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const acked: string[] = [];
    let stop = false;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `cm-${w}-${i}`;
        try {
          const r = await fetch(`${child.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers, body: JSON.stringify({ metadata: { name }, data: { i: String(i) } }) });
          if (r.status === 201) acked.push(name);
          await r.arrayBuffer();
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));
    while (acked.length < 150) await new Promise((r) => setTimeout(r, 5));
    await child.kill(); // SIGKILL with requests in flight
    stop = true;
    await Promise.all(workers);
    expect(acked.length).toBeGreaterThanOrEqual(150);

    const again = await startSandbox({ persistDir: dir, token });
    try {
      const list = (await (await fetch(`${again.url}/api/v1/namespaces/default/configmaps`, { headers })).json()) as { items: { metadata: { name: string } }[] };
      const names = new Set(list.items.map((i) => i.metadata.name));
      const lost = acked.filter((n) => !names.has(n));
      expect(lost).toEqual([]);
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('replays the log over the snapshot and ignores only a torn last record', () => {
    const dir = tempDir();
    const obj = (name: string, rv: number): object => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: String(rv) } });
    writeFileSync(join(dir, SNAPSHOT_FILE), JSON.stringify({ kind: 'KeelsonSandboxSnapshot', version: 1, resourceVersion: 10, items: [{ group: '', plural: 'configmaps', object: obj('a', 9) }] }));
    const rec = (rv: number, type: string, name: string): string => `${JSON.stringify({ rv, type, group: '', plural: 'configmaps', object: obj(name, rv) })}\n`;
    appendFileSync(join(dir, WAL_FILE), rec(9, 'ADDED', 'old') + rec(11, 'ADDED', 'b') + rec(12, 'DELETED', 'a') + '{"rv":13,"type":"ADD');
    const state = readPersistedState(dir);
    expect(state?.resourceVersion).toBe(12);
    expect(state?.items.map((i) => i.object.metadata?.name)).toEqual(['b']);
    appendFileSync(join(dir, WAL_FILE), `\n${rec(14, 'ADDED', 'c')}`);
    expect(() => readPersistedState(dir)).toThrow(/line 4 is not a log record/);
  });
});
