/**
 * Durability of `persistDir`: every acknowledged write survives kill -9 of the server process (real child process,
 * real SIGKILL while writes are in flight), and the log reader ignores only a torn last record.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import {
  readPersistedState,
  recoverPersistedState,
  SNAPSHOT_FILE,
  WAL_FILE,
  WriteAheadLog,
} from '../../src/persist.js';
import type { KubeObject } from '../../src/types.js';
import { startChild } from './persist-child.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'keelson-sandbox-wal-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('persistDir durability', () => {
  it('keeps every acknowledged write across kill -9 (writes in flight, log compacted meanwhile)', async () => {
    const dir = tempDir();
    const token = 'wal-token';
    const child = await startChild(dir, token, { walCompactRecords: 40 });
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const acked: string[] = [];
    let stop = false;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `cm-${w}-${i}`;
        try {
          const r = await fetch(`${child.url}/api/v1/namespaces/default/configmaps`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ metadata: { name }, data: { i: String(i) } }),
          });
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
      const list = (await (await fetch(`${again.url}/api/v1/namespaces/default/configmaps`, { headers })).json()) as {
        items: { metadata: { name: string } }[];
      };
      const names = new Set(list.items.map((i) => i.metadata.name));
      const lost = acked.filter((n) => !names.has(n));
      expect(lost).toEqual([]);
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('replays the log over the snapshot and ignores only a torn last record', () => {
    const dir = tempDir();
    const obj = (name: string, rv: number): object => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default', resourceVersion: String(rv) },
    });
    writeFileSync(
      join(dir, SNAPSHOT_FILE),
      JSON.stringify({
        kind: 'KeelsonSandboxSnapshot',
        version: 1,
        resourceVersion: 10,
        items: [{ group: '', plural: 'configmaps', object: obj('a', 9) }],
      }),
    );
    const rec = (rv: number, type: string, name: string): string =>
      `${JSON.stringify({ rv, type, group: '', plural: 'configmaps', object: obj(name, rv) })}\n`;
    appendFileSync(
      join(dir, WAL_FILE),
      rec(9, 'ADDED', 'old') + rec(11, 'ADDED', 'b') + rec(12, 'DELETED', 'a') + '{"rv":13,"type":"ADD',
    );
    const state = readPersistedState(dir);
    expect(state?.resourceVersion).toBe(12);
    expect(state?.items.map((i) => i.object.metadata?.name)).toEqual(['b']);
    appendFileSync(join(dir, WAL_FILE), `\n${rec(14, 'ADDED', 'c')}`);
    expect(() => readPersistedState(dir)).toThrow(/line 4 is not a log record/);
  });

  const cm = (name: string, rv: number): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion: String(rv) },
  });

  it('compacts by size: once the log outgrows max(walCompactBytes, snapshot size)', () => {
    const dir = tempDir();
    const wal = new WriteAheadLog(dir, 2000);
    try {
      let rv = 0;
      while (!wal.wantsCompaction(1_000_000))
        wal.append(++rv, 'ADDED', '/configmaps', { ...cm(`c${rv}`, rv), data: { pad: 'p'.repeat(100) } });
      expect(wal.bytes).toBeGreaterThanOrEqual(2000);
      expect(rv).toBeLessThan(20);
      // a state of 50 objects: its snapshot is larger than walCompactBytes
      const items = Array.from({ length: 50 }, (_, i) => ({
        group: '',
        plural: 'configmaps',
        object: { ...cm(`s${i}`, rv), data: { pad: 'p'.repeat(100) } },
      }));
      wal.compact({ resourceVersion: rv, items });
      expect(statSync(join(dir, WAL_FILE)).size).toBe(0);
      // a snapshot larger than walCompactBytes raises the bar to its own size
      expect(wal.snapshotBytes).toBe(statSync(join(dir, SNAPSHOT_FILE)).size);
      expect(wal.snapshotBytes).toBeGreaterThan(2000);
      while (!wal.wantsCompaction(1_000_000))
        wal.append(++rv, 'ADDED', '/configmaps', { ...cm(`c${rv}`, rv), data: { pad: 'p'.repeat(100) } });
      expect(wal.bytes).toBeGreaterThanOrEqual(wal.snapshotBytes);
    } finally {
      wal.close();
    }
  });

  it('compacts at start-up, and a crash between the snapshot rename and the log truncation loses nothing', () => {
    const dir = tempDir();
    const wal = new WriteAheadLog(dir);
    for (let rv = 1; rv <= 5; rv++) wal.append(rv, 'ADDED', '/configmaps', cm(`c${rv}`, rv));
    wal.append(6, 'DELETED', '/configmaps', cm('c2', 6));
    wal.close();
    // crash after the rename, before the truncation: the new snapshot and the old log side by side
    const walCopy = join(dir, 'wal.copy');
    copyFileSync(join(dir, WAL_FILE), walCopy);
    const state = recoverPersistedState(dir);
    expect(statSync(join(dir, WAL_FILE)).size).toBe(0);
    expect(readFileSync(join(dir, SNAPSHOT_FILE), 'utf8').split('\n')[0]).toContain('"version":2');
    copyFileSync(walCopy, join(dir, WAL_FILE));
    const replayed = readPersistedState(dir);
    expect(replayed).toEqual(state);
    expect(replayed?.resourceVersion).toBe(6);
    expect(replayed?.items.map((i) => i.object.metadata?.name)).toEqual(['c1', 'c3', 'c4', 'c5']);
  });

  it('refuses a snapshot that holds fewer items than its header counts', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, SNAPSHOT_FILE),
      `${JSON.stringify({ kind: 'KeelsonSandboxSnapshot', version: 2, resourceVersion: 3, count: 2 })}\n${JSON.stringify({ group: '', plural: 'configmaps', object: cm('a', 1) })}\n`,
    );
    expect(() => readPersistedState(dir)).toThrow(/holds 1 of its 2 items/);
  });

  it('treats a directory holding only an empty log as fresh (default namespaces are created)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, WAL_FILE), '');
    expect(readPersistedState(dir)).toBeUndefined();
    const sb = await startSandbox({ persistDir: dir, token: 't' });
    try {
      const r = await fetch(`${sb.url}/api/v1/namespaces/default`, { headers: { Authorization: 'Bearer t' } });
      expect(r.status).toBe(200);
    } finally {
      await sb.stop();
    }
  });
});
