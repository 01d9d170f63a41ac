#!/usr/bin/env node
// The rehearsal's own overhead: wall time NOT spent in simulated waits, per node and per manifest.
//
// Each run is a whole rehearsal (its own child process, every real component) between two releases written to
// directories as a user would have them (`--from DIR --to DIR --force`): the generated rehearsal releases, optionally
// with N extra ConfigMaps at run level 50 in both (a larger payload). From the run's timeline it takes the update's
// wall time and subtracts the critical path of simulated waits on the compressed clock:
//   simulated = run levels with ClusterOperators x operator report delay (5 s / time scale, at least 10 ms)
//             + max over pools of ceil(nodes / maxUnavailable) x (reboot 240 s + node sync delay 5 s) / time scale
// what is left is the rehearsal's overhead (API round trips, the CVO applying manifests, controllers, daemons,
// JSON, GC). A least-squares fit over the runs gives overhead = a + b x nodes + c x manifests.
//
// Usage (build first: pnpm turbo run build --filter=keelson-cli...):
//   node bench/overhead.mjs [--workers 3,30,100] [--extra 0,600] [--masters 3] [--time-scale 600] [--json FILE]
//                           [--max-unavailable worker=10%]... (spec.maxUnavailable of a pool, as `keelson rehearse`)
// Every worker count runs with the plain payload; every extra count > 0 runs with the first worker count.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const REBOOT_MS = 240_000; // virtual node reboot on the simulated clock (@keelson/rehearsal components.ts SIMULATED_REBOOT_MS)
const NODE_SYNC_MS = 5_000; // upstream node controller delay per node event (scaled by the MCO)
const OPERATOR_REPORT_MS = 5_000; // operator simulator delay (@keelson/rehearsal components.ts delayMs)

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    workers: { type: 'string', default: '3,30,100' },
    extra: { type: 'string', default: '0,600' },
    masters: { type: 'string', default: '3' },
    'time-scale': { type: 'string', default: '600' },
    timeout: { type: 'string', default: '1800' },
    json: { type: 'string' },
    'max-unavailable': { type: 'string', multiple: true, default: [] },
  },
});

if (values.child !== undefined) await child(JSON.parse(values.child));
else await parent();

/** One rehearsal in this process; prints one JSON line with what the parent needs. */
async function child(o) {
  // the rehearsal of @keelson/rehearsal with what `keelson rehearse` passes it (its upgrade request, `mcp why`)
  const { rehearse, parseFaults, parseMaxUnavailable } = await import('@keelson/rehearsal');
  const { requestUpgradeLikeTheCli, diagnoseClusterPools } = await import(DIST);
  const work = await mkdtemp(join(tmpdir(), 'keelson-overhead-'));
  try {
    const r = await rehearse({
      from: o.from,
      to: o.to,
      force: true,
      masters: o.masters,
      workers: o.workers,
      pools: {},
      ...(o.maxUnavailable.length > 0
        ? { maxUnavailable: parseMaxUnavailable(o.maxUnavailable, ['master', 'worker']) }
        : {}),
      timeScale: o.timeScale,
      faults: parseFaults([], [], []),
      timeoutSeconds: o.timeout,
      workDir: work,
      requestUpgrade: requestUpgradeLikeTheCli,
      diagnosePools: diagnoseClusterPools,
    });
    const ev = r.events;
    const at = (phase) => ev.find((e) => e.type === 'phase' && e.phase === phase)?.t;
    const progress = ev.filter((e) => e.type === 'progress' && e.version === r.report.to).at(-1);
    process.stdout.write(
      `${JSON.stringify({
        outcome: r.report.outcome,
        message: r.report.message,
        installMs: (at('upgrade') ?? 0) - (at('install') ?? 0),
        updateMs: (at('finished') ?? 0) - (at('upgrade') ?? 0),
        manifests: progress?.total ?? 0,
        levelsWithOperators: await levelsWithOperators(o.to),
        pools: r.report.pools.map((p) => ({
          name: p.name,
          nodes: p.nodes,
          maxUnavailable: p.maxUnavailable,
          maxUnavailableSeen: p.maxUnavailableSeen,
        })),
        api: r.report.api.total,
        updateApi: r.report.api.update?.total ?? 0,
        updateRoutes: r.report.api.update?.byRoute ?? {},
        maxRssKb: process.resourceUsage().maxRSS,
      })}\n`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  process.exit(0);
}

/** Run levels of B that hold a ClusterOperator the simulator reports (machine-config is the MCO's own). */
async function levelsWithOperators(dir) {
  const { openPayload } = await import('@keelson/release-payload');
  const b = await openPayload(dir);
  const cos = b.manifests.filter((m) => m.gvk.kind === 'ClusterOperator' && m.name !== 'machine-config');
  return new Set(cos.map((m) => /^0000_(\d\d)_/.exec(m.filename)?.[1]).filter((x) => x !== undefined)).size;
}

/** Runs one rehearsal as a child process; resolves its JSON line and wall time. */
function runChild(o) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify(o)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`rehearsal child exited ${code}`));
      else resolve({ ...JSON.parse(out.trim().split('\n').at(-1)), processMs: Math.round(performance.now() - t) });
    });
  });
}

/** The simulated-wait critical path of the update (see the header). */
function simulatedMs(r, timeScale) {
  const report = Math.max(10, OPERATOR_REPORT_MS / timeScale);
  const perNode = Math.round(REBOOT_MS / timeScale) + Math.max(1, Math.round(NODE_SYNC_MS / timeScale));
  const pools = Math.max(0, ...r.pools.map((p) => Math.ceil(p.nodes / Math.max(1, p.maxUnavailable)) * perNode));
  return Math.round(r.levelsWithOperators * report + pools);
}

/** Least squares for y = a + b x1 + c x2 (normal equations, 3x3, Cramer's rule); drops c when x2 never varies. */
function fit(rows) {
  const varies = new Set(rows.map((r) => r.x2)).size > 1;
  const cols = (r) => (varies ? [1, r.x1, r.x2] : [1, r.x1]);
  const n = varies ? 3 : 2;
  const A = Array.from({ length: n }, () => new Array(n).fill(0));
  const B = new Array(n).fill(0);
  for (const r of rows) {
    const c = cols(r);
    for (let i = 0; i < n; i++) {
      B[i] += c[i] * r.y;
      for (let j = 0; j < n; j++) A[i][j] += c[i] * c[j];
    }
  }
  const det = (m) =>
    m.length === 2
      ? m[0][0] * m[1][1] - m[0][1] * m[1][0]
      : m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
        m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
        m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  const d = det(A);
  const sol = B.map((_, k) => det(A.map((row, i) => row.map((v, j) => (j === k ? B[i] : v)))) / d);
  return { a: sol[0], b: sol[1], c: varies ? sol[2] : undefined };
}

/** Writes the generated releases as directories, with `extra` ConfigMaps at run level 50 in both. */
async function releases(root, extra) {
  const { generateRehearsalReleases } = await import('@keelson/payload-gen');
  const mco = join(fileURLToPath(new URL('../../machine-config-operator/manifests', import.meta.url)));
  const hasMco = (await readdir(mco).catch(() => [])).some((n) => n.startsWith('0000_80_machine-config_'));
  const rel = await generateRehearsalReleases({ out: root, ...(hasMco ? { machineConfigManifestsDir: mco } : {}) });
  for (const [dir, version] of [
    [rel.from.dir, rel.from.version],
    [rel.to.dir, rel.to.version],
  ]) {
    for (let i = 0; i < extra; i++) {
      const name = `bench-${String(i).padStart(4, '0')}`;
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: openshift-ingress-operator\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\ndata:\n  release: "${version}"\n`;
      await writeFile(
        join(dir, 'release-manifests', `0000_50_bench_${String(i).padStart(4, '0')}_configmap.yaml`),
        yaml,
      );
    }
  }
  return { from: rel.from.dir, to: rel.to.dir };
}

async function parent() {
  const timeScale = Number(values['time-scale']);
  const masters = Number(values.masters);
  const workers = values.workers.split(',').map(Number);
  const extras = values.extra
    .split(',')
    .map(Number)
    .filter((x) => x > 0);
  const root = await mkdtemp(join(tmpdir(), 'keelson-overhead-releases-'));
  const plain = await releases(join(root, 'plain'), 0);
  const runs = workers.map((w) => ({ workers: w, extra: 0, rel: plain }));
  for (const x of extras)
    runs.push({ workers: workers[0], extra: x, rel: await releases(join(root, `extra-${x}`), x) });
  const rows = [];
  try {
    for (const run of runs) {
      const r = await runChild({
        from: run.rel.from,
        to: run.rel.to,
        masters,
        workers: run.workers,
        timeScale,
        timeout: Number(values.timeout),
        maxUnavailable: values['max-unavailable'],
      });
      if (r.outcome !== 'Completed')
        throw new Error(`workers=${run.workers} extra=${run.extra}: ${r.outcome}: ${r.message}`);
      const sim = simulatedMs(r, timeScale);
      const nodes = masters + run.workers;
      const row = {
        nodes,
        workers: run.workers,
        manifests: r.manifests,
        updateMs: r.updateMs,
        installMs: r.installMs,
        simulatedMs: sim,
        overheadMs: r.updateMs - sim,
        api: r.api,
        apiPerNode: Math.round(r.api / nodes),
        updateApi: r.updateApi,
        updateApiPerNode: Math.round(r.updateApi / nodes),
        updateRoutes: r.updateRoutes,
        maxRssMb: Math.round(r.maxRssKb / 1024),
        processMs: r.processMs,
        maxUnavailableSeen: r.pools.map((p) => `${p.name} ${p.maxUnavailableSeen}/${p.maxUnavailable}`).join(', '),
      };
      rows.push(row);
      process.stderr.write(`${JSON.stringify({ ...row, updateRoutes: undefined })}\n`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const f = fit(rows.map((r) => ({ x1: r.nodes, x2: r.manifests, y: r.overheadMs })));
  console.log(`time scale ${timeScale} (reboot ${Math.round(REBOOT_MS / timeScale)} ms), ${masters} masters`);
  console.log(
    '| nodes | manifests | update wall | simulated waits | overhead | install wall | API requests (per node) | of which the update (per node) | peak RSS | max unavailable |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of rows)
    console.log(
      `| ${r.nodes} | ${r.manifests} | ${(r.updateMs / 1000).toFixed(1)} s | ${(r.simulatedMs / 1000).toFixed(1)} s | ${(r.overheadMs / 1000).toFixed(1)} s | ${(r.installMs / 1000).toFixed(1)} s | ${r.api} (${r.apiPerNode}) | ${r.updateApi} (${r.updateApiPerNode}) | ${r.maxRssMb} MB | ${r.maxUnavailableSeen} |`,
    );
  console.log(
    `fit: overhead ≈ ${(f.a / 1000).toFixed(2)} s + ${f.b.toFixed(0)} ms x nodes${f.c !== undefined ? ` + ${f.c.toFixed(1)} ms x manifests` : ''}`,
  );
  // where the update's requests go: the busiest routes of the largest run
  const big = rows.at(-1 - extras.length) ?? rows.at(-1);
  if (big !== undefined) {
    console.log(`update requests by route (${big.nodes} nodes, top 15 of ${Object.keys(big.updateRoutes).length}):`);
    for (const [route, n] of Object.entries(big.updateRoutes)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 15))
      console.log(`  ${String(n).padStart(7)}  ${route}`);
  }
  if (values.json !== undefined)
    await writeFile(values.json, `${JSON.stringify({ timeScale, masters, rows, fit: f }, null, 2)}\n`);
}
