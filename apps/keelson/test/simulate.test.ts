/**
 * `keelson simulate operators` as a real child process against the embedded sandbox (upstream CRDs over HTTP),
 * and its flag parsing.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseDuration, parseFault } from '../src/commands/simulate.js';
import { CliError } from '../src/errors.js';
import { BIN, cli } from './cli-helpers.js';

vi.setConfig({ testTimeout: 30_000 });

describe('flag parsing', () => {
  it('parses faults', () => {
    expect(parseFault('degraded=dns')).toEqual({ name: 'dns', fault: { kind: 'degraded' } });
    expect(parseFault('degraded=dns:DNSDown:no pods: at all')).toEqual({
      name: 'dns',
      fault: { kind: 'degraded', reason: 'DNSDown', message: 'no pods: at all' },
    });
    expect(parseFault('not-upgradeable=ingress:ack the change')).toEqual({
      name: 'ingress',
      fault: { kind: 'not-upgradeable', message: 'ack the change' },
    });
    expect(parseFault('slow=etcd:2m')).toEqual({ name: 'etcd', fault: { kind: 'slow', extraDelayMs: 120_000 } });
    expect(parseFault('never=console')).toEqual({ name: 'console', fault: { kind: 'never' } });
    expect(() => parseFault('broken=dns')).toThrow(CliError);
    expect(() => parseFault('degraded=')).toThrow('--fault must be KIND=NAME[:ARG]');
  });
  it('parses durations', () => {
    expect(['250ms', '2s', '1.5s', '1m', '1h', '1m30s'].map((d) => parseDuration(d, '--delay'))).toEqual([
      250, 2000, 1500, 60_000, 3_600_000, 90_000,
    ]);
    // a bare number is a usage error, as in Go's time.ParseDuration (it used to mean milliseconds)
    expect(() => parseDuration('250', '--delay')).toThrow(/missing unit/);
    expect(() => parseDuration('soon', '--delay')).toThrow('--delay must be a duration');
  });
});

describe('keelson simulate operators (child process)', () => {
  let sb: Sandbox;
  let dir: string;
  let kubeconfig: string;
  const req = async (
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: unknown }> => {
    const init: RequestInit = { method, headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': contentType } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`${sb.url}${path}`, init);
    return { status: res.status, body: await res.json() };
  };
  beforeAll(async () => {
    sb = await startSandbox({ openshiftCrds: ['ClusterVersion', 'ClusterOperator'] });
    dir = await mkdtemp(join(tmpdir(), 'keelson-simulate-'));
    kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await sb.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports ClusterOperators with the given faults and stops on SIGTERM', async () => {
    await req('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11' },
    });
    const cv = (await req('GET', '/apis/config.openshift.io/v1/clusterversions/version')).body as Record<
      string,
      unknown
    >;
    expect(
      (
        await req('PUT', '/apis/config.openshift.io/v1/clusterversions/version/status', {
          ...cv,
          status: {
            desired: { version: '4.18.3', image: 'quay.io/r/release@sha256:' + 'a'.repeat(64) },
            availableUpdates: null,
            observedGeneration: 1,
            versionHash: 'h',
          },
        })
      ).status,
    ).toBe(200);
    for (const name of ['etcd', 'dns'])
      await req('POST', '/apis/config.openshift.io/v1/clusteroperators', {
        apiVersion: 'config.openshift.io/v1',
        kind: 'ClusterOperator',
        metadata: { name },
        spec: {},
      });

    const child = spawn(
      process.execPath,
      [
        BIN,
        'simulate',
        'operators',
        '--kubeconfig',
        kubeconfig,
        '--delay',
        '50ms',
        '--fault',
        'degraded=dns:DNSDown:no pods',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 20_000;
      let dns: { status?: { versions?: unknown; conditions?: { type: string; status: string; reason?: string }[] } } =
        {};
      for (;;) {
        dns = (await req('GET', '/apis/config.openshift.io/v1/clusteroperators/dns')).body as typeof dns;
        const etcd = (await req('GET', '/apis/config.openshift.io/v1/clusteroperators/etcd')).body as typeof dns;
        if (dns.status?.versions !== undefined && etcd.status?.versions !== undefined) break;
        if (Date.now() > deadline) throw new Error(`no report; simulator said:\n${stdout}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(dns.status?.versions).toEqual([{ name: 'operator', version: '4.18.3' }]);
      expect(dns.status?.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({
        status: 'True',
        reason: 'DNSDown',
      });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const logs = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; component: string });
    expect(logs.every((l) => l.component === 'operator-simulator')).toBe(true);
    expect(logs.map((l) => l.msg)).toContain('simulated cluster operator reported');
    expect(logs.at(-1)?.msg).toBe('cluster-operator simulator stopped');
  });

  it('needs a kubeconfig', async () => {
    const r = await cli('simulate', 'operators', '--kubeconfig', join(dir, 'missing'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot read kubeconfig');
  });
});
