/**
 * The top-level help is answered from src/command-index.ts without loading the command areas: the table must list
 * what the areas really register, and `keelson --help` must not import any area (nor the packages behind them).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.js';
import { AREA_SUMMARIES } from '../src/command-index.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

describe('command index (lazy top-level help)', () => {
  it('names, terms and descriptions match the real registrations', async () => {
    const program = await buildProgram();
    const help = new Help();
    const real = program.commands.map((c) => ({
      name: c.name(),
      term: help.subcommandTerm(c),
      description: c.description(),
    }));
    expect(AREA_SUMMARIES).toEqual(real);
  });

  it('the lazy help is the same text as the help of the fully loaded program', async () => {
    const full = (await buildProgram()).helpInformation();
    const lazy = (await buildProgram(undefined, { lazy: true })).helpInformation();
    expect(lazy).toBe(full);
  });

  it('loads only the area of the command that runs', async () => {
    const program = await buildProgram('mc', { lazy: true });
    expect(program.commands.find((c) => c.name() === 'mc')?.commands.map((c) => c.name())).toContain('render');
    expect(program.commands.find((c) => c.name() === 'payload')?.commands).toEqual([]);
  });

  it('`keelson --help` imports no command area and none of the packages behind them', () => {
    // the child reports every module URL it loaded (resolve hook) after the help was printed
    const script = `
      import { registerHooks } from 'node:module';
      const seen = [];
      registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.push(r.url); return r; } });
      process.argv = [process.argv[0], ${JSON.stringify(BIN)}, '--help'];
      await import(${JSON.stringify(BIN)});
      process.on('exit', () => process.stderr.write(JSON.stringify(seen)));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('rehearse [options]');
    const loaded = JSON.parse(r.stderr) as string[];
    // the CLI's own modules besides shared chunks: only the entry, the program and the output helpers
    const own = loaded
      .filter((u) => u.includes('/apps/keelson/dist/'))
      .map((u) => u.replace(/.*\/dist\/|-[A-Z0-9]+\.js$|\.js$/g, ''));
    expect([...new Set(own.filter((n) => n !== 'chunk'))].sort()).toEqual(['bin', 'cli', 'output']);
    // the one package module a bin loads first: the standalone Node-version check (@keelson/kube/node-version)
    const packages = loaded.filter((u) => u.includes('/packages/') || /\/apps\/(?!keelson\/)/.test(u));
    expect(packages.filter((u) => !u.endsWith('/packages/kube/dist/node-version.js'))).toEqual([]);
  });
});

describe('compile cache', () => {
  it('keeps the compiled modules under $XDG_CACHE_HOME/keelson/node-compile-cache, not in TMPDIR', () => {
    const home = mkdtempSync(join(tmpdir(), 'keelson-cache-home-'));
    const tmp = mkdtempSync(join(tmpdir(), 'keelson-cache-tmp-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: home, TMPDIR: tmp };
      delete env['NODE_COMPILE_CACHE'];
      delete env['NODE_DISABLE_COMPILE_CACHE'];
      const r = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8', env, timeout: 60_000 });
      expect(r.status).toBe(0);
      expect(readdirSync(join(home, 'keelson', 'node-compile-cache')).length).toBeGreaterThan(0);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
