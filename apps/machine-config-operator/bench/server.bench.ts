/**
 * machine-config-server throughput: the built `machine-config-server start` runs as a child process (HTTPS with an
 * openssl-generated certificate, informers against an embedded API server in this process); this process sends
 * batches of GET /config/worker (Accept: Ignition 3.5.0) over 32 keep-alive TLS connections and reports req/s and
 * latency percentiles, for a small rendered config (one file, ~8 KB served) and a large one (60 files, ~190 KB).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { generateTls, type TlsMaterial } from '@keelson/kube-sandbox';
import { createMc, createPool, machineConfig, startEnv, type TestEnv } from '../test/daemon-helpers.js';

const BIN = fileURLToPath(new URL('../dist/bin/machine-config-server.js', import.meta.url));
const BATCH = 2000;
const CONNECTIONS = 32;

let env: TestEnv;
let tls: TlsMaterial;
let child: ChildProcess;
let url = '';
let agent: Agent;
const latencies: number[] = [];
let total = 0;
let totalMs = 0;

function get(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = request(`${url}/config/${pool}`, { agent, ca: tls.caCert, headers: { Accept: 'application/vnd.coreos.ignition+json;version=3.5.0' } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${String(res.statusCode)}`));
        else resolve(performance.now() - t);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let pool = 'worker';

async function batch(): Promise<void> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < BATCH) {
        next++;
        latencies.push(await get());
      }
    }),
  );
  totalMs += performance.now() - t0;
  total += BATCH;
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
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`/etc/bench/file-${i}.conf`] = `# file ${i}\n${'option = value with some text\n'.repeat(100)}`;
    await createMc(env.client, machineConfig('rendered-worker-bench', { files, sshKeys: ['ssh-ed25519 AAAA bench'] }));
    await createPool(env.client, 'worker', 'rendered-worker-bench');
    await createMc(env.client, machineConfig('rendered-small-bench', { files: { '/etc/motd': 'hello\n' }, sshKeys: ['ssh-ed25519 AAAA bench'] }));
    await createPool(env.client, 'small', 'rendered-small-bench');
    const kubeconfig = await env.sandbox.writeKubeconfig(join(dir, 'kubeconfig'));
    child = spawn(process.execPath, [BIN, 'start', '--apiserver-url', 'https://api:6443', '--kubeconfig', kubeconfig, '--cert', join(dir, 'tls.crt'), '--key', join(dir, 'tls.key'), '--secure-port', '0', '--insecure-port', '0', '--host', '127.0.0.1', '--bootstrap-token-dir', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr?.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /"url":"(https:[^"]+)"/.exec(err);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`server exited: ${err}`)));
    });
    agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    await get();
  }, 60_000);

  const report = (label: string): void => {
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]?.toFixed(2);
    console.log(`machine-config-server ${label}: ${total} requests in ${totalMs.toFixed(0)} ms = ${((total / totalMs) * 1000).toFixed(0)} req/s over ${CONNECTIONS} keep-alive HTTPS connections; latency p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)?.toFixed(2)} ms`);
  };
  afterAll(async () => {
    agent.destroy();
    child.kill('SIGTERM');
    await env.stop();
  });

  // throughput measurements (many concurrent requests per sample), printed as they finish
  for (const [p, label] of [['small', 'small config (~8 KB)'], ['worker', 'large config (60 files, ~190 KB)']] as const) {
    test(`GET /config/${p} x${BATCH} x3 over ${CONNECTIONS} keep-alive HTTPS connections`, async () => {
      pool = p;
      await batch(); // warm-up
      latencies.length = 0;
      total = 0;
      totalMs = 0;
      for (let i = 0; i < 3; i++) await batch();
      report(label);
    }, 600_000);
  }
});
