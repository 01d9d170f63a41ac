/**
 * The one atomic file write of Keelson (the MCO daemon's host files, the CVO's rendered manifests, the CLI's output
 * files), as upstream's `renameio`-style writers (openshift/machine-config-operator `pkg/daemon/file_writers.go`
 * `writeFileAtomically`): a temporary file in the target's directory is written, chmod-ed (and chown-ed as root),
 * fsync-ed and renamed over the target, then the directory is fsync-ed. A reader, or a process restarted after
 * SIGKILL, sees the old file or the new one, never a part; a failed write leaves no temporary file behind.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode of the written file (default 0644). */
  readonly mode?: number;
  /** Owner, applied when both are given and this process runs as root. */
  readonly uid?: number;
  readonly gid?: number;
  /** Create missing parent directories with this mode (default: parents must exist). */
  readonly mkdirMode?: number;
  /** Marker in the temporary name `.<name><tempMark><random>` (default `.tmp`), e.g. to find stale ones. */
  readonly tempMark?: string;
  /** Called after the temporary file is durable and before the rename (crash tests kill the process here). */
  readonly beforeRename?: () => void;
  /** fsync the file and the directory (default true). */
  readonly durable?: boolean;
}

async function fsyncDir(dir: string): Promise<void> {
  const h = await fs.open(dir, constants.O_RDONLY);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

/**
 * The 48-bit suffix of the last temporary name: random at start, counted up by each write (unique within the
 * process, unlikely to meet another process's; a `randomBytes` call per write cost more CPU than the write's own
 * open, chmod and rename in a rehearsal's thousands of virtual machines).
 */
let tempSuffix = randomBytes(6).readUIntBE(0, 6);

/** Path of the temporary file of a write to `target` (`.<name><tempMark><12 hex digits>`). */
export function atomicTempPath(target: string, tempMark = '.tmp'): string {
  tempSuffix = (tempSuffix + 1) % 2 ** 48;
  return join(dirname(target), `.${basename(target)}${tempMark}${tempSuffix.toString(16).padStart(12, '0')}`);
}

/** Writes `data` to `target` atomically and durably (see the module comment). */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(target);
  if (opts.mkdirMode !== undefined) await fs.mkdir(dir, { recursive: true, mode: opts.mkdirMode });
  const tmp = atomicTempPath(target, opts.tempMark);
  const durable = opts.durable !== false;
  try {
    const h = await fs.open(tmp, 'wx', 0o600);
    try {
      await h.writeFile(data);
      await h.chmod(opts.mode ?? 0o644);
      if (opts.uid !== undefined && opts.gid !== undefined && process.getuid?.() === 0)
        await h.chown(opts.uid, opts.gid);
      if (durable) await h.sync();
    } finally {
      await h.close();
    }
    opts.beforeRename?.();
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  if (durable) await fsyncDir(dir);
}
