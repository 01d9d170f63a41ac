/**
 * machine-config-server over real HTTPS (certificates from openssl via generateTls) against the embedded API
 * server: every Accept-header case of the reference, routes and methods, what is served (appended files in
 * upstream order, encapsulated config, kubeconfig, CA bundle), the served-config cache, and a virtual machine
 * that boots from /config/worker and is accepted by the daemon as its first boot.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTls, type TlsMaterial } from '@keelson/kube-sandbox';
import { ControllerConfigs, MachineConfigPools } from '@keelson/kube';
import { NODE_ANNOTATIONS } from '@keelson/api';
import { decodeDataUrl } from '../src/daemon/dataurl.js';
import { startMachineConfigServer, type MachineConfigServer } from '../src/server/server.js';
import { startVirtualNodes } from '../src/virtual/harness.js';
import {
  DrainResponder,
  annotation,
  createMc,
  createPool,
  machineConfig,
  startEnv,
  until,
  untilDone,
  type TestEnv,
} from './daemon-helpers.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const IGN = 'application/vnd.coreos.ignition+json';

describe('machine-config-server over HTTPS', () => {
  let env: TestEnv;
  let tls: TlsMaterial;
  let mcs: MachineConfigServer;

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const url = new URL(path, mcs.secureUrl);
      const req = request(url, { method, headers, ca: tls.caCert }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  const version = (r: Reply): string => (JSON.parse(r.body) as { ignition: { version: string } }).ignition.version;

  beforeAll(async () => {
    env = await startEnv();
    tls = await generateTls();
    const certDir = join(env.dir, 'tls');
    const tokenDir = join(env.dir, 'token');
    mkdirSync(certDir);
    mkdirSync(tokenDir);
    writeFileSync(join(certDir, 'tls.crt'), tls.serverCert);
    writeFileSync(join(certDir, 'tls.key'), tls.serverKey);
    writeFileSync(join(tokenDir, 'token'), 'bootstrap-token-123');
    writeFileSync(join(tokenDir, 'ca.crt'), tls.caCert);
    await createMc(
      env.client,
      machineConfig('rendered-worker-1', {
        files: { '/etc/motd': 'hello\n' },
        sshKeys: ['ssh-ed25519 AAAA key1'],
        kernelArguments: ['nosmt'],
      }),
    );
    await createMc(
      env.client,
      machineConfig('rendered-worker-2', { files: { '/etc/motd': 'hello 2\n' }, sshKeys: ['ssh-ed25519 AAAA key1'] }),
    );
    await createPool(env.client, 'worker', 'rendered-worker-1');
    mcs = await startMachineConfigServer({
      client: env.client,
      apiserverURL: 'https://api-int.example.com:6443',
      cert: join(certDir, 'tls.crt'),
      key: join(certDir, 'tls.key'),
      securePort: 0,
      insecurePort: 0,
      host: '127.0.0.1',
      bootstrapTokenDir: tokenDir,
    });
  }, 60_000);

  afterAll(async () => {
    await mcs.stop();
    await env.stop();
  });

  it.each([
    ['no Accept header', undefined, 200, '2.2.0'],
    ['*/* only', '*/*', 200, '2.2.0'],
    ['version=3.4.0', `${IGN};version=3.4.0`, 200, '3.4.0'],
    ['version=3.5.2 (patch dropped)', `${IGN};version=3.5.2`, 200, '3.5.0'],
    ['newer minor 3.99.0', `${IGN};version=3.99.0`, 200, '3.5.0'],
    ['Ignition 2.x style 2.4.0', `${IGN};version=2.4.0`, 200, '2.2.0'],
    ['q ordering picks the highest q', `${IGN};version=3.1.0;q=0.5, ${IGN};version=3.3.0;q=0.9`, 200, '3.3.0'],
    ['what Ignition sends', `${IGN};version=3.5.0, */*;q=0.1`, 200, '3.5.0'],
    ['malformed semver ignored', `${IGN};version=banana`, 200, '2.2.0'],
    ['entries without a slash ignored', 'garbage', 200, '2.2.0'],
    ['version=4.0.0', `${IGN};version=4.0.0`, 400, undefined],
    ['version=2.1.0', `${IGN};version=2.1.0`, 400, undefined],
    ['version=3.0.0 cannot be converted', `${IGN};version=3.0.0`, 500, undefined],
  ])('Accept: %s', async (_name, accept, status, ver) => {
    const r = await get('/config/worker', accept === undefined ? {} : { Accept: accept });
    expect(r.status).toBe(status);
    if (ver !== undefined) {
      expect(version(r)).toBe(ver);
      expect(r.headers['content-type']).toBe('application/json');
      expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    } else {
      expect(r.body).toBe('');
      expect(r.headers['content-length']).toBe('0');
    }
  });

  it('routes: methods, health, unknown paths, unknown pool', async () => {
    expect((await get('/config/worker', {}, 'POST')).status).toBe(405);
    const head = await get('/config/worker', { Accept: `${IGN};version=3.5.0` }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(100);
    expect((await get('/config/nope')).status).toBe(500);
    const hz = await get('/healthz');
    expect([hz.status, hz.body, hz.headers['content-length']]).toEqual([200, '', '0']);
    expect((await get('/healthz', {}, 'HEAD')).status).toBe(200);
    expect((await get('/healthz', {}, 'POST')).status).toBe(405);
    expect((await get('/')).status).toBe(404);
    expect((await get('/', {}, 'PUT')).status).toBe(405);
    // the plain-HTTP listener (22624) has the same handler
    const plain = await fetch(`${mcs.insecureUrl ?? ''}/config/worker`, {
      headers: { Accept: `${IGN};version=3.2.0` },
    });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { ignition: { version: string } }).ignition.version).toBe('3.2.0');
  });

  it('serves the rendered files then node-annotations, kubeconfig, MC content and the encapsulated MC', async () => {
    const r = await get('/config/worker', { Accept: `${IGN};version=3.5.0` });
    const cfg = JSON.parse(r.body) as {
      storage: { files: { path: string; mode: number; overwrite: boolean; contents: { source: string } }[] };
    };
    const paths = cfg.storage.files.map((f) => f.path);
    expect(paths).toEqual([
      '/etc/motd',
      '/etc/kubernetes/kubelet-ca.crt',
      '/etc/machine-config-daemon/node-annotations.json',
      '/etc/kubernetes/kubeconfig',
      '/etc/mcs-machine-config-content.json',
      '/etc/ignition-machine-config-encapsulated.json',
    ]);
    const file = (p: string) => {
      const f = cfg.storage.files.find((x) => x.path === p);
      if (!f) throw new Error(p);
      expect([f.mode, f.overwrite]).toEqual([420, true]);
      return decodeDataUrl(f.contents.source, p).toString('utf8');
    };
    expect(JSON.parse(file('/etc/machine-config-daemon/node-annotations.json'))).toEqual({
      'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-1',
      'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-1',
      'machineconfiguration.openshift.io/firstPivotConfig': 'rendered-worker-1',
      'machineconfiguration.openshift.io/state': 'Done',
    });
    expect(file('/etc/kubernetes/kubeconfig')).toContain('server: https://api-int.example.com:6443');
    expect(file('/etc/kubernetes/kubeconfig')).toContain('token: bootstrap-token-123');
    expect(file('/etc/kubernetes/kubelet-ca.crt')).toContain('BEGIN CERTIFICATE');
    const enc = JSON.parse(file('/etc/ignition-machine-config-encapsulated.json')) as {
      metadata: { name: string };
      spec: { config: unknown; kernelArguments: string[] };
    };
    expect(enc.metadata.name).toBe('rendered-worker-1');
    expect(enc.spec.config).toEqual({ ignition: { version: '3.5.0' } });
    expect(enc.spec.kernelArguments).toEqual(['nosmt']);
    expect(JSON.parse(file('/etc/mcs-machine-config-content.json'))).toMatchObject({
      metadata: { name: 'rendered-worker-1' },
    });
    // 2.2 output keeps kernel arguments in the MC and an encapsulated 2.2 config
    const v2 = JSON.parse((await get('/config/worker')).body) as {
      storage: { files: { path: string; contents: { source: string } }[] };
    };
    const enc2 = v2.storage.files.find((f) => f.path === '/etc/ignition-machine-config-encapsulated.json');
    expect(JSON.parse(decodeDataUrl(enc2?.contents.source ?? '', 'x').toString()).spec.config).toEqual({
      ignition: { version: '2.2.0' },
    });
  });

  it('serves spec.configuration only once a node updated; converted bodies are cached', async () => {
    const pools = env.client.resource(MachineConfigPools);
    const p = await pools.get('worker');
    await pools.update({ ...p, spec: { ...p.spec, configuration: { name: 'rendered-worker-2' } } });
    const body = async () => (await get('/config/worker', { Accept: `${IGN};version=3.5.0` })).body;
    const motd = async () => {
      const files = (
        JSON.parse(await body()) as { storage: { files: { path: string; contents: { source: string } }[] } }
      ).storage.files;
      return decodeDataUrl(files[0]?.contents.source ?? '', 'x').toString();
    };
    expect(await motd()).toBe('hello\n');
    const q = await pools.get('worker');
    await pools.updateStatus({ ...q, status: { ...q.status, updatedMachineCount: 1 } });
    const deadline = Date.now() + 5000;
    while ((await motd()) !== 'hello 2\n' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await motd()).toBe('hello 2\n');
    const hits = mcs.cache.hits;
    await body();
    expect(mcs.cache.hits).toBe(hits + 1);
  });

  it("the served-config cache drops a pool's bodies when its config changes and all bodies when the ControllerConfig changes", async () => {
    const wait = async (what: string, ok: () => boolean | Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 5000;
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const files = async (): Promise<{ path: string; contents: { source: string } }[]> =>
      (
        JSON.parse((await get('/config/worker', { Accept: `${IGN};version=3.5.0` })).body) as {
          storage: { files: { path: string; contents: { source: string } }[] };
        }
      ).storage.files;
    await files();
    await get('/config/worker', { Accept: `${IGN};version=3.4.0` });
    expect(mcs.cache.size).toBeGreaterThanOrEqual(2);
    // the pool serves another rendered config: its cached bodies go
    const pools = env.client.resource(MachineConfigPools);
    const p = await pools.get('worker');
    await pools.update({ ...p, spec: { ...p.spec, configuration: { name: 'rendered-worker-1' } } });
    await wait("the pool's bodies dropped", () => mcs.cache.size === 0);
    expect(decodeDataUrl((await files())[0]?.contents.source ?? '', 'x').toString()).toBe('hello\n');
    // the ControllerConfig changes (a new cloud CA): every body goes, the next one carries the CA
    expect(mcs.cache.size).toBe(1);
    const ccs = env.client.resource(ControllerConfigs);
    const cc = await ccs.get('machine-config-controller');
    await ccs.update({
      ...cc,
      spec: { ...cc.spec, cloudProviderCAData: Buffer.from('CLOUD CA\n').toString('base64') },
    });
    await wait('every body dropped', () => mcs.cache.size === 0);
    const cloud = (await files()).find(
      (f) => f.path === '/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem',
    );
    expect(decodeDataUrl(cloud?.contents.source ?? '', 'x').toString()).toBe('CLOUD CA\n');
    // back to what the next test boots from
    const q = await pools.get('worker');
    await pools.update({ ...q, spec: { ...q.spec, configuration: { name: 'rendered-worker-2' } } });
    await wait("the pool's bodies dropped", () => mcs.cache.size === 0);
  });

  it('a virtual machine booting from /config/worker over HTTPS is accepted by the daemon as its first boot', async () => {
    const drains = await new DrainResponder(env.client).start();
    const vn = await startVirtualNodes({
      client: env.client,
      nodes: [{ name: 'new-worker', role: 'worker' }],
      rootDir: join(env.dir, 'roots'),
      serverUrl: mcs.secureUrl ?? '',
      serverCA: tls.caCert,
    });
    try {
      await untilDone(env.client, 'new-worker', 'rendered-worker-2');
      // node-annotations.json already says Done; the daemon's own Done (after validating the first boot) sets reason ""
      await until(
        async () => (await annotation(env.client, 'new-worker', NODE_ANNOTATIONS.reason)) === '',
        20_000,
        'daemon Done',
      );
      expect(existsSync(join(env.dir, 'roots/new-worker/etc/machine-config-daemon/node-annotation.json.bak'))).toBe(
        true,
      );
      expect(await annotation(env.client, 'new-worker', NODE_ANNOTATIONS.firstPivotConfig)).toBe('rendered-worker-2');
      expect(await annotation(env.client, 'new-worker', NODE_ANNOTATIONS.state)).toBe('Done');
      expect(vn.machines.get('new-worker')?.reboots).toBe(1);
    } finally {
      await vn.stop();
      await drains.stop();
    }
  });
});
