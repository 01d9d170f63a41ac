#!/usr/bin/env node
// Runs one package's vitest suite as two lanes side by side, each its own `vitest run` with one worker: the files
// matching the given path filters in one lane, every other file in the other. A package whose files are each about
// one core (a whole rehearsal: one event loop plus the CVO process) uses both of CI's 2 cores this way, and two heavy
// files never run at once. Each lane writes `.vitest/results-<lane>.json` (scripts/test-summary.mjs reads them all);
// output lines are prefixed with the lane's name. Exits non-zero when a lane fails.
//
//   node ../../scripts/vitest-lanes.mjs --heavy test/rehearse/ --heavy test/readme-commands.test.ts [-- vitest args]
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const heavy = [];
const extra = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--heavy' && args[i + 1] !== undefined) heavy.push(args[++i]);
  else if (args[i] === '--') (extra.push(...args.slice(i + 1)), (i = args.length));
  else {
    console.error(`vitest-lanes: unknown argument ${args[i]}; usage: --heavy PATH... [-- vitest args]`);
    process.exit(2);
  }
}
if (heavy.length === 0) {
  console.error('vitest-lanes: give at least one --heavy PATH');
  process.exit(2);
}
const vitestPkg = createRequire(`${process.cwd()}/package.json`).resolve('vitest/package.json');
const vitestBin = JSON.parse(readFileSync(vitestPkg, 'utf8')).bin;
const vitest = join(dirname(vitestPkg), typeof vitestBin === 'string' ? vitestBin : vitestBin.vitest);
const globOf = (p) => (p.endsWith('/') ? `${p}**` : p);
const lanes = [
  { name: 'heavy', argv: ['run', ...heavy, ...extra] },
  { name: 'rest', argv: ['run', ...heavy.flatMap((p) => ['--exclude', globOf(p)]), ...extra] },
];

function runLane(lane) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, ...lane.argv], {
      env: { ...process.env, KEELSON_VITEST_JSON: `.vitest/results-${lane.name}.json` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ])
      createInterface({ input: from }).on('line', (l) => to.write(`[${lane.name}] ${l}\n`));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const codes = await Promise.all(lanes.map(runLane));
process.exit(codes.some((c) => c !== 0) ? 1 : 0);
