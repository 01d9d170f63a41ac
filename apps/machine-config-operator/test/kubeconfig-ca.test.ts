/**
 * The server-CA rotation of the certificate writer (upstream certificate_writer.go): with
 * `service-ca-rotate: "true"` on the ControllerConfig, the `kubeconfig-data` bundle goes into
 * /etc/kubernetes/kubeconfig when it adds certificates, and the kubelet is restarted with the new CA in its own
 * kubeconfig unless only the short-lived kube-apiserver signers were added. Real certificates (node:crypto issuer),
 * a real temporary root, the ControllerConfig / ConfigMap / Node on the embedded API server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigMaps, ControllerConfigs, EventRecorder, Namespaces, nullLogger } from '@keelson/kube';
import { HostRoot } from '../src/daemon/root.js';
import { NodeWriter, Nodes, SharedNodeInformer } from '../src/daemon/cluster.js';
import { CertificateSync, CONTROLLER_CONFIG_RV_ANNOTATION } from '../src/daemon/certificate-writer.js';
import {
  KUBELET_KUBECONFIG_PATH,
  SERVER_CA_SYNC_ANNOTATION,
  SERVICE_CA_ROTATE_ANNOTATION,
  cmToData,
  planKubeconfigCa,
} from '../src/daemon/kubeconfig-ca.js';
import type { Host, HostCommandResult } from '../src/daemon/host.js';
import { issueCertificate } from '../src/operator/x509.js';
import { startEnv, type TestEnv } from './daemon-helpers.js';

const ca = (cn: string): string =>
  issueCertificate({
    commonName: cn,
    isCA: true,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
  }).certPem.trim();
const OLD = ca('kube-apiserver-service-network-signer');
const NEW = ca('openshift-kube-apiserver-operator_kube-apiserver-to-kubelet-signer');
const LB = ca('kube-apiserver-lb-signer');

const kubeconfig = (pem: string, user = 'kubelet'): string =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: local',
    '    cluster:',
    '      server: https://api-int.example.com:6443',
    `      certificate-authority-data: ${Buffer.from(pem).toString('base64')}`,
    'users:',
    `  - name: ${user}`,
    '    user:',
    '      token: abc',
    'contexts:',
    '  - name: ctx',
    '    context: { cluster: local, user: ' + user + ' }',
    'current-context: ctx',
    '',
  ].join('\n');

const caIn = (text: string): string => {
  const doc = parseYaml(text) as { clusters: Array<{ cluster: Record<string, string> }> };
  return Buffer.from(doc.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString();
};

describe('planKubeconfigCa / cmToData', () => {
  it('an added certificate replaces the CA with the bundle and asks for a kubelet restart', () => {
    const plan = planKubeconfigCa(kubeconfig(OLD), Buffer.from(`${OLD}\n${NEW}\n`), '/k', nullLogger);
    expect(plan.restartKubelet).toBe(true);
    const text = plan.kubeconfig?.toString() ?? '';
    expect(caIn(text)).toBe(`${OLD}\n${NEW}`);
    const doc = parseYaml(text) as Record<string, unknown>;
    expect(doc['current-context']).toBe('ctx'); // the rest kept
    expect(Object.keys(doc)).toEqual(['apiVersion', 'clusters', 'contexts', 'current-context', 'kind', 'users']);
  });

  it('only a kube-apiserver-lb-signer added: written, no restart; nothing added: nothing written', () => {
    const lb = planKubeconfigCa(kubeconfig(OLD), Buffer.from(`${OLD}\n${LB}`), '/k', nullLogger);
    expect(lb.kubeconfig).toBeDefined();
    expect(lb.restartKubelet).toBe(false);
    const same = planKubeconfigCa(kubeconfig(`${OLD}\n${NEW}`), Buffer.from(`${OLD}\n${NEW}\n`), '/k', nullLogger);
    expect(same).toEqual({ kubeconfig: undefined, ca: `${OLD}\n${NEW}`, restartKubelet: false });
    // a certificate removed from the bundle (nothing added): the kubeconfig keeps it, as upstream
    const removed = planKubeconfigCa(kubeconfig(`${OLD}\n${NEW}`), Buffer.from(OLD), '/k', nullLogger);
    expect(removed.kubeconfig).toBeUndefined();
    // upstream compares the split pieces as strings: the same certificate first in the bundle but second on disk
    // (a leading newline) counts as added
    const moved = planKubeconfigCa(kubeconfig(`${OLD}\n${NEW}`), Buffer.from(NEW), '/k', nullLogger);
    expect(caIn(moved.kubeconfig?.toString() ?? '')).toBe(NEW);
  });

  it('a malformed certificate in the bundle is left out of the new CA', () => {
    const bad = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----';
    const plan = planKubeconfigCa(kubeconfig(OLD), Buffer.from(`${OLD}\n${bad}\n${NEW}`), '/k', nullLogger);
    expect(caIn(plan.kubeconfig?.toString() ?? '')).toBe(`${OLD}\n${NEW}`);
    expect(plan.restartKubelet).toBe(true);
  });

  it('cmToData: binaryData, base64 data, plain data; a missing key names the ConfigMap', () => {
    const meta = { name: 'kubeconfig-data', namespace: 'openshift-machine-config-operator' };
    const b64 = Buffer.from(OLD).toString('base64');
    expect(cmToData({ metadata: meta, binaryData: { 'ca-bundle.crt': b64 } }, 'ca-bundle.crt').toString()).toBe(OLD);
    expect(cmToData({ metadata: meta, data: { 'ca-bundle.crt': b64 } }, 'ca-bundle.crt').toString()).toBe(OLD);
    expect(cmToData({ metadata: meta, data: { 'ca-bundle.crt': OLD } }, 'ca-bundle.crt').toString()).toBe(OLD);
    expect(() => cmToData({ metadata: meta }, 'ca-bundle.crt')).toThrow(
      'ca-bundle.crt not found in openshift-machine-config-operator/kubeconfig-data',
    );
  });
});

/** A host recording systemctl calls. */
class RecordingHost implements Host {
  readonly calls: string[] = [];
  systemctl(args: readonly string[]): Promise<HostCommandResult> {
    this.calls.push(args.join(' '));
    return Promise.resolve({ exitCode: 0, stdout: '', stderr: '' });
  }
  setPasswordHash(): Promise<void> {
    return Promise.resolve();
  }
  updateCaTrust(): Promise<void> {
    return Promise.resolve();
  }
  fipsEnabled(): Promise<boolean> {
    return Promise.resolve(false);
  }
  rpmOwned(): Promise<boolean> {
    return Promise.resolve(false);
  }
  bootId(): Promise<string> {
    return Promise.resolve('b');
  }
  reboot(): Promise<void> {
    return Promise.resolve();
  }
}

describe('CertificateSync server-CA rotation on the API server', () => {
  let env: TestEnv;
  afterEach(async () => {
    await env.stop();
  });

  async function run(
    bundle: string,
  ): Promise<{ host: RecordingHost; writes: number; annotations: Record<string, string> }> {
    env = await startEnv();
    const { client } = env;
    const root = new HostRoot(env.dir);
    mkdirSync(root.resolve('/etc/kubernetes'), { recursive: true });
    mkdirSync(root.resolve('/var/lib/kubelet'), { recursive: true });
    writeFileSync(root.resolve('/etc/kubernetes/kubeconfig'), kubeconfig(OLD, 'system:admin'));
    writeFileSync(root.resolve(KUBELET_KUBECONFIG_PATH), kubeconfig(OLD));
    await client
      .resource(Namespaces)
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-config-operator' } })
      .catch(() => undefined);
    await client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kubeconfig-data', namespace: 'openshift-machine-config-operator' },
      binaryData: { 'ca-bundle.crt': Buffer.from(bundle).toString('base64') },
    });
    const cc = await client.resource(ControllerConfigs).get('machine-config-controller');
    await client.resource(ControllerConfigs).update({
      ...cc,
      metadata: { ...cc.metadata, annotations: { ...cc.metadata.annotations, [SERVICE_CA_ROTATE_ANNOTATION]: 'true' } },
    });
    await client.resource(Nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const nodes = new SharedNodeInformer(client, { fieldSelector: 'metadata.name=n1', logger: nullLogger });
    await nodes.start();
    const stats = { writes: 0 };
    const host = new RecordingHost();
    const events = new EventRecorder(client, { component: 'machineconfigdaemon', logger: nullLogger });
    const sync = new CertificateSync({
      client,
      root,
      host,
      node: nodes.source('n1'),
      writer: new NodeWriter(client, 'n1', events, stats),
      retryMs: 50,
    });
    try {
      sync.start();
      for (let i = 0; ; i++) {
        const n = await client.resource(Nodes).get('n1');
        if (n.metadata.annotations?.[SERVER_CA_SYNC_ANNOTATION] === 'true') break;
        if (i > 400) throw new Error('timed out waiting for the rotation');
        await new Promise((r) => setTimeout(r, 25));
      }
      await new Promise((r) => setTimeout(r, 300));
      await sync.idle();
    } finally {
      await sync.stop();
      await nodes.stop();
    }
    const annotations = (await client.resource(Nodes).get('n1')).metadata.annotations ?? {};
    return { host, writes: stats.writes, annotations };
  }

  it('a new signer: kubeconfig and the kubelet kubeconfig take the bundle, kubelet stopped and started, one node patch', async () => {
    const r = await run(`${OLD}\n${NEW}\n`);
    const rv = (await env.client.resource(ControllerConfigs).get('machine-config-controller')).metadata.resourceVersion;
    expect(r.annotations[CONTROLLER_CONFIG_RV_ANNOTATION]).toBe(rv);
    expect(caIn(readFileSync(join(env.dir, 'etc/kubernetes/kubeconfig'), 'utf8'))).toBe(`${OLD}\n${NEW}`);
    const kubelet = readFileSync(join(env.dir, KUBELET_KUBECONFIG_PATH), 'utf8');
    expect(caIn(kubelet)).toBe(`${OLD}\n${NEW}`);
    expect((parseYaml(kubelet) as { users: Array<{ name: string }> }).users[0]?.name).toBe('kubelet');
    expect(r.host.calls).toEqual(['stop kubelet', 'daemon-reload', 'start kubelet']);
    expect(r.writes).toBe(1);
  });

  it('only the lb signer added: kubeconfig written, the kubelet left running', async () => {
    const r = await run(`${OLD}\n${LB}`);
    expect(caIn(readFileSync(join(env.dir, 'etc/kubernetes/kubeconfig'), 'utf8'))).toBe(`${OLD}\n${LB}`);
    expect(caIn(readFileSync(join(env.dir, KUBELET_KUBECONFIG_PATH), 'utf8'))).toBe(OLD);
    expect(r.host.calls).toEqual([]);
    expect(r.writes).toBe(1);
  });
});
