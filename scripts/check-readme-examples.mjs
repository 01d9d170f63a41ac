#!/usr/bin/env node
// Every ```ts block of a package's README compiles: each block becomes a module under
// `<package>/.readme-examples/` and the package's own TypeScript (its tsconfig, strict) type-checks them,
// importing the workspace packages as a user would (by name, through their built `exports`). Run after
// the build. Prints `README.md:LINE` for each failing block with tsc's messages; exit 1 on any error.
// Usage: node scripts/check-readme-examples.mjs [package-dir ...]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const OUT = '.readme-examples';

/** The ```ts / ```typescript blocks of a Markdown text, with the line each starts on (1-based). */
export function tsBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^```(?:ts|typescript)\s*$/.test(lines[i])) continue;
    const start = i + 1;
    const body = [];
    for (i += 1; i < lines.length && !/^```\s*$/.test(lines[i]); i += 1) body.push(lines[i]);
    blocks.push({ line: start, code: body.join('\n') });
  }
  return blocks;
}

function packageDirs() {
  const dirs = [];
  for (const group of ['packages', 'apps', 'tooling']) {
    const g = join(root, group);
    if (!existsSync(g)) continue;
    for (const name of readdirSync(g).sort()) dirs.push(join(g, name));
  }
  return dirs;
}

/** Writes the blocks of one package's README as modules; returns the map file -> README line. */
function writeBlocks(dir) {
  const readme = join(dir, 'README.md');
  if (!existsSync(readme) || !existsSync(join(dir, 'tsconfig.json'))) return new Map();
  const blocks = tsBlocks(readFileSync(readme, 'utf8'));
  const out = join(dir, OUT);
  rmSync(out, { recursive: true, force: true });
  if (blocks.length === 0) return new Map();
  mkdirSync(out, { recursive: true });
  const files = new Map();
  for (const b of blocks) {
    const file = join(out, `readme-line-${b.line}.mts`);
    writeFileSync(file, `${b.code}\nexport {};\n`);
    files.set(file, b.line);
  }
  writeFileSync(
    join(out, 'tsconfig.json'),
    JSON.stringify({
      extends: '../tsconfig.json',
      compilerOptions: { rootDir: '..', noEmit: true },
      include: ['*.mts'],
    }),
  );
  return files;
}

function check(dir) {
  const files = writeBlocks(dir);
  if (files.size === 0) return { blocks: 0, failed: 0 };
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(tsc, ['-p', join(dir, OUT, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8' });
  rmSync(join(dir, OUT), { recursive: true, force: true });
  const output = `${r.stdout}${r.stderr}`.trim();
  if (r.status === 0) return { blocks: files.size, failed: 0 };
  const failedLines = new Set();
  for (const line of output.split('\n')) {
    const m = /readme-line-(\d+)\.mts\((\d+),\d+\): (.*)$/.exec(line);
    if (!m) {
      if (line.trim() !== '') console.error(`  ${relative(root, dir)}: ${line}`);
      continue;
    }
    const at = Number(m[1]) + Number(m[2]);
    failedLines.add(m[1]);
    console.error(`  ${relative(root, join(dir, 'README.md'))}:${at}: ${m[3]}`);
  }
  return { blocks: files.size, failed: Math.max(failedLines.size, 1) };
}

const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : packageDirs();
let blocks = 0;
let failed = 0;
for (const dir of dirs) {
  const r = check(dir);
  blocks += r.blocks;
  failed += r.failed;
}
console.log(`check-readme-examples: ${blocks} TypeScript block(s), ${failed} failing`);
process.exit(failed > 0 ? 1 : 0);
