/**
 * The host root directory (`--root-mount`): every host path the daemon reads or writes is resolved below it, so
 * the same code runs chrooted on a CoreOS node (`/`), from a container with the host at `/rootfs`, or on a
 * virtual node whose root is a temporary directory.
 */
import { resolve as resolvePath } from 'node:path';

/** A host path escapes the root (e.g. `..` components). */
export class RootPathError extends Error {
  readonly code = 'MCD_ROOT_PATH';
  constructor(readonly path: string) {
    super(
      `path ${JSON.stringify(path)} is not an absolute path inside the host root; Ignition paths must be absolute without ".."`,
    );
    this.name = 'RootPathError';
  }
}

/** Resolves host paths under a root directory. */
export class HostRoot {
  /** Absolute root directory. */
  readonly dir: string;
  constructor(dir: string) {
    this.dir = resolvePath(dir);
  }
  /** The real path of the absolute host path `p`. */
  resolve(p: string): string {
    if (!p.startsWith('/') || p.split('/').includes('..')) throw new RootPathError(p);
    return this.dir === '/' ? p : `${this.dir}${p}`;
  }
}
