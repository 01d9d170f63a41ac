import { lstat, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { PayloadError, UnsafeArchiveError } from './errors.js';
import type { PayloadFiles } from './payload.js';

const SUBDIRS = ['manifests', 'release-manifests'] as const;

function checkName(name: string): void {
  if (
    name === '' ||
    name.includes('/') ||
    name.includes('\\') ||
    name === '..' ||
    name === '.' ||
    name.includes('\0')
  ) {
    throw new UnsafeArchiveError('UnsafeArchive', `refusing to write file name ${JSON.stringify(name)}`, name);
  }
}

/** `lstat` that answers `null` for a path that does not exist. */
async function lstatOrNull(path: string): Promise<Awaited<ReturnType<typeof lstat>> | null> {
  try {
    return await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new PayloadError('ExtractError', `cannot inspect ${path}: ${(e as Error).message}`, path);
  }
}

/**
 * Checks the destination: it may not exist yet, or be a real directory (never a symbolic link) without
 * `manifests/` or `release-manifests/` in it. Returns whether it exists.
 */
async function checkDestination(dest: string): Promise<boolean> {
  const s = await lstatOrNull(dest);
  if (s === null) return false;
  if (s.isSymbolicLink())
    throw new PayloadError(
      'ExtractError',
      `${dest} is a symbolic link; refusing to extract through it (give the real directory)`,
      dest,
    );
  if (!s.isDirectory()) throw new PayloadError('ExtractError', `${dest} exists and is not a directory`, dest);
  for (const sub of SUBDIRS) {
    if ((await lstatOrNull(join(dest, sub))) !== null) {
      throw new PayloadError(
        'ExtractError',
        `${join(dest, sub)} already exists; extract into a new or empty directory (nothing is written through or over existing files)`,
        join(dest, sub),
      );
    }
  }
  return true;
}

/**
 * Writes payload files to `dest/manifests` and `dest/release-manifests` atomically: everything is written into a
 * private directory beside `dest` (same filesystem) and renamed into place at the end, so a failure leaves no partial
 * output and no file is ever written through a link that exists in the destination. Names are flat and validated.
 */
export async function writePayloadFiles(files: PayloadFiles, dest: string): Promise<number> {
  const target = resolve(dest);
  for (const map of [files.manifests, files.releaseManifests]) for (const name of map.keys()) checkName(name);
  const exists = await checkDestination(target);
  await mkdir(dirname(target), { recursive: true });
  const tmp = await mkdtemp(join(dirname(target), `.${basename(target)}.keelson-extract-`));
  const moved: string[] = [];
  try {
    let n = 0;
    for (const [sub, map] of [
      ['manifests', files.manifests],
      ['release-manifests', files.releaseManifests],
    ] as const) {
      await mkdir(join(tmp, sub));
      for (const [name, data] of map) {
        await writeFile(join(tmp, sub, name), data, { flag: 'wx' });
        n++;
      }
    }
    if (!exists) {
      await rename(tmp, target);
      return n;
    }
    for (const sub of SUBDIRS) {
      // rename(2) never follows a link at the target name; a concurrent non-empty directory makes it fail
      await rename(join(tmp, sub), join(target, sub));
      moved.push(join(target, sub));
    }
    return n;
  } catch (e) {
    for (const m of moved) await rm(m, { recursive: true, force: true });
    if (e instanceof PayloadError) throw e;
    throw new PayloadError(
      'ExtractError',
      `cannot extract into ${target}: ${(e as Error).message}; nothing was left behind`,
      target,
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
