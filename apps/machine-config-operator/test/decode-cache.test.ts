/**
 * Per-process caches of the virtual machines' and daemons' config work: the decoded contents of a parsed config's
 * file (shared by every node of a pool), and the parsed config a virtual machine's Ignition applies.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const parseSpy = vi.hoisted(() => ({ calls: 0 }));
vi.mock('@keelson/ignition', async (importOriginal) => {
  const orig = await importOriginal<typeof import('@keelson/ignition')>();
  return {
    ...orig,
    parseAndConvertConfig: (...args: Parameters<typeof orig.parseAndConvertConfig>) => {
      parseSpy.calls++;
      return orig.parseAndConvertConfig(...args);
    },
  };
});
const { decodeContents } = await import('../src/daemon/dataurl.js');
const { applyIgnition } = await import('../src/virtual/ignition-apply.js');
const { HostRoot } = await import('../src/daemon/root.js');
const { VirtualHost } = await import('../src/virtual/host.js');

describe('decodeContents: once per contents object', () => {
  it('returns the same bytes for the same object, decodes again when the object or its source differs', () => {
    const c: { source?: string; compression?: string } = { source: 'data:,hello%20world' };
    const one = decodeContents(c, '/etc/x');
    expect(one.toString()).toBe('hello world');
    expect(decodeContents(c, '/etc/x')).toBe(one);
    expect(decodeContents({ source: 'data:,hello%20world' }, '/etc/x')).not.toBe(one);
    c.source = 'data:,bye';
    expect(decodeContents(c, '/etc/x').toString()).toBe('bye');
    expect(() => decodeContents({ source: 'data:,x', compression: 'xz' }, '/etc/y')).toThrow('unsupported compression');
    expect(decodeContents(undefined, '/etc/z')).toHaveLength(0);
  });
});

describe("a virtual machine's Ignition: one parse per config text", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('two machines applying the same text parse it once; both get every file', async () => {
    const text = JSON.stringify({
      ignition: { version: '3.5.0' },
      storage: {
        files: [
          { path: '/etc/a/one', mode: 420, contents: { source: 'data:,1' } },
          { path: '/etc/a/two', mode: 384, contents: { source: 'data:,2' } },
        ],
      },
      systemd: { units: [{ name: 'x.service', contents: '[Unit]\n', dropins: [{ name: 'd.conf', contents: 'd' }] }] },
    });
    const before = parseSpy.calls;
    for (let i = 0; i < 2; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'ign-apply-'));
      dirs.push(dir);
      const root = new HostRoot(dir);
      expect(await applyIgnition(root, new VirtualHost(root, { onReboot: () => undefined }), text)).toBe(2);
      expect(readFileSync(join(dir, 'etc/a/two'), 'utf8')).toBe('2');
      expect(readFileSync(join(dir, 'etc/systemd/system/x.service.d/d.conf'), 'utf8')).toBe('d');
    }
    expect(parseSpy.calls - before).toBe(1);
    await applyIgnition(
      new HostRoot(dirs[0] ?? ''),
      new VirtualHost(new HostRoot(dirs[0] ?? ''), { onReboot: () => undefined }),
      text.replace('data:,1', 'data:,3'),
    );
    expect(parseSpy.calls - before).toBe(2);
    expect(readFileSync(join(dirs[0] ?? '', 'etc/a/one'), 'utf8')).toBe('3');
  });
});
