/**
 * The daemon's atomic writes of one update step prepare each directory once (created, or cleared of the temps a
 * killed write left) instead of once per written file; the files on disk are the same as before.
 */
import { promises as fsp } from 'node:fs';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { File as IgnFile } from '@keelson/ignition';
import { HostRoot } from '../src/daemon/root.js';
import { PreparedDirectories, atomicWrite, writeFiles } from '../src/daemon/writer.js';
import { VirtualHost } from '../src/virtual/host.js';
import { checkFileContentsAndMode } from '../src/daemon/on-disk-validation.js';

const file = (path: string, text: string, mode = 0o644): IgnFile => ({
  path,
  mode,
  contents: { source: `data:,${encodeURIComponent(text)}` },
});

describe('atomic writes of an update step: each directory prepared once', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'writer-dirs-'));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every file with its content and mode, clears stale temps, one readdir per directory', async () => {
    const root = new HostRoot(dir);
    const host = new VirtualHost(root, { onReboot: () => undefined });
    mkdirSync(join(dir, 'etc/a'), { recursive: true });
    // temps of killed writes (of a written file and of another one), and a dot file that is no temp
    for (const n of ['.one.mcdtmp0123456789ab', '.gone.mcdtmpabcdefabcdef', '.keep', '.x.mcdtmpnothex00000'])
      writeFileSync(join(dir, 'etc/a', n), 'x');
    const readdir = vi.spyOn(fsp, 'readdir');
    const files = [
      file('/etc/a/one', 'one\n'),
      file('/etc/a/two', 'two\n', 0o600),
      file('/etc/a/three', 'three\n', 0o755),
      file('/etc/b/c/four', 'four\n'),
      file('/etc/b/c/five', ''),
    ];
    await writeFiles(root, host, files, { skipCertificateWriterFiles: true });
    expect(readFileSync(join(dir, 'etc/a/one'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(dir, 'etc/b/c/five'), 'utf8')).toBe('');
    expect(statSync(join(dir, 'etc/a/two')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'etc/a/three')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'etc/b/c')).mode & 0o777).toBe(0o755);
    expect(readdirSync(join(dir, 'etc/a')).sort()).toEqual(['.keep', '.x.mcdtmpnothex00000', 'one', 'three', 'two']);
    expect(readdirSync(join(dir, 'etc/machine-config-daemon/noorig/etc/a')).sort()).toEqual([
      'one.mcdnoorig',
      'three.mcdnoorig',
      'two.mcdnoorig',
    ]);
    // one readdir per directory (a missing one fails and is created); before, each of the 10 writes (5 files, 5
    // noorig stamps) read its directory
    const read = readdir.mock.calls.map((c) => String(c[0]).slice(dir.length));
    expect(read.sort()).toEqual([
      '/etc/a',
      '/etc/b/c',
      '/etc/machine-config-daemon/noorig/etc/a',
      '/etc/machine-config-daemon/noorig/etc/b/c',
    ]);
  });

  it('prepares a directory again when it was removed after its preparation', async () => {
    const dirs = new PreparedDirectories();
    const target = join(dir, 'x/y/file');
    await atomicWrite(target, 'first', { dirs });
    rmSync(join(dir, 'x'), { recursive: true });
    await atomicWrite(target, 'second', { dirs, mode: 0o640 });
    expect(readFileSync(target, 'utf8')).toBe('second');
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(readdirSync(join(dir, 'x/y'))).toEqual(['file']);
  });

  it('a failed preparation is tried again', async () => {
    const dirs = new PreparedDirectories();
    writeFileSync(join(dir, 'blocker'), '');
    await expect(atomicWrite(join(dir, 'blocker/f'), 'x', { dirs })).rejects.toThrow();
    rmSync(join(dir, 'blocker'));
    await atomicWrite(join(dir, 'blocker/f'), 'x', { dirs });
    expect(readFileSync(join(dir, 'blocker/f'), 'utf8')).toBe('x');
  });
});

describe('on-disk validation reads a file back with one read', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ondisk-read-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('equal, shorter, longer, same size but different, empty', async () => {
    const root = new HostRoot(dir);
    const check = (text: string, want: string): Promise<void> => {
      writeFileSync(join(dir, 'f'), text, { mode: 0o644 });
      return checkFileContentsAndMode(root, '/f', Buffer.from(want), 0o644);
    };
    await check('abc\n', 'abc\n');
    await check('', '');
    for (const [text, want] of [
      ['abc', 'abc\n'],
      ['abc\n\n', 'abc\n'],
      ['abd\n', 'abc\n'],
      ['x', ''],
    ] as const)
      await expect(check(text, want)).rejects.toThrow('content mismatch for file "/f"');
    const big = 'z'.repeat(300_000);
    await check(big, big);
    await expect(check(`${big}!`, `${big}?`)).rejects.toThrow('content mismatch');
  });
});
