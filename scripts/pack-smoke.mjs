#!/usr/bin/env node
// Packs every public @keelson/* package with `pnpm pack`, installs the tarballs into a temp project with
// npm (as a user would), and imports each one from plain Node as ESM and as CJS. Writes
// .keelson/pack-smoke.json ({passed, failed}) for the test summary.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pkgs = [];
for (const name of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', name, 'package.json');
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (!pkg.private) pkgs.push({ dir: join(root, 'packages', name), name: pkg.name });
}

const work = mkdtempSync(join(tmpdir(), 'keelson-pack-'));
const tarballs = join(work, 'tarballs');
const project = join(work, 'project');
mkdirSync(tarballs);
mkdirSync(project);
let passed = 0;
let failed = 0;
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

try {
  for (const p of pkgs) run('pnpm', ['pack', '--pack-destination', tarballs], p.dir);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'smoke', private: true, version: '0.0.0' }));
  const files = readdirSync(tarballs).filter((f) => f.endsWith('.tgz')).map((f) => join(tarballs, f));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], project);
  for (const p of pkgs) {
    for (const mode of ['esm', 'cjs']) {
      const code =
        mode === 'esm'
          ? `const m = await import(${JSON.stringify(p.name)}); if (Object.keys(m).length < 2) throw new Error('no exports');`
          : `const m = require(${JSON.stringify(p.name)}); if (Object.keys(m).length < 2) throw new Error('no exports');`;
      try {
        run(process.execPath, mode === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code], project);
        passed += 1;
        console.log(`pack smoke ok: ${p.name} (${mode})`);
      } catch (err) {
        failed += 1;
        console.error(`pack smoke FAILED: ${p.name} (${mode}): ${err.stderr || err.message}`);
      }
    }
  }
} catch (err) {
  failed += 1;
  console.error(`pack smoke FAILED: ${err.stderr || err.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
mkdirSync(join(root, '.keelson'), { recursive: true });
writeFileSync(join(root, '.keelson', 'pack-smoke.json'), JSON.stringify({ passed, failed }));
process.exit(failed ? 1 : 0);
