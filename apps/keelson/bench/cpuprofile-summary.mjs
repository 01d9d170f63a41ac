#!/usr/bin/env node
/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by source file (package), the
 * top N of each. Usage: node bench/cpuprofile-summary.mjs FILE.cpuprofile [--top 30]
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && !['--top', '--callers'].includes(args[i - 1] ?? ''));
const topIdx = args.indexOf('--top');
const top = topIdx >= 0 ? Number(args[topIdx + 1]) : 30;
if (file === undefined) {
  console.error('usage: cpuprofile-summary.mjs FILE.cpuprofile [--top N]');
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const dts = prof.timeDeltas;
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (dts[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Where a source file belongs: a workspace package, a dependency, or node itself. */
function area(url) {
  if (url === '') return '(native/VM)';
  if (url.startsWith('node:')) return url;
  const dep = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (dep) return `dep ${dep[1]}`;
  const ws = url.match(/\/(packages|apps)\/([^/]+)\/(?:dist|src)\/(.*)$/);
  if (ws) return `${ws[2]}/${ws[3]}`;
  return url;
}

const fn = new Map();
const files = new Map();
for (const [id, us] of selfUs) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const where = area(cf.url);
  const key = `${cf.functionName || '(anonymous)'}  ${where}:${cf.lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  files.set(where, (files.get(where) ?? 0) + us);
}
const fmt = (us) => `${(us / 1e6).toFixed(2).padStart(8)} s ${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`total sampled: ${(total / 1e6).toFixed(2)} s`);
console.log(`\n-- self time by function (top ${top})`);
for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${fmt(us)}  ${k}`);
console.log(`\n-- self time by file (top ${top})`);
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${fmt(us)}  ${k}`);

// --callers NAME: who calls the functions named NAME (self time of NAME by caller chain, 3 frames up)
const callersIdx = args.indexOf('--callers');
if (callersIdx >= 0) {
  const want = args[callersIdx + 1];
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const chains = new Map();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (n.callFrame.functionName !== want) continue;
    const chain = [];
    for (let p = parent.get(id), i = 0; p !== undefined && i < 3; p = parent.get(p), i++) {
      const cf = byId.get(p).callFrame;
      chain.push(`${cf.functionName || '(anonymous)'} ${area(cf.url)}:${cf.lineNumber + 1}`);
    }
    const k = chain.join(' <- ');
    chains.set(k, (chains.get(k) ?? 0) + us);
  }
  console.log(`\n-- callers of ${want}`);
  for (const [k, us] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${fmt(us)}  ${k}`);
}
