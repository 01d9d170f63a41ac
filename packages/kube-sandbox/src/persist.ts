/**
 * Durable state for `persistDir`: a snapshot plus a write-ahead log. Every change is appended to the log and flushed
 * to disk (fdatasync) before the write is acknowledged, so an acknowledged write survives `kill -9`.
 *
 * Both files are read as streams of lines (never as one string, whose length V8 caps at 2^29 - 24 characters: a
 * 600 MB log made the store unreadable), and the log is compacted into the snapshot at start-up, when it holds
 * `walCompactRecords` records, when it outgrows `max(walCompactBytes, snapshot size)`, and on stop.
 *
 * Crash safety at every step of a compaction: the snapshot is written to a temporary file, synced and renamed over
 * the old one (the directory synced too), and only then is the log emptied. A crash before the rename leaves the
 * old snapshot and the whole log; a crash after it leaves the new snapshot and a log whose records it already holds
 * (replay skips records at or below the snapshot's resourceVersion).
 */
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from './errors.js';
import { forEachLine } from './persist-lines.js';
import type { KubeObject } from './types.js';

/** File names inside the persistence directory. */
export const SNAPSHOT_FILE = 'sandbox-snapshot.json';
export const WAL_FILE = 'sandbox-wal.jsonl';

/** Default log size (bytes) from which it is compacted, unless the snapshot is larger (then its size). */
export const WAL_COMPACT_BYTES = 64 * 1024 * 1024;

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

/** First line of a snapshot (version 2: one item per following line). */
interface SnapshotHeader {
  kind?: unknown;
  version?: unknown;
  resourceVersion?: unknown;
  count?: unknown;
  /** Version 1 snapshots held every item in this one JSON document. */
  items?: unknown;
}

const SNAPSHOT_KIND = 'KeelsonSandboxSnapshot';

function itemKey(group: string, plural: string, o: KubeObject): string {
  return `${group}/${plural}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

function parseHeader(file: string, line: string): SnapshotHeader {
  try {
    return JSON.parse(line) as SnapshotHeader;
  } catch (e) {
    throw new SandboxError(
      'SNAPSHOT_INVALID',
      `sandbox snapshot ${file} is not valid JSON (${(e as Error).message}); delete it to start empty`,
    );
  }
}

function notSnapshot(file: string): SandboxError {
  return new SandboxError(
    'SNAPSHOT_INVALID',
    `${file} is not a keelson sandbox snapshot (kind ${SNAPSHOT_KIND}); delete it to start empty`,
  );
}

/** Reads the snapshot (version 2 line by line; version 1, one JSON document, still read). */
function readSnapshot(file: string): PersistedState | undefined {
  let header: SnapshotHeader | undefined;
  const items: StoredItem[] = [];
  const found = forEachLine(file, (line, n) => {
    if (line === '') return;
    if (header === undefined) {
      header = parseHeader(file, line);
      if (header.kind !== SNAPSHOT_KIND || typeof header.resourceVersion !== 'number') throw notSnapshot(file);
      if (Array.isArray(header.items)) items.push(...(header.items as StoredItem[]));
      return;
    }
    try {
      items.push(JSON.parse(line) as StoredItem);
    } catch {
      throw new SandboxError(
        'SNAPSHOT_INVALID',
        `sandbox snapshot ${file} line ${n} is not an item; delete it to start empty`,
      );
    }
  });
  if (!found) return undefined;
  if (header === undefined) throw notSnapshot(file);
  if (header.version === 2 && header.count !== items.length) {
    throw new SandboxError(
      'SNAPSHOT_INVALID',
      `sandbox snapshot ${file} holds ${items.length} of its ${String(header.count)} items; delete it to start empty`,
    );
  }
  return { resourceVersion: header.resourceVersion as number, items };
}

/** What replaying the log found, besides the state. */
interface Replay {
  state: PersistedState | undefined;
  /** Log records read (torn tail excluded). */
  walRecords: number;
}

function replay(dir: string): Replay {
  const walFile = join(dir, WAL_FILE);
  const snap = readSnapshot(join(dir, SNAPSHOT_FILE));
  const items = new Map<string, StoredItem>();
  for (const it of snap?.items ?? []) items.set(itemKey(it.group, it.plural, it.object), it);
  const base = snap?.resourceVersion ?? 0;
  let rv = base;
  let walRecords = 0;
  let torn: number | undefined;
  const walFound = forEachLine(walFile, (line, n) => {
    if (line === '') return;
    // a record that does not parse is tolerated only as the last one (the process died while appending it, so it
    // was never acknowledged); anything after it makes it corruption
    if (torn !== undefined)
      throw new SandboxError(
        'WAL_INVALID',
        `${walFile} line ${torn} is not a log record; delete the directory to start empty`,
      );
    let rec: WalRecord;
    try {
      rec = JSON.parse(line) as WalRecord;
    } catch {
      torn = n;
      return;
    }
    walRecords++;
    if (rec.rv <= base) return;
    const key = itemKey(rec.group, rec.plural, rec.object);
    if (rec.type === 'DELETED') items.delete(key);
    else items.set(key, { group: rec.group, plural: rec.plural, object: rec.object });
    rv = Math.max(rv, rec.rv);
  });
  // as before the streaming reader: an empty log and no snapshot is a fresh directory
  if (!snap && (!walFound || (walRecords === 0 && torn === undefined))) return { state: undefined, walRecords: 0 };
  return { state: { resourceVersion: rv, items: [...items.values()] }, walRecords };
}

/**
 * Reads the snapshot and replays the log over it (records newer than the snapshot), both as streams of lines. A
 * torn last record (the process died while appending it, so it was never acknowledged) is ignored; a bad record
 * before the end is an error. Returns undefined when the directory holds neither file. Changes nothing on disk.
 */
export function readPersistedState(dir: string): PersistedState | undefined {
  return replay(dir).state;
}

/**
 * Start-up: reads the state as `readPersistedState` and, when the log is not empty, compacts it at once (snapshot
 * written crash-safely, then the log emptied), so a restart never inherits a long log or a torn tail to append to.
 */
export function recoverPersistedState(dir: string): PersistedState | undefined {
  const { state } = replay(dir);
  if (state === undefined) return undefined;
  const walFile = join(dir, WAL_FILE);
  let walBytes = 0;
  try {
    const fd = openSync(walFile, 'r');
    try {
      walBytes = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (walBytes > 0) {
    writeSnapshot(dir, state);
    truncateDurably(walFile);
  }
  return state;
}

/** Buffers small writes into large ones. */
class ChunkWriter {
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;
  constructor(private readonly fd: number) {}
  write(s: string): void {
    this.parts.push(s);
    this.pending += s.length;
    if (this.pending >= 4 * 1024 * 1024) this.flush();
  }
  flush(): void {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
    this.parts = [];
    this.pending = 0;
  }
}

function fsyncDir(dir: string): void {
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/**
 * Writes `state` as the snapshot atomically and durably (temporary file written item by item, fsync, rename, fsync
 * of the directory); returns its size in bytes.
 */
function writeSnapshot(dir: string, state: PersistedState): number {
  const file = join(dir, SNAPSHOT_FILE);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  let bytes: number;
  try {
    const w = new ChunkWriter(fd);
    w.write(
      `${JSON.stringify({ kind: SNAPSHOT_KIND, version: 2, resourceVersion: state.resourceVersion, count: state.items.length })}\n`,
    );
    for (const it of state.items) w.write(`${JSON.stringify(it)}\n`);
    w.flush();
    bytes = w.bytes;
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  fsyncDir(dir);
  return bytes;
}

function truncateDurably(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    ftruncateSync(fd, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function sizeOf(file: string): number {
  try {
    const fd = openSync(file, 'r');
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/** The append-only log of one persistence directory. */
export class WriteAheadLog {
  private fd: number | undefined;
  /** Records appended since the last compaction. */
  records = 0;
  /** Size of the log in bytes. */
  bytes: number;
  /** Size of the last snapshot in bytes. */
  snapshotBytes: number;

  constructor(
    private readonly dir: string,
    /** Log size from which `wantsCompaction` says yes, unless the snapshot is larger. */
    private readonly compactBytes = WAL_COMPACT_BYTES,
  ) {
    mkdirSync(dir, { recursive: true });
    this.fd = openSync(join(dir, WAL_FILE), 'a', 0o600);
    this.bytes = fstatSync(this.fd).size;
    this.snapshotBytes = sizeOf(join(dir, SNAPSHOT_FILE));
  }

  /** Appends one change and flushes it to disk before returning. */
  append(rv: number, type: WalRecord['type'], gr: string, object: KubeObject): void {
    if (this.fd === undefined) return;
    const slash = gr.indexOf('/');
    const rec: WalRecord = { rv, type, group: gr.slice(0, slash), plural: gr.slice(slash + 1), object };
    const buf = Buffer.from(`${JSON.stringify(rec)}\n`, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    fdatasyncSync(this.fd);
    this.records++;
    this.bytes += buf.length;
  }

  /** Whether the log should be compacted: `maxRecords` records, or more bytes than max(compactBytes, snapshot). */
  wantsCompaction(maxRecords: number): boolean {
    return this.records >= maxRecords || this.bytes >= Math.max(this.compactBytes, this.snapshotBytes);
  }

  /** Writes `state` as the snapshot, then empties the log (a crash in between replays records the snapshot has). */
  compact(state: PersistedState): void {
    this.snapshotBytes = writeSnapshot(this.dir, state);
    if (this.fd !== undefined) {
      ftruncateSync(this.fd, 0);
      fsyncSync(this.fd);
    }
    this.records = 0;
    this.bytes = 0;
  }

  /** Closes the log file. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
