/**
 * Issue 22 §5: the real bin serves metrics over HTTPS only, as upstream `Options.ValidateAndComplete` requires: a
 * non-empty `--listen` without `--serving-cert-file`/`--serving-key-file` is refused with upstream's text; with the pair
 * (an `openssl` CA and serving certificate) the endpoint is HTTPS and `/metrics` wants a client certificate.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startCluster, waitFor, writeFixturePayload } from './helpers.js';

const BIN = new URL('../dist/bin/cluster-version-operator.js', import.meta.url).pathname;
const IMAGE = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
let sandbox: Sandbox;
let kubeconfig: string;
let dir: string;
let payload: string;
const children: ChildProcess[] = [];

function start(flags: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'start',
      `--kubeconfig=${kubeconfig}`,
      `--payload-dir=${payload}`,
      `--release-image=${IMAGE}`,
      `--payload-cache=${join(dir, 'cache')}`,
      '--update-service=http://127.0.0.1:9/graph',
      ...flags,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  for (const s of [child.stdout, child.stderr]) s?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exited };
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  ({ sandbox, kubeconfig, dir } = await startCluster());
  payload = await writeFixturePayload(join(dir, 'payload'), '4.18.0');
  const ssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=service-ca']);
  ssl(['req', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', '/CN=127.0.0.1']);
  await writeFile(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  ssl([
    'x509',
    '-req',
    '-in',
    'tls.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'tls.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the metrics listener of the process (upstream --listen / --serving-cert-file)', { timeout: 60_000 }, () => {
  it('refuses a listen address without the serving pair, with upstream texts', async () => {
    const noCert = start(['--listen=127.0.0.1:0']);
    expect(await noCert.exited).not.toBe(0);
    expect(noCert.output()).toContain('--listen was not set empty, so --serving-cert-file must be set');
    const noKey = start(['--listen=127.0.0.1:0', `--serving-cert-file=${join(dir, 'tls.crt')}`]);
    expect(await noKey.exited).not.toBe(0);
    expect(noKey.output()).toContain('--listen was not set empty, so --serving-key-file must be set');
  });

  it('serves HTTPS with the pair; /metrics needs a client certificate', async () => {
    const p = start([
      '--listen=127.0.0.1:0',
      `--serving-cert-file=${join(dir, 'tls.crt')}`,
      `--serving-key-file=${join(dir, 'tls.key')}`,
    ]);
    const url = await waitFor(
      () => Promise.resolve(/"msg":"started".*?"metrics":"(https:\/\/[^"]+)"/.exec(p.output())?.[1]),
      30_000,
      'started with a metrics URL',
    );
    const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
    expect(await get(`${url}/healthz`, ca)).toMatchObject({ status: 200 });
    const metrics = await get(`${url}/metrics`, ca);
    expect(metrics.status).toBe(401);
    expect(metrics.body).toContain('client certificate required');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
