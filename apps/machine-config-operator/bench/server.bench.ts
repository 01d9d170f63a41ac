/**
 * machine-config-server throughput: the built `machine-config-server start` runs as a child process (HTTPS with an
 * openssl-generated certificate, informers against an embedded API server in this process). The load comes from
 * LOADERS child processes (`bench/server-load.ts`), each with CONNECTIONS keep-alive TLS sockets sending GET
 * /config/<pool> (Accept: Ignition 3.5.0) one request in flight per socket, so neither the embedded API server nor
 * the client's HTTP stack shares the server's event loop. Reports req/s and latency percentiles for a small rendered
 * config (one file, ~9 KB served) and a large one (60 files, ~660 KB served: the files appear in the Ignition and
 * again in the appended MachineConfig). Env: MCS_BENCH_LOADERS (default 1), MCS_BENCH_CONNECTIONS (per loader,
 * default 16), MCS_BENCH_DURATION_MS (per sample, default 3000), MCS_BENCH_PROF (directory for a CPU profile of the server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { generateTls, type TlsMaterial } from '@keelson/kube-sandbox';
import { createMc, createPool, machineConfig, startEnv, type TestEnv } from '../test/daemon-helpers.js';

const BIN = fileURLToPath(new URL('../dist/bin/machine-config-server.js', import.meta.url));
const LOADER = fileURLToPath(new URL('./server-load.ts', import.meta.url));
const LOADERS = Number(process.env['MCS_BENCH_LOADERS'] ?? '1');
const CONNECTIONS = Number(process.env['MCS_BENCH_CONNECTIONS'] ?? '16');
const DURATION_MS = Number(process.env['MCS_BENCH_DURATION_MS'] ?? '3000');
const ACCEPT = 'application/vnd.coreos.ignition+json;version=3.5.0';

let env: TestEnv;
let tls: TlsMaterial;
let caFile = '';
let child: ChildProcess;
let url = '';

/** One GET through node:https (warm-up and sanity check of the body). */
function getOnce(pool: string): Promise<number> {
  const agent = new Agent({ keepAlive: false });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/config/${pool}`, { agent, ca: tls.caCert, headers: { Accept: ACCEPT } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
      });
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${String(res.statusCode)}`));
        else resolve(n);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface LoadResult {
  requests: number;
  ms: number;
  errors: number;
  bytes: number;
  latencies: number[];
}

/** Runs the load generators once against /config/<pool> and merges their results. */
async function load(pool: string, durationMs: number): Promise<LoadResult> {
  const runs = Array.from(
    { length: LOADERS },
    () =>
      new Promise<LoadResult>((resolve, reject) => {
        const p = spawn(process.execPath, [LOADER], {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: {
            ...process.env,
            MCS_URL: url,
            MCS_PATH: `/config/${pool}`,
            MCS_ACCEPT: ACCEPT,
            MCS_CA: caFile,
            MCS_CONNECTIONS: String(CONNECTIONS),
            MCS_DURATION_MS: String(durationMs),
          },
        });
        let out = '';
        p.stdout.on('data', (c: Buffer) => {
          out += c.toString();
        });
        p.on('exit', (code) => {
          if (code !== 0) reject(new Error(`load generator exited ${String(code)}`));
          else resolve(JSON.parse(out) as LoadResult);
        });
      }),
  );
  const all = await Promise.all(runs);
  return {
    requests: all.reduce((a, r) => a + r.requests, 0),
    ms: Math.max(...all.map((r) => r.ms)),
    errors: all.reduce((a, r) => a + r.errors, 0),
    bytes: all.reduce((a, r) => a + r.bytes, 0),
    latencies: all.flatMap((r) => r.latencies),
  };
}

describe('machine-config-server', () => {
  beforeAll(async () => {
    env = await startEnv();
    tls = await generateTls();
    const dir = join(env.dir, 'mcs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tls.crt'), tls.serverCert);
    writeFileSync(join(dir, 'tls.key'), tls.serverKey);
    writeFileSync(join(dir, 'token'), 'token');
    writeFileSync(join(dir, 'ca.crt'), tls.caCert);
    caFile = join(dir, 'ca.crt');
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`/etc/bench/file-${i}.conf`] = `# file ${i}\n${'option = value with some text\n'.repeat(100)}`;
    await createMc(env.client, machineConfig('rendered-worker-bench', { files, sshKeys: ['ssh-ed25519 AAAA bench'] }));
    await createPool(env.client, 'worker', 'rendered-worker-bench');
    await createMc(
      env.client,
      machineConfig('rendered-small-bench', { files: { '/etc/motd': 'hello\n' }, sshKeys: ['ssh-ed25519 AAAA bench'] }),
    );
    await createPool(env.client, 'small', 'rendered-small-bench');
    const kubeconfig = await env.sandbox.writeKubeconfig(join(dir, 'kubeconfig'));
    // MCS_BENCH_PROF=<dir>: CPU profile of the server process (written when it exits)
    const prof = process.env['MCS_BENCH_PROF'];
    child = spawn(
      process.execPath,
      [
        ...(prof !== undefined ? ['--cpu-prof', '--cpu-prof-dir', prof] : []),
        BIN,
        'start',
        '--apiserver-url',
        'https://api:6443',
        '--kubeconfig',
        kubeconfig,
        '--cert',
        join(dir, 'tls.crt'),
        '--key',
        join(dir, 'tls.key'),
        '--secure-port',
        '0',
        '--insecure-port',
        '0',
        '--host',
        '127.0.0.1',
        '--bootstrap-token-dir',
        dir,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr?.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /"url":"(https:[^"]+)"/.exec(err);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`server exited: ${err}`)));
    });
    await getOnce('small');
  }, 60_000);

  const report = (label: string, samples: LoadResult[]): void => {
    const latencies = samples.flatMap((r) => r.latencies).sort((a, b) => a - b);
    const pct = (p: number): string =>
      (latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN).toFixed(2);
    const rates = samples.map((r) => Math.round((r.requests / r.ms) * 1000));
    const errors = samples.reduce((a, r) => a + r.errors, 0);
    const requests = samples.reduce((a, r) => a + r.requests, 0);
    console.log(
      `machine-config-server ${label}: ${requests} requests, req/s per ${DURATION_MS} ms sample ${rates.join(' / ')} over ${LOADERS}x${CONNECTIONS} keep-alive HTTPS connections (child-process load generators); latency p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms; errors ${errors}; loadavg ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
  };
  afterAll(async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await env.stop();
  });

  // throughput measurements (many concurrent requests per sample), printed as they finish
  for (const [p, label] of [
    ['small', 'small config (1 file)'],
    ['worker', 'large config (60 files)'],
  ] as const) {
    test(`GET /config/${p}: 3 samples over keep-alive HTTPS connections`, async () => {
      const bytes = await getOnce(p);
      await load(p, 1000); // warm-up (JIT, TLS sessions)
      const samples: LoadResult[] = [];
      for (let i = 0; i < 3; i++) samples.push(await load(p, DURATION_MS));
      report(`${label}, ${bytes} B`, samples);
    }, 600_000);
  }
});
