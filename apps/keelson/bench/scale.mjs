#!/usr/bin/env node
// Rehearsals at scale (issue 25 goal 3): `keelson rehearse --workers N --max-unavailable worker=P` for several N, each
// the whole CLI process as a user runs it, measured with GNU time (wall, user + sys CPU, peak RSS), beside the ideal
// bound of its update and the machine's load average (the machine is shared: wall times are only as good as the load).
//
//   ideal update = ceil(workers / maxUnavailable) batches x (reboot 240 s + node sync delay 5 s) / time scale
//   (maxUnavailable = floor(P % x workers), at least 1, as the MCO rounds a percentage down; the masters roll one at a
//   time alongside and are not on the critical path from 30 workers on)
//
// Between consecutive sizes it prints the growth per added node: CPU seconds, API requests and peak RSS.
//
// Usage (build first: pnpm turbo run build --filter=keelson-cli...):
//   node bench/scale.mjs [--workers 300,1000,5000] [--max-unavailable 10%] [--time-scale 60] [--timeout 3600]
//                        [--nice 10] [--cpu-prof DIR] [--json FILE]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const REBOOT_MS = 240_000; // virtual node reboot on the simulated clock (components.ts SIMULATED_REBOOT_MS)
const NODE_SYNC_MS = 5_000; // upstream node controller delay per node event (scaled by the MCO)

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '300,1000,5000' },
    'max-unavailable': { type: 'string', default: '10%' },
    'time-scale': { type: 'string', default: '60' },
    timeout: { type: 'string', default: '3600' },
    nice: { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    json: { type: 'string' },
  },
});

/** The pool's maxUnavailable for `workers` nodes: an integer, or a percentage rounded down (at least 1). */
function maxUnavailableOf(spec, workers) {
  const m = /^(\d+)%$/.exec(spec);
  const n = m ? Math.floor((Number(m[1]) * workers) / 100) : Number(spec);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--max-unavailable ${spec}: an integer or a percentage`);
  return Math.max(1, n);
}

/** The update's ideal bound in seconds (module doc). */
function idealUpdateSeconds(workers, spec, timeScale) {
  const batches = Math.ceil(workers / maxUnavailableOf(spec, workers));
  return { batches, seconds: (batches * (REBOOT_MS + NODE_SYNC_MS)) / timeScale / 1000 };
}

/** Runs one rehearsal under GNU time; resolves with its report and resource use. */
async function run(workers) {
  const work = await mkdtemp(join(tmpdir(), 'keelson-scale-'));
  const timeFile = join(work, 'time.txt');
  const nodeArgs = [
    ...(values['cpu-prof'] !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}/w${workers}`] : []),
    BIN,
    'rehearse',
    '--workers',
    String(workers),
    '--max-unavailable',
    `worker=${values['max-unavailable']}`,
    '--time-scale',
    values['time-scale'],
    '--timeout',
    values.timeout,
    '--json',
  ];
  const argv = ['-f', '%e %U %S %M', '-o', timeFile, 'nice', '-n', values.nice, process.execPath, ...nodeArgs];
  const loadBefore = loadavg()[0];
  const out = [];
  const err = [];
  const code = await new Promise((resolve, reject) => {
    const c = spawn('/usr/bin/time', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout.on('data', (d) => out.push(d));
    c.stderr.on('data', (d) => err.push(d));
    c.on('error', reject);
    c.on('close', resolve);
  });
  const loadAfter = loadavg()[0];
  const [wall, user, sys, rssKb] = (await readFile(timeFile, 'utf8')).trim().split('\n').pop().split(' ').map(Number);
  await rm(work, { recursive: true, force: true });
  let report;
  try {
    const doc = JSON.parse(Buffer.concat(out).toString('utf8'));
    report = doc.report ?? doc;
  } catch {
    // stopped or crashed: the resource figures still stand, the outcome says why there is nothing else
    const tail = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' | ');
    report = { outcome: `no report (exit ${code}): ${tail}` };
  }
  return { workers, code, wall, cpu: user + sys, user, sys, rssMiB: rssKb / 1024, loadBefore, loadAfter, report };
}

function row(r) {
  const scale = Number(values['time-scale']);
  const ideal = idealUpdateSeconds(r.workers, values['max-unavailable'], scale);
  const update = (r.report.upgradeMs ?? 0) / 1000;
  const requests = r.report.api?.total ?? 0;
  return {
    workers: r.workers,
    outcome: r.report.outcome,
    wallS: r.wall,
    installS: (r.report.installMs ?? 0) / 1000,
    updateS: update,
    idealS: ideal.seconds,
    batches: ideal.batches,
    ratio: ideal.seconds > 0 ? update / ideal.seconds : 0,
    cpuS: r.cpu,
    userS: r.user,
    sysS: r.sys,
    cpuPerNodeS: r.cpu / r.workers,
    requests,
    rssMiB: r.rssMiB,
    load: `${r.loadBefore.toFixed(1)} → ${r.loadAfter.toFixed(1)}`,
  };
}

const sizes = values.workers.split(',').map(Number);
const rows = [];
for (const n of sizes) {
  const r = row(await run(n));
  rows.push(r);
  console.log(
    `workers ${r.workers}: ${r.outcome}, update ${r.updateS.toFixed(1)} s vs ideal ${r.idealS.toFixed(1)} s (${r.ratio.toFixed(2)}x, ${r.batches} batches), ` +
      `wall ${r.wallS.toFixed(1)} s, CPU ${r.cpuS.toFixed(1)} s (user ${r.userS.toFixed(1)} + sys ${r.sysS.toFixed(1)}; ${r.cpuPerNodeS.toFixed(3)} s/node), ${r.requests} requests, ` +
      `peak RSS ${r.rssMiB.toFixed(0)} MiB, load ${r.load}`,
  );
}
for (let i = 1; i < rows.length; i++) {
  const a = rows[i - 1];
  const b = rows[i];
  const dn = b.workers - a.workers;
  console.log(
    `growth ${a.workers} → ${b.workers} per added node: CPU ${((b.cpuS - a.cpuS) / dn).toFixed(3)} s, ` +
      `requests ${((b.requests - a.requests) / dn).toFixed(1)}, RSS ${(((b.rssMiB - a.rssMiB) * 1024) / dn).toFixed(0)} KiB`,
  );
}
if (values.json !== undefined) await writeFile(values.json, `${JSON.stringify(rows, null, 2)}\n`);
