/**
 * A write-ahead log larger than 1 GiB (more than twice V8's longest string) restarts with every acknowledged write
 * (issue 24 §1): the log is read as a stream of lines and compacted at start-up, and the restarted server (a real
 * child process) keeps taking acknowledged writes that survive a further kill -9.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { readPersistedState, WAL_FILE } from '../../src/persist.js';
import type { KubeObject } from '../../src/types.js';
import { startChild } from './persist-child.js';

const GIB = 1024 * 1024 * 1024;
const BLOB = 'x'.repeat(1024 * 1024); // each record about 1 MiB, like the 900 KB ConfigMap of the report
const BIG = 10; // ConfigMaps rewritten over and over
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Expected {
  seq: Map<string, string>;
  deleted: Set<string>;
}

/** Appends records past the snapshot's resourceVersion until the log exceeds 1 GiB; returns the expected state. */
function writeHugeLog(dir: string, base: Map<string, KubeObject>, rv0: number): Expected {
  const seq = new Map<string, string>();
  const deleted = new Set<string>();
  const fd = openSync(join(dir, WAL_FILE), 'a');
  let bytes = 0;
  let rv = rv0;
  const append = (type: string, object: KubeObject): void => {
    const line = Buffer.from(`${JSON.stringify({ rv, type, group: '', plural: 'configmaps', object })}\n`);
    for (let off = 0; off < line.length;) off += writeSync(fd, line, off);
    bytes += line.length;
  };
  try {
    for (let j = 0; bytes <= 1.05 * GIB; j++) {
      rv++;
      const meta = (name: string): NonNullable<KubeObject['metadata']> => ({
        ...base.get('big-0')?.metadata,
        name,
        uid: `uid-${name}`,
        resourceVersion: String(rv),
      });
      if (j % 100 === 50) {
        const name = `small-${j}`;
        append('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name), data: { seq: String(j) } });
        seq.set(name, String(j));
      } else if (j % 100 === 99) {
        const name = `small-${j - 49}`;
        append('DELETED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(name) });
        seq.delete(name);
        deleted.add(name);
      } else {
        const name = `big-${j % BIG}`;
        append('MODIFIED', {
          ...base.get(name),
          metadata: { ...base.get(name)?.metadata, resourceVersion: String(rv) },
          data: { seq: String(j), blob: BLOB },
        });
        seq.set(name, String(j));
      }
    }
  } finally {
    closeSync(fd);
  }
  return { seq, deleted };
}

describe('persistDir with a log over 1 GiB', () => {
  it('restarts with every acknowledged write, compacts the log at start-up and survives a further kill -9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-sandbox-bigwal-'));
    dirs.push(dir);
    const token = 'big-wal';
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    // a first server creates the ConfigMaps and stops (snapshot written)
    const first = await startSandbox({ persistDir: dir, token });
    for (let i = 0; i < BIG; i++) {
      const r = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ metadata: { name: `big-${i}` } }),
      });
      expect(r.status).toBe(201);
    }
    await first.stop();
    const snap = readPersistedState(dir);
    const base = new Map(
      (snap?.items ?? [])
        .filter((i) => i.plural === 'configmaps')
        .map((i) => [i.object.metadata?.name ?? '', i.object]),
    );
    const expected = writeHugeLog(dir, base, snap?.resourceVersion ?? 0);
    expect(statSync(join(dir, WAL_FILE)).size).toBeGreaterThan(GIB);

    // restart on the huge log (a real child process), then acknowledged writes and kill -9
    const child = await startChild(dir, token);
    expect(statSync(join(dir, WAL_FILE)).size).toBeLessThan(1024 * 1024); // compacted at start-up
    const acked: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${child.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ metadata: { name: `after-${i}` }, data: { seq: 'after' } }),
      });
      expect(r.status).toBe(201);
      acked.push(`after-${i}`);
      expected.seq.set(`after-${i}`, 'after');
    }
    await child.kill();

    const again = await startSandbox({ persistDir: dir, token });
    try {
      const list = (await (await fetch(`${again.url}/api/v1/namespaces/default/configmaps`, { headers })).json()) as {
        items: { metadata: { name: string }; data?: Record<string, string> }[];
      };
      const got = new Map(list.items.map((i) => [i.metadata.name, i.data?.['seq']]));
      const wrong = [...expected.seq].filter(([name, s]) => got.get(name) !== s);
      expect(wrong).toEqual([]);
      expect([...expected.deleted].filter((n) => got.has(n))).toEqual([]);
      expect(list.items.find((i) => i.metadata.name === 'big-0')?.data?.['blob']).toHaveLength(BLOB.length);
    } finally {
      await again.stop();
    }
  }, 180_000);
});
