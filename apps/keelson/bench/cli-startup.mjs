#!/usr/bin/env node
// Whole-process start-up of the CLI (issue 25 goal 1): `keelson --help`, `keelson payload graph DIR --format dot` on a
// large generated payload (payload-gen defaults, ~900 manifests) and on a 4-manifest one, `keelson mc render --pool
// worker` with 5 MachineConfigs, against the floor: a bare `node -e ''`. Each command runs `--runs` times after
// `--warmup` runs (the first run fills Node's compile cache); reports the mean wall time and the mean CPU time
// (user + system, which load on a shared machine disturbs less than wall time), from hyperfine when it is installed
// (`apt-get install hyperfine`), else from its own loop.
// Usage (build first: pnpm turbo run build --filter=keelson-cli...): node bench/cli-startup.mjs [--runs 20] [--warmup 3] [--json FILE]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    json: { type: 'string' },
  },
});
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const VECTORS = fileURLToPath(new URL('../test/fixtures/upstream/vectors/mco-vectors.json', import.meta.url));
if (!existsSync(BIN)) throw new Error(`${BIN} missing: build keelson-cli first`);

/** The three inputs: a large payload, a 4-manifest one, a directory of 5 worker MachineConfigs. */
async function fixtures(root) {
  const { generatePayload, writeTestRelease } = await import('@keelson/payload-gen');
  const big = join(root, 'big');
  const gen = await generatePayload({ out: big, seed: 1 });
  // four manifests: two components' ConfigMap and Deployment of the small test release (run levels 50 and 70)
  const small = join(root, 'small');
  await writeTestRelease(small, { version: '4.18.1' });
  const four = join(root, 'four');
  mkdirSync(join(four, 'manifests'), { recursive: true });
  mkdirSync(join(four, 'release-manifests'));
  for (const f of [
    'release-metadata',
    'image-references',
    '0000_50_dns_01_config.yaml',
    '0000_50_dns_02_deployment.yaml',
    '0000_70_console_01_config.yaml',
    '0000_70_console_02_deployment.yaml',
  ]) {
    cpSync(join(small, 'release-manifests', f), join(four, 'release-manifests', f));
  }
  // five MachineConfigs of role worker: the first five of the upstream all-fields merge vector
  const mcs = join(root, 'mcs');
  mkdirSync(mcs);
  const v = JSON.parse(readFileSync(VECTORS, 'utf8')).vectors.find(
    (x) => x.name === 'TestMergeMachineConfigs/all-fields',
  );
  for (const c of v.input.configs.slice(0, 5)) {
    const { configRaw, ...spec } = c.spec;
    const mc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: c.name, labels: c.labels ?? undefined },
      spec: configRaw === undefined ? spec : { ...spec, config: JSON.parse(configRaw) },
    };
    writeFileSync(join(mcs, `${c.name}.json`), JSON.stringify(mc));
  }
  return { big, bigManifests: gen.manifests, four, mcs };
}

function hasHyperfine() {
  return spawnSync('hyperfine', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Mean wall and CPU ms of one command line over `runs` runs. */
function measure(name, argv, runs, warmup, tmp) {
  if (hasHyperfine()) {
    const out = join(tmp, `${name.replace(/\W+/g, '_')}.json`);
    execFileSync(
      'hyperfine',
      [
        '-N',
        '--style',
        'none',
        '-w',
        String(warmup),
        '-r',
        String(runs),
        '--export-json',
        out,
        argv.map((a) => (a === '' || /[\s'"]/.test(a) ? `'${a}'` : a)).join(' '),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const r = JSON.parse(readFileSync(out, 'utf8')).results[0];
    return { name, wallMs: r.mean * 1000, cpuMs: (r.user + r.system) * 1000, runs };
  }
  // without hyperfine: wall time only (a child's CPU time is not visible from here)
  let wall = 0;
  for (let i = 0; i < warmup + runs; i++) {
    const t = performance.now();
    const r = spawnSync(argv[0], argv.slice(1), { stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}`);
    if (i >= warmup) wall += performance.now() - t;
  }
  return { name, wallMs: wall / runs, cpuMs: Number.NaN, runs };
}

const runs = Number(values.runs);
const warmup = Number(values.warmup);
const root = mkdtempSync(join(tmpdir(), 'keelson-cli-startup-'));
try {
  const f = await fixtures(root);
  const node = process.execPath;
  const rows = [
    measure("node -e ''", [node, '-e', ''], runs, warmup, root),
    measure('keelson --help', [node, BIN, '--help'], runs, warmup, root),
    measure(
      `keelson payload graph (${f.bigManifests} manifests)`,
      [node, BIN, 'payload', 'graph', f.big, '--format', 'dot'],
      runs,
      warmup,
      root,
    ),
    measure(
      'keelson payload graph (4 manifests)',
      [node, BIN, 'payload', 'graph', f.four, '--format', 'dot'],
      runs,
      warmup,
      root,
    ),
    measure(
      'keelson mc render --pool worker (5 MCs)',
      [node, BIN, 'mc', 'render', '--pool', 'worker', f.mcs],
      runs,
      warmup,
      root,
    ),
  ];
  const floor = rows[0];
  console.log(`| command | wall (mean of ${runs}) | CPU user+sys | wall ÷ bare node |`);
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of rows)
    console.log(
      `| \`${r.name}\` | ${r.wallMs.toFixed(0)} ms | ${Number.isNaN(r.cpuMs) ? '—' : `${r.cpuMs.toFixed(0)} ms`} | ${(r.wallMs / floor.wallMs).toFixed(1)}× |`,
    );
  if (values.json !== undefined)
    writeFileSync(values.json, `${JSON.stringify({ node: process.version, rows }, null, 2)}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
