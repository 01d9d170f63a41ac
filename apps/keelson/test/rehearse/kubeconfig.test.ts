/**
 * `keelson rehearse --kubeconfig FILE` against an API server it did not start: `keelson sandbox start` as a separate
 * child process (HTTPS, its own CA, pods simulated), reached only through the kubeconfig it writes, so the rehearsal
 * takes the same code path as against kind, k3s or a real kube-apiserver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '@keelson/kube';
import { buildKubeconfig, kubeconfigYaml } from '@keelson/kube-sandbox';
import type { RehearsalReport } from '@keelson/rehearsal';
import { BIN, cli } from '../cli-helpers.js';

let dir = '';
let server: ChildProcess | undefined;
let kubeconfig = '';
let admin: KubeClient;
let state: { url: string; token: string; caCert?: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keelson-rehearse-kubeconfig-'));
  const proc = spawn(
    process.execPath,
    [BIN, 'sandbox', 'start', '--simulate-pods', '--state-dir', join(dir, 'state')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server = proc;
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  for (let i = 0; i < 600 && !out.includes('kubeconfig:'); i++) await new Promise((r) => setTimeout(r, 50));
  kubeconfig = /kubeconfig: (\S+)/.exec(out)?.[1] ?? '';
  if (kubeconfig === '') throw new Error(`keelson sandbox start did not come up: ${out}`);
  state = JSON.parse(await readFile(join(dir, 'state', 'sandbox.json'), 'utf8')) as typeof state;
  admin = KubeClient.fromKubeconfigFile(kubeconfig);
}, 60_000);

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((r) => server?.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

type ApiResource = { name: string; verbs?: string[] };

/** Every object the server holds, as `group/version resource namespace/name` (discovery, then a list of each resource). */
async function everything(): Promise<string[]> {
  const groups = await admin.request<{ groups: { preferredVersion: { groupVersion: string } }[] }>('GET', '/apis');
  const gvs = ['/api/v1', ...groups.groups.map((g) => `/apis/${g.preferredVersion.groupVersion}`)];
  const out: string[] = [];
  for (const gv of gvs) {
    const { resources } = await admin.request<{ resources: ApiResource[] }>('GET', gv);
    for (const r of resources) {
      if (r.name.includes('/') || !(r.verbs ?? []).includes('list')) continue;
      const list = await admin.request<{ items?: { metadata: { namespace?: string; name: string } }[] }>(
        'GET',
        `${gv}/${r.name}`,
      );
      for (const i of list.items ?? []) out.push(`${gv} ${r.name} ${i.metadata.namespace ?? ''}/${i.metadata.name}`);
    }
  }
  return out.sort();
}

const SMALL = ['--masters', '1', '--workers', '1', '--time-scale', '600', '--timeout', '240'];

describe('keelson rehearse --kubeconfig', { timeout: 600_000 }, () => {
  it('rehearses against the separate server, then deletes what it created and keeps what was there', async () => {
    // an object of the bootstrap's that the admin already has: never overwritten nor deleted
    await admin.request('POST', '/api/v1/namespaces/kube-system/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'root-ca' }, data: { 'ca.crt': 'mine' } },
    });
    const before = await everything();
    const r = await cli('rehearse', '--kubeconfig', kubeconfig, '--json', ...SMALL);
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report.outcome, `${report.message}\n${r.stderr}`).toBe('Completed');
    expect(r.code).toBe(0);
    // the components' traffic went through the rehearsal's proxy to this server
    expect(report.api.total).toBeGreaterThan(500);
    expect(report.pools.map((p) => [p.name, p.updated])).toEqual([
      ['master', 1],
      ['worker', 1],
    ]);
    expect(r.stderr).toMatch(new RegExp(`cleaned up ${state.url}: \\d+ objects deleted \\(\\d+ namespaces, \\d+ CRDs`));
    expect(r.stderr).not.toMatch(/could not delete|still terminating/);
    expect(await everything()).toEqual(before);
    const mine = await admin.request<{ data: Record<string, string> }>(
      'GET',
      '/api/v1/namespaces/kube-system/configmaps/root-ca',
    );
    expect(mine.data).toEqual({ 'ca.crt': 'mine' });
  });

  it('--keep leaves the rehearsed cluster; a next rehearsal then refuses it as not empty, writing nothing', async () => {
    const r = await cli('rehearse', '--kubeconfig', kubeconfig, '--json', '--keep', ...SMALL);
    expect((JSON.parse(r.stdout) as RehearsalReport).outcome).toBe('Completed');
    expect(r.stderr).toContain(`--keep: what the rehearsal created stays in ${state.url}`);
    const cv = await admin.request<{ status: { history: { state: string; version: string }[] } }>(
      'GET',
      '/apis/config.openshift.io/v1/clusterversions/version',
    );
    expect(cv.status.history[0]).toMatchObject({ state: 'Completed', version: '4.18.8' });
    const kept = await everything();
    const again = await cli('rehearse', '--kubeconfig', kubeconfig, '-q', ...SMALL);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(
      new RegExp(
        `^error: --kubeconfig ${kubeconfig}: the cluster at ${state.url} is not empty of OpenShift objects: it has \\d+ CustomResourceDefinitions of OpenShift API groups \\(.*clusterversions\\.config\\.openshift\\.io.*\\), \\d+ openshift-\\* namespaces \\(.*\\), 2 Nodes with the names of the rehearsal's machines \\(master-0, worker-0\\)`,
      ),
    );
    expect(again.stderr).toContain('[NOT_EMPTY]');
    expect(await everything()).toEqual(kept);
  });

  it('refuses an identity without the rights, before writing anything', async () => {
    await admin.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nobody' } },
    });
    const tr = await admin.request<{ status: { token: string } }>(
      'POST',
      '/api/v1/namespaces/default/serviceaccounts/nobody/token',
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [] } } },
    );
    const file = join(dir, 'nobody.kubeconfig');
    await writeFile(
      file,
      kubeconfigYaml(
        buildKubeconfig({
          server: state.url,
          token: tr.status.token,
          ...(state.caCert !== undefined ? { caCert: state.caCert } : {}),
        }),
      ),
    );
    const before = await everything();
    const r = await cli('rehearse', '--kubeconfig', file, '-q', ...SMALL);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).toContain(
      `error: --kubeconfig ${file}: the identity it authenticates as (at ${state.url}) lacks the rights a rehearsal needs (cluster-admin): cannot create customresourcedefinitions.apiextensions.k8s.io (install the CRDs);`,
    );
    expect(r.stderr).toContain(
      'cannot use every verb on every resource of every group (the CVO applies every kind of a release',
    );
    expect(r.stderr).toContain('Nothing was written [NO_RIGHTS]');
    expect(await everything()).toEqual(before);
  });

  it('refuses a kubeconfig it cannot load as a usage error', async () => {
    const file = join(dir, 'broken.kubeconfig');
    await writeFile(file, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\n');
    const r = await cli('rehearse', '--kubeconfig', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--kubeconfig ${file}: its current-context names no cluster with a server URL`);
  });
});
