import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Runs the built CLI (apps/keelson/dist/bin.js) as a child process. */
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
function keelson(args: string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    ...(input !== undefined ? { input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const dir = mkdtempSync(join(tmpdir(), 'keelson-ign-'));
function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

const good = file('good.ign', {
  ignition: { version: '3.4.0' },
  storage: { files: [{ path: '/etc/motd', contents: { source: 'data:,hello' }, mode: 420 }] },
  systemd: {
    units: [
      {
        name: 'a.service',
        enabled: true,
        contents: '[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target',
      },
    ],
  },
});
const bad = file('bad.ign', {
  ignition: { version: '3.4.0' },
  storage: { files: [{ path: 'relative/path' }, { path: '/x', mode: 99999 }] },
});

describe('keelson ignition validate', () => {
  it('accepts a valid config', () => {
    const r = keelson(['ignition', 'validate', good]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('valid (spec 3.4.0)');
  });
  it('exits 1 and names file and JSON path of each error', () => {
    const r = keelson(['ignition', 'validate', good, bad]);
    expect(r.code).toBe(1);
    // <file>:<line>:<column> of the offending value, then the JSON path
    expect(r.stderr).toMatch(
      new RegExp(
        `${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:\\d+: error at \\$\\.storage\\.files\\[0\\]\\.path: path not absolute`,
      ),
    );
    expect(r.stderr).toContain(`: error at $.storage.files[1].mode: illegal file mode`);
    expect(r.stderr).toContain('1 of 2 config(s) invalid');
  });
  it('reports unknown versions with the upstream wording', () => {
    const r = keelson(['ignition', 'validate', file('v9.ign', { ignition: { version: '9.9.9' } })]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unsupported config version');
  });
  it('reports invalid JSON', () => {
    const r = keelson(['ignition', 'validate', file('broken.ign', '{"ignition": ')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('config is not valid');
  });
  it('prints JSON reports with --json', () => {
    const r = keelson(['ignition', 'validate', '--json', bad]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { valid: boolean; entries: { path: unknown[] }[] }[];
    expect(out[0]!.valid).toBe(false);
    expect(out[0]!.entries.map((e) => e.path)).toContainEqual(['storage', 'files', 0, 'path']);
  });
  it('reads stdin with -', () => {
    const r = keelson(['ignition', 'validate', '-'], JSON.stringify({ ignition: { version: '3.2.0' } }));
    expect(r.code).toBe(0);
  });
});

describe('keelson ignition merge', () => {
  it('merges parent first', () => {
    const parent = file('p.ign', {
      ignition: { version: '3.4.0' },
      storage: { files: [{ path: '/a', contents: { source: 'data:,1', compression: 'gzip' } }] },
    });
    const child = file('c.ign', {
      ignition: { version: '3.4.0' },
      storage: { files: [{ path: '/a', contents: { source: 'data:,2' } }, { path: '/b' }] },
    });
    const r = keelson(['ignition', 'merge', parent, child]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      storage: { files: { path: string; contents?: { source: string; compression?: string } }[] };
    };
    expect(out.storage.files).toEqual([
      { path: '/a', contents: { source: 'data:,2', compression: 'gzip' } },
      { path: '/b' },
    ]);
  });
  it('refuses an invalid input naming the file', () => {
    const r = keelson(['ignition', 'merge', good, bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}: config is not valid: error at $.storage.files.0.path: path not absolute`);
    expect(r.stderr).toMatch(/bad\.ign:1:\d+: error at \$\.storage\.files\[0\]\.path: path not absolute/);
  });
});

describe('keelson ignition translate', () => {
  it('translates up', () => {
    const r = keelson(['ignition', 'translate', good, '--to', '3.5.0']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { ignition: { version: string } }).ignition.version).toBe('3.5.0');
  });
  it('translates down to 2.2', () => {
    const r = keelson(['ignition', 'translate', good, '--to', '2.2.0']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      ignition: { version: string };
      storage: { files: { filesystem: string; path: string }[] };
    };
    expect(out.ignition.version).toBe('2.2.0');
    expect(out.storage.files[0]).toMatchObject({ filesystem: 'root', path: '/etc/motd' });
  });
  it('refuses what the target cannot express, naming the field', () => {
    const luks = file('luks.ign', {
      ignition: { version: '3.4.0' },
      storage: { luks: [{ name: 'root', device: '/dev/sda', discard: true }] },
    });
    const r = keelson(['ignition', 'translate', luks, '--to', '3.3.0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '$.storage.luks[0].discard: Invalid input config: luks discard is not supported in spec v3.3',
    );
  });
  it('rejects an unknown target version as a usage error', () => {
    const r = keelson(['ignition', 'translate', good, '--to', '4.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown spec version');
  });
});
