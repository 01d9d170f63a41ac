/**
 * `keelson payload extract` reports the symbolic links it skips (issue 24 §5): a warning per link and a count, exit 0;
 * `--strict` refuses with exit 1 and writes nothing. Real child processes of the built CLI on a payload directory
 * holding a link to a directory (kept inside the payload, so it is not an escape).
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, UPSTREAM_PAYLOADS } from './cli-helpers.js';

describe('payload extract and symbolic links', () => {
  let work: string;
  let payload: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'keelson-symlinks-'));
    payload = join(work, 'payload');
    await cp(join(UPSTREAM_PAYLOADS, 'payloadtest'), payload, { recursive: true });
    await symlink('../release-manifests', join(payload, 'manifests', '0000_50_dir-link.yaml'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('warns per skipped link, counts them and extracts the rest', async () => {
    const to = join(work, 'out');
    const r = await cli('payload', 'extract', payload, '--to', to);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: Skipping symlink manifests/0000_50_dir-link.yaml -> ../release-manifests: its target ',
    );
    expect(r.stderr).toContain('is a directory');
    expect(r.stderr).toContain('warning: skipped 1 symbolic link that leads to no file; use --strict to refuse');
    expect(r.stdout).toMatch(/^extracted \d+ files of 1\.0\.0-abc to .* \(skipped 1 symbolic link\)\n$/);
    expect(await readdir(join(to, 'manifests'))).not.toContain('0000_50_dir-link.yaml');
  });

  it('refuses with --strict and writes nothing', async () => {
    const to = join(work, 'strict');
    const r = await cli('payload', 'extract', '--strict', payload, '--to', to);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'refusing to extract: 1 symbolic link of the payload leads to no file (--strict); nothing was written',
    );
    expect(r.stdout).toBe('');
    expect(existsSync(to)).toBe(false);
  });
});
