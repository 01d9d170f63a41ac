/**
 * validateOnDiskState: does the node still run `config`? The booted OS image, the kernel arguments, every file
 * (mode and bytes) and every unit/dropin of the config are compared with the host. Messages are upstream's
 * (on_disk_validation.go); the caller wraps them as "unexpected on-disk state validating against <name>: …".
 */
import { promises as fs } from 'node:fs';
import { splitKernelArguments } from '@keelson/machineconfig';
import type { IgnitionConfigV3, Unit } from '@keelson/ignition';
import type { MachineConfig } from '@keelson/api';
import { ignitionOf } from './config.js';
import { CERT_WRITER_FILES, SYSTEMD_UNIT_DIR } from './constants.js';
import { decodeContents } from './dataurl.js';
import type { Host } from './host.js';
import type { OsDriver } from './os.js';
import type { HostRoot } from './root.js';

/** The node's on-disk state differs from a config. `message` is the upstream text. */
export class OnDiskValidationError extends Error {
  readonly code = 'MCD_ON_DISK_MISMATCH';
  constructor(
    message: string,
    /** Host path at fault, when a file or unit. */
    readonly path?: string,
  ) {
    super(message);
    this.name = 'OnDiskValidationError';
  }
}

const goQuote = (s: string): string => JSON.stringify(s);

/** Go's `os.FileMode.String()` for a regular file / symlink / directory. */
export function goModeString(mode: number, kind: 'file' | 'dir' | 'link' = 'file'): string {
  const rwx = 'rwxrwxrwx';
  let out = kind === 'dir' ? 'd' : kind === 'link' ? 'L' : '-';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? (rwx[i] ?? '-') : '-';
  return out;
}

const goOctal = (mode: number): string => `0${mode.toString(8)}`;

/** checkFileContentsAndMode with the upstream messages. */
export async function checkFileContentsAndMode(
  root: HostRoot,
  path: string,
  expected: Buffer,
  mode: number,
): Promise<void> {
  let st;
  try {
    st = await fs.lstat(root.resolve(path));
  } catch (e) {
    throw new OnDiskValidationError(
      `could not stat file ${goQuote(path)}: lstat ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`,
      path,
    );
  }
  const kind = st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'file';
  const have = st.mode & 0o777;
  if (kind !== 'file' || have !== mode) {
    throw new OnDiskValidationError(
      `mode mismatch for file: ${goQuote(path)}; expected: ${goModeString(mode)}/${mode}/${goOctal(mode)}; received: ${goModeString(have, kind)}/${have}/${goOctal(have)}`,
      path,
    );
  }
  if (st.size !== expected.length || !(await sameContent(root.resolve(path), expected)))
    throw new OnDiskValidationError(`content mismatch for file ${goQuote(path)}`, path);
}

/**
 * Whether the regular file holds exactly `expected`: open, one read of one byte more than expected (a file that grew
 * since its lstat reads longer; a regular file's read is short only at its end), close. No fstat and no read to
 * the end as `readFile` does: the daemon reads back every file of a config on each validation.
 */
async function sameContent(file: string, expected: Buffer): Promise<boolean> {
  const h = await fs.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(expected.length + 1);
    const { bytesRead } = await h.read(buf, 0, buf.length, 0);
    return bytesRead === expected.length && buf.subarray(0, bytesRead).equals(expected);
  } finally {
    await h.close();
  }
}

async function checkUnit(root: HostRoot, host: Host, u: Unit): Promise<void> {
  const name = u.name ?? '';
  for (const d of u.dropins ?? []) {
    const p = `${SYSTEMD_UNIT_DIR}/${name}.d/${d.name ?? ''}`;
    const content = d.contents ?? '';
    if (content === '') {
      try {
        await fs.lstat(root.resolve(p));
      } catch {
        continue;
      }
    }
    await checkFileContentsAndMode(root, p, Buffer.from(content), 0o644);
  }
  if ((u.contents ?? '') === '') return;
  const p = `${SYSTEMD_UNIT_DIR}/${name}`;
  if (u.mask === true) {
    const link = await fs.readlink(root.resolve(p)).catch(() => '');
    if (link !== '/dev/null') {
      throw new OnDiskValidationError(
        `state validation: invalid unit masked setting. path: ${goQuote(p)}; expected: /dev/null; received: ${link || p}`,
        p,
      );
    }
    return;
  }
  await checkFileContentsAndMode(root, p, Buffer.from(u.contents ?? ''), 0o644);
  if (u.enabled === undefined || u.enabled === null) return;
  const out = (await host.systemctl(['is-enabled', name])).stdout.trim();
  if (u.enabled && ['disabled', 'masked', 'masked-runtime', 'not-found'].includes(out)) {
    throw new OnDiskValidationError(
      `unit ${goQuote(name)} expected enabled=true, but systemd reports ${goQuote(out)}`,
      p,
    );
  }
  if (!u.enabled && ['enabled', 'enabled-runtime'].includes(out)) {
    throw new OnDiskValidationError(
      `unit ${goQuote(name)} expected enabled=false, but systemd reports ${goQuote(out)}`,
      p,
    );
  }
}

/** Files and units of an Ignition config against the host. */
export async function validateFilesAndUnits(root: HostRoot, host: Host, ign: IgnitionConfigV3): Promise<void> {
  for (const u of ign.systemd?.units ?? []) await checkUnit(root, host, u);
  for (const f of ign.storage?.files ?? []) {
    const path = f.path ?? '';
    if (CERT_WRITER_FILES.includes(path)) continue;
    if ((f.append ?? []).length > 0)
      throw new OnDiskValidationError('found an append section when checking files. Append is not supported', path);
    await checkFileContentsAndMode(root, path, decodeContents(f.contents ?? undefined, path), f.mode ?? 0o644);
  }
}

/** OS image and kernel arguments of a config against the booted deployment. */
export async function validateOs(os: OsDriver, mc: MachineConfig): Promise<void> {
  const want = splitKernelArguments(mc.spec?.kernelArguments ?? []);
  if (want.length > 0) {
    const have = new Set(await os.kernelArguments());
    const missing = want.filter((k) => !have.has(k));
    if (missing.length > 0)
      throw new OnDiskValidationError(`missing expected kernel arguments: [${missing.join(' ')}]`);
  }
  const image = mc.spec?.osImageURL ?? '';
  if (image !== '') {
    const booted = await os.bootedImage();
    if (booted !== image)
      throw new OnDiskValidationError(`expected target osImageURL ${goQuote(image)}, have ${goQuote(booted)}`);
  }
}

/**
 * Full on-disk validation against `mc`, wrapped as upstream does:
 * `unexpected on-disk state validating against <name>: <reason>`.
 */
export async function validateOnDiskState(root: HostRoot, host: Host, os: OsDriver, mc: MachineConfig): Promise<void> {
  try {
    await validateOs(os, mc);
    await validateFilesAndUnits(root, host, ignitionOf(mc));
  } catch (e) {
    if (e instanceof OnDiskValidationError) {
      throw new OnDiskValidationError(
        `unexpected on-disk state validating against ${mc.metadata.name ?? ''}: ${e.message}`,
        e.path,
      );
    }
    throw e;
  }
}
