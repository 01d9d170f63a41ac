/**
 * node:http, node:https and node:tls are loaded on first use by the registry transport, so reading a payload
 * directory does not pay for them; the registry paths still get them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHostTls } from '../src/transport.js';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

describe('registry transport modules loaded on first use', () => {
  it('importing the package loads neither node:http, node:https nor node:tls', () => {
    const script = `
      import { registerHooks } from 'node:module';
      const seen = new Set();
      registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.add(r.url); return r; } });
      await import(${JSON.stringify(DIST)});
      console.log(JSON.stringify([...seen].filter((u) => /^node:(http|https|tls)$/.test(u))));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('a CA file is added to the built-in roots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-ca-'));
    try {
      const pem = `-----BEGIN CERTIFICATE-----\n${Buffer.from('not a real certificate').toString('base64')}\n-----END CERTIFICATE-----\n`;
      writeFileSync(join(dir, 'ca.pem'), pem);
      mkdirSync(join(dir, 'certs.d'));
      const tls = await loadHostTls('registry.example:5000', {
        caFile: join(dir, 'ca.pem'),
        certDir: join(dir, 'certs.d'),
      });
      expect(tls.ca?.length).toBe(rootCertificates.length + 1);
      expect(tls.ca?.at(-1)).toContain('BEGIN CERTIFICATE');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
