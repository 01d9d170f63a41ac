/**
 * Writing files and units like the daemon's writer: atomic writes (temp file in the same directory + fsync +
 * rename + fsync of the directory), backups of distribution files under /etc/machine-config-daemon/orig
 * (`<path>.mcdorig`) or a `noorig/<path>.mcdnoorig` stamp, systemd units and dropins with enable/disable/preset,
 * and deletion of what an old config wrote that the new one does not have.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { File as IgnFile, IgnitionConfigV3, Unit } from '@keelson/ignition';
import { writeFileAtomic } from '@keelson/kube/atomic-write';
import { killPoint } from './crash.js';
import { decodeContents } from './dataurl.js';
import { CERT_WRITER_FILES, NOORIG_DIR, ORIG_DIR, SYSTEMD_UNIT_DIR } from './constants.js';
import type { Host } from './host.js';
import type { HostRoot } from './root.js';

const TEMP_MARK = '.mcdtmp';

/** True when the path exists (lstat). */
export async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Directory trees whose files need no fsync: the roots of virtual machines, which live as long as their process (a
 * 5,000-node rehearsal writes hundreds of thousands of files; two fsyncs each were a large part of its system time).
 * Writes there stay atomic (temp file + rename); only durability across a power loss is given up.
 */
const volatileTrees = new Set<string>();

/** Marks `dir` (a virtual machines' root directory) as a tree whose writes skip fsync; returns the undo function. */
export function markVolatileTree(dir: string): () => void {
  const d = dir.endsWith('/') ? dir.slice(0, -1) : dir;
  volatileTrees.add(d);
  return () => volatileTrees.delete(d);
}

function durable(target: string): boolean {
  for (const d of volatileTrees) if (target.startsWith(`${d}/`)) return false;
  return true;
}

/** Removes temp files a killed write left next to `target` (`.<name>.mcdtmp*`). */
export async function removeStaleTemps(target: string): Promise<void> {
  const dir = dirname(target);
  const prefix = `.${basename(target)}${TEMP_MARK}`;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith(prefix)) await fs.rm(`${dir}/${n}`, { force: true });
}

/** A temp file name of an atomic write (`.<name>.mcdtmp<12 hex>`, as `atomicTempPath` makes them). */
const STALE_TEMP = new RegExp(`^\\..+${TEMP_MARK.replace('.', '\\.')}[0-9a-f]{12}$`);

/**
 * Prepares a directory for atomic writes: an existing one is cleared of every temp file a killed write left in it
 * (one readdir), a missing one is created with its parents (0755; new, so nothing to clear).
 */
async function prepareDirectory(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    return;
  }
  for (const n of names) if (STALE_TEMP.test(n)) await fs.rm(`${dir}/${n}`, { force: true });
}

/**
 * The directories one update step has prepared for its atomic writes, each created and cleared of stale temps once
 * instead of once per written file (a config writes dozens of files into a few directories; the noorig stamps go to
 * as many more). Only temps of a killed process can be stale: this process removes its own on a failed write.
 */
export class PreparedDirectories {
  readonly #done = new Map<string, Promise<void>>();

  /** Prepares `dir` once (a failed preparation is tried again on the next call). */
  prepare(dir: string): Promise<void> {
    let p = this.#done.get(dir);
    if (p === undefined) {
      p = prepareDirectory(dir);
      this.#done.set(dir, p);
      p.catch(() => this.#done.delete(dir));
    }
    return p;
  }

  /** Forgets `dir` (it was removed behind this step's back: the next write prepares it again). */
  forget(dir: string): void {
    this.#done.delete(dir);
  }
}

/** Options of {@link atomicWrite}. */
export interface AtomicWriteOptions {
  readonly mode?: number;
  readonly uid?: number;
  readonly gid?: number;
  /** Count this write at the crash-test kill point `file-temp-written` (default true; the update path's writes). */
  readonly killPoint?: boolean;
  /** The update step's prepared directories (default: the target's directory is prepared for this write alone). */
  readonly dirs?: PreparedDirectories;
}

/**
 * Writes `data` to the absolute host path `target` atomically: parents created (0755), a temp file in the same
 * directory is written, chmod/chown-ed and fsync-ed, then renamed over the target and the directory fsync-ed.
 * A reader (or a daemon restarted after SIGKILL) sees the old or the new file, never a part.
 */
export async function atomicWrite(target: string, data: Buffer | string, opts: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(target);
  if (opts.dirs === undefined) {
    await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    await removeStaleTemps(target);
    await writeTemped(target, data, opts);
    return;
  }
  await opts.dirs.prepare(dir);
  try {
    await writeTemped(target, data, opts);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    // the directory went away since it was prepared (a stale-data removal, another writer): prepare it again
    opts.dirs.forget(dir);
    await opts.dirs.prepare(dir);
    await writeTemped(target, data, opts);
  }
}

async function writeTemped(target: string, data: Buffer | string, opts: AtomicWriteOptions): Promise<void> {
  // @keelson/kube's one atomic write; the kill point sits between the durable temp file and the rename
  await writeFileAtomic(target, data, {
    mode: opts.mode ?? 0o644,
    ...(opts.uid !== undefined && opts.gid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
    tempMark: TEMP_MARK,
    durable: durable(target),
    ...(opts.killPoint !== false
      ? {
          beforeRename: () => {
            killPoint('file-temp-written');
          },
        }
      : {}),
  });
}

/** Copies a file atomically, keeping its mode. */
async function atomicCopy(from: string, to: string, dirs?: PreparedDirectories): Promise<void> {
  const st = await fs.stat(from);
  await atomicWrite(to, await fs.readFile(from), {
    mode: st.mode & 0o7777,
    uid: st.uid,
    gid: st.gid,
    ...(dirs !== undefined ? { dirs } : {}),
  });
}

/** Path of the `.mcdorig` backup of a host path. */
export const origPath = (root: HostRoot, path: string): string => root.resolve(`${ORIG_DIR}${path}.mcdorig`);
/** Path of the `.mcdnoorig` stamp of a host path. */
export const noOrigPath = (root: HostRoot, path: string): string => root.resolve(`${NOORIG_DIR}${path}.mcdnoorig`);

/** A file the distribution ships (RPM-owned, or an /etc file with a /usr/etc counterpart). */
export async function isDistroFile(root: HostRoot, host: Host, path: string): Promise<boolean> {
  if (path.startsWith('/etc/') && (await exists(root.resolve(`/usr${path}`)))) return true;
  return host.rpmOwned(path);
}

/**
 * createOrigFile: before the first write over `path`, back up a distribution file to `orig/<path>.mcdorig` (once;
 * an existing backup is kept) or write the empty `noorig` stamp. The backup is complete before the caller writes.
 */
export async function createOrigFile(
  root: HostRoot,
  host: Host,
  path: string,
  dirs?: PreparedDirectories,
): Promise<void> {
  const orig = origPath(root, path);
  const stamp = noOrigPath(root, path);
  if ((await exists(orig)) || (await exists(stamp))) return;
  const target = root.resolve(path);
  if ((await exists(target)) && (await isDistroFile(root, host, path))) {
    await atomicCopy(target, orig, dirs);
    killPoint('after-orig-backup');
    return;
  }
  await atomicWrite(stamp, '', { mode: 0o644, ...(dirs !== undefined ? { dirs } : {}) });
}

function lookupId(db: string, name: string): number | undefined {
  for (const line of db.split('\n')) {
    const f = line.split(':');
    if (f[0] === name && f[2] !== undefined) return Number(f[2]);
  }
  return undefined;
}

async function ownerOf(root: HostRoot, f: IgnFile): Promise<{ uid: number; gid: number }> {
  const read = async (p: string): Promise<string> => fs.readFile(root.resolve(p), 'utf8').catch(() => '');
  let uid = f.user?.id ?? 0;
  let gid = f.group?.id ?? 0;
  if (f.user?.name) uid = lookupId(await read('/etc/passwd'), f.user.name) ?? uid;
  if (f.group?.name) gid = lookupId(await read('/etc/group'), f.group.name) ?? gid;
  return { uid, gid };
}

/** Options of {@link writeFiles}. */
export interface WriteFilesOptions {
  /** Cluster-driven update: the certificate writer's files are skipped (firstboot writes them). */
  readonly skipCertificateWriterFiles: boolean;
}

/** Writes every file of the config (backing up originals first). */
export async function writeFiles(
  root: HostRoot,
  host: Host,
  files: readonly IgnFile[],
  opts: WriteFilesOptions,
): Promise<void> {
  const dirs = new PreparedDirectories();
  for (const f of files) {
    const path = f.path ?? '';
    if (opts.skipCertificateWriterFiles && path === '/etc/kubernetes/kubelet-ca.crt') continue;
    if ((f.append ?? []).length > 0) throw new Error(`ignition file ${path} includes append: unsupported`);
    const data = decodeContents(f.contents ?? undefined, path);
    const owner = await ownerOf(root, f);
    killPoint('before-file-write');
    await createOrigFile(root, host, path, dirs);
    await atomicWrite(root.resolve(path), data, { mode: f.mode ?? 0o644, ...owner, dirs });
    killPoint('after-file-renamed');
  }
}

async function isDevNullLink(p: string): Promise<boolean> {
  try {
    return (await fs.readlink(p)) === '/dev/null';
  } catch {
    return false;
  }
}

/** Writes units and dropins (only `units`), masks, then enables/disables/presets. */
export async function writeUnits(root: HostRoot, host: Host, units: readonly Unit[]): Promise<void> {
  const dirs = new PreparedDirectories();
  for (const u of units) {
    const name = u.name ?? '';
    const unitPath = root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`);
    for (const d of u.dropins ?? []) {
      const hostPath = `${SYSTEMD_UNIT_DIR}/${name}.d/${d.name ?? ''}`;
      if ((d.contents ?? '') === '') {
        await fs.rm(root.resolve(hostPath), { force: true });
        continue;
      }
      await createOrigFile(root, host, hostPath, dirs);
      await atomicWrite(root.resolve(hostPath), d.contents ?? '', { mode: 0o644, dirs });
    }
    if (u.mask === true) {
      await fs.rm(unitPath, { force: true });
      await fs.mkdir(dirname(unitPath), { recursive: true });
      await fs.symlink('/dev/null', unitPath);
      continue;
    }
    if ((u.contents ?? '') !== '') {
      await createOrigFile(root, host, `${SYSTEMD_UNIT_DIR}/${name}`, dirs);
      await atomicWrite(unitPath, u.contents ?? '', { mode: 0o644, dirs });
    } else if (u.mask === false && (await isDevNullLink(unitPath))) {
      await fs.rm(unitPath, { force: true });
    }
  }
  killPoint('after-units-written');
  await enableUnits(root, host, units);
  killPoint('after-units-enabled');
}

async function enableUnits(root: HostRoot, host: Host, units: readonly Unit[]): Promise<void> {
  const enable: string[] = [];
  const disable: string[] = [];
  for (const u of units) {
    const name = u.name ?? '';
    const onDisk = (u.contents ?? '') !== '' || (await exists(root.resolve(`${SYSTEMD_UNIT_DIR}/${name}`)));
    if (u.enabled === true && onDisk) enable.push(name);
    else if (u.enabled === false && onDisk) disable.push(name);
    else if (u.enabled === undefined || u.enabled === null) await host.systemctl(['preset', name]);
  }
  if (enable.length > 0) {
    const r = await host.systemctl(['enable', ...enable]);
    if (r.exitCode !== 0) throw new Error(`error enabling units: ${r.stderr.trim()}`);
  }
  if (disable.length > 0) {
    const r = await host.systemctl(['disable', ...disable]);
    if (r.exitCode !== 0) throw new Error(`error disabling units: ${r.stderr.trim()}`);
  }
}

/** Removes or restores one file the old config wrote and the new one does not. */
async function removeStaleFile(root: HostRoot, host: Host, path: string): Promise<void> {
  const stamp = noOrigPath(root, path);
  const orig = origPath(root, path);
  if (await exists(stamp)) {
    await fs.rm(root.resolve(path), { force: true });
    await fs.rm(stamp, { force: true });
    return;
  }
  if ((await exists(orig)) && (await isDistroFile(root, host, path))) {
    await atomicCopy(orig, root.resolve(path));
    await fs.rm(orig, { force: true });
    return;
  }
  await fs.rm(root.resolve(path), { force: true });
}

/** deleteStaleData: files, dropins and units of `oldIgn` absent from `newIgn`. */
export async function deleteStaleData(
  root: HostRoot,
  host: Host,
  oldIgn: IgnitionConfigV3,
  newIgn: IgnitionConfigV3,
): Promise<void> {
  const newFiles = new Set((newIgn.storage?.files ?? []).map((f) => f.path ?? ''));
  const newUnits = newIgn.systemd?.units ?? [];
  const newDropins = new Set(
    newUnits.flatMap((u) => (u.dropins ?? []).map((d) => `${SYSTEMD_UNIT_DIR}/${u.name ?? ''}.d/${d.name ?? ''}`)),
  );
  for (const f of oldIgn.storage?.files ?? []) {
    const path = f.path ?? '';
    if (newFiles.has(path) || CERT_WRITER_FILES.includes(path) || path.startsWith('/etc/docker/certs.d')) continue;
    if (newDropins.has(path)) continue;
    await removeStaleFile(root, host, path);
  }
  const newUnitNames = new Map(newUnits.map((u) => [u.name ?? '', u]));
  for (const u of oldIgn.systemd?.units ?? []) {
    const name = u.name ?? '';
    for (const d of u.dropins ?? []) {
      const p = `${SYSTEMD_UNIT_DIR}/${name}.d/${d.name ?? ''}`;
      if (!newDropins.has(p)) await removeStaleFile(root, host, p);
    }
    const keep = newUnitNames.get(name);
    if (keep === undefined) {
      await host.systemctl(['preset', name]);
      if ((u.contents ?? '') !== '' || u.mask === true)
        await removeStaleFile(root, host, `${SYSTEMD_UNIT_DIR}/${name}`);
    }
  }
  killPoint('after-stale-deleted');
}
