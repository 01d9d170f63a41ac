/**
 * The built `machine-config-server` as a real child process: usage errors, both listeners serving, SIGTERM exit.
 * Needs the build (`pnpm turbo run build --filter=@keelson/machine-config-operator`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTls, type TlsMaterial } from '@keelson/kube-sandbox';
import { createMc, createPool, machineConfig, startEnv, type TestEnv } from './daemon-helpers.js';

const BIN = fileURLToPath(new URL('../dist/bin/machine-config-server.js', import.meta.url));

describe('machine-config-server CLI', () => {
  let env: TestEnv;
  let tls: TlsMaterial;
  beforeAll(async () => {
    env = await startEnv();
    tls = await generateTls();
    await createMc(env.client, machineConfig('rendered-worker-1', { files: { '/etc/motd': 'hi\n' } }));
    await createPool(env.client, 'worker', 'rendered-worker-1');
  }, 60_000);
  afterAll(async () => {
    await env.stop();
  });

  it('refuses to start without --apiserver-url (exit 2, usage)', () => {
    const r = spawnSync(process.execPath, [BIN, 'start'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--apiserver-url is required');
  });

  it('serves /healthz over HTTPS and /config/worker over HTTP, stops on SIGTERM', async () => {
    const dir = join(env.dir, 'cli');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tls.crt'), tls.serverCert);
    writeFileSync(join(dir, 'tls.key'), tls.serverKey);
    writeFileSync(join(dir, 'token'), 'tok');
    writeFileSync(join(dir, 'ca.crt'), tls.caCert);
    const kubeconfig = await env.sandbox.writeKubeconfig(join(dir, 'kubeconfig'));
    const child = spawn(
      process.execPath,
      [
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
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const urls = await new Promise<{ https: string; http: string }>((resolve, reject) => {
        let err = '';
        child.stderr?.on('data', (c: Buffer) => {
          err += c.toString();
          const m = /"https":"(https:[^"]+)","http":"(http:[^"]+)"/.exec(err);
          if (m?.[1] && m[2]) resolve({ https: m[1], http: m[2] });
        });
        setTimeout(() => reject(new Error(`no URLs logged: ${err}`)), 30_000);
      });
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${urls.https}/healthz`, { ca: tls.caCert }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
      const r = await fetch(`${urls.http}/config/worker`, {
        headers: { Accept: 'application/vnd.coreos.ignition+json;version=3.5.0' },
      });
      expect(r.status).toBe(200);
      const cfg = (await r.json()) as { storage: { files: { path: string }[] } };
      expect(cfg.storage.files.map((f) => f.path)).toContain('/etc/kubernetes/kubeconfig');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit).toBe(0);
  }, 60_000);
});
