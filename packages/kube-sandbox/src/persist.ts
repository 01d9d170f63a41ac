/**
 * Durable state for `persistDir`: a JSON snapshot plus a write-ahead log. Every change is appended to the log and
 * flushed to disk (fdatasync) before the write is acknowledged, so an acknowledged write survives `kill -9`; the log is
 * compacted into the snapshot (written to a temporary file, synced and renamed) when it grows and on stop.
 */
import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from './errors.js';
import type { KubeObject } from './types.js';

/** File names inside the persistence directory. */
export const SNAPSHOT_FILE = 'sandbox-snapshot.json';
export const WAL_FILE = 'sandbox-wal.jsonl';

/** One stored object with the group/resource that holds it. */
export interface StoredItem {
  group: string;
  plural: string;
  object: KubeObject;
}

/** The state read back from disk. */
export interface PersistedState {
  resourceVersion: number;
  items: StoredItem[];
}

/** One log record: a change at resourceVersion `rv`. */
interface WalRecord {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  group: string;
  plural: string;
  object: KubeObject;
}

function itemKey(group: string, plural: string, o: KubeObject): string {
  return `${group}/${plural}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxError('SNAPSHOT_UNREADABLE', `cannot read ${file}: ${(e as Error).message}`);
  }
}

function readSnapshot(file: string): PersistedState | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  let snap: { kind?: unknown; resourceVersion?: unknown; items?: unknown };
  try {
    snap = JSON.parse(text) as typeof snap;
  } catch (e) {
    throw new SandboxError('SNAPSHOT_INVALID', `sandbox snapshot ${file} is not valid JSON (${(e as Error).message}); delete it to start empty`);
  }
  if (snap.kind !== 'KeelsonSandboxSnapshot' || !Array.isArray(snap.items) || typeof snap.resourceVersion !== 'number')
    throw new SandboxError('SNAPSHOT_INVALID', `${file} is not a keelson sandbox snapshot (kind KeelsonSandboxSnapshot); delete it to start empty`);
  return { resourceVersion: snap.resourceVersion, items: snap.items as StoredItem[] };
}

/**
 * Reads the snapshot and replays the log over it (records newer than the snapshot). A torn last record (the
 * process died while appending it, so it was never acknowledged) is ignored; a bad record before the end is an error.
 * Returns undefined when the directory holds neither file.
 */
export function readPersistedState(dir: string): PersistedState | undefined {
  const snap = readSnapshot(join(dir, SNAPSHOT_FILE));
  const walText = readText(join(dir, WAL_FILE));
  if (!snap && !walText) return undefined;
  const items = new Map<string, StoredItem>();
  for (const it of snap?.items ?? []) items.set(itemKey(it.group, it.plural, it.object), it);
  let rv = snap?.resourceVersion ?? 0;
  const lines = (walText ?? '').split('\n');
  lines.forEach((line, i) => {
    if (line === '') return;
    let rec: WalRecord;
    try {
      rec = JSON.parse(line) as WalRecord;
    } catch {
      if (i >= lines.length - 2) return; // torn tail: never acknowledged
      throw new SandboxError('WAL_INVALID', `${join(dir, WAL_FILE)} line ${i + 1} is not a log record; delete the directory to start empty`);
    }
    if (rec.rv <= (snap?.resourceVersion ?? 0)) return;
    const key = itemKey(rec.group, rec.plural, rec.object);
    if (rec.type === 'DELETED') items.delete(key);
    else items.set(key, { group: rec.group, plural: rec.plural, object: rec.object });
    rv = Math.max(rv, rec.rv);
  });
  return { resourceVersion: rv, items: [...items.values()] };
}

/** Writes `text` to `file` atomically and durably: temporary file, fsync, rename, fsync of the directory. */
function writeDurably(dir: string, file: string, text: string): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/** The append-only log of one persistence directory. */
export class WriteAheadLog {
  private fd: number | undefined;
  /** Records appended since the last compaction. */
  records = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.fd = openSync(join(dir, WAL_FILE), 'a', 0o600);
  }

  /** Appends one change and flushes it to disk before returning. */
  append(rv: number, type: WalRecord['type'], gr: string, object: KubeObject): void {
    if (this.fd === undefined) return;
    const slash = gr.indexOf('/');
    const rec: WalRecord = { rv, type, group: gr.slice(0, slash), plural: gr.slice(slash + 1), object };
    writeSync(this.fd, `${JSON.stringify(rec)}\n`);
    fdatasyncSync(this.fd);
    this.records++;
  }

  /** Writes `state` as the snapshot, then empties the log (a crash in between replays records the snapshot has). */
  compact(state: PersistedState): void {
    writeDurably(this.dir, join(this.dir, SNAPSHOT_FILE), JSON.stringify({ kind: 'KeelsonSandboxSnapshot', version: 1, resourceVersion: state.resourceVersion, items: state.items }));
    if (this.fd !== undefined) {
      ftruncateSync(this.fd, 0);
      fsyncSync(this.fd);
    }
    this.records = 0;
  }

  /** Closes the log file. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
