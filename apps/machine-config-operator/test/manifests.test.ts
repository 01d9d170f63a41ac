/** The shipped manifests: upstream file naming, the objects a release payload needs, and all accepted by an API server. */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KubeClient, type Logger } from '@keelson/kube';
import { startMachineConfigServer } from '../src/server/server.js';
import { startTestCluster, type TestCluster } from './helpers/cluster.js';

const DIR = new URL('../manifests/', import.meta.url);
/** The operands the operator renders and applies (not part of the release payload). */
const OPERANDS_DIR = new URL('../operands/', import.meta.url);
type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const docs: Array<{ file: string; obj: Obj }> = files.flatMap((file) =>
  parseAllDocuments(readFileSync(new URL(file, DIR), 'utf8')).map((d) => ({ file, obj: d.toJS() as Obj })),
);
const operandFiles = [
  'machineconfigdaemon/daemonset.yaml',
  'machineconfigcontroller/deployment.yaml',
  'machineconfigserver/daemonset.yaml',
];
const operands: Array<{ file: string; obj: Obj }> = operandFiles.map((file) => ({
  file,
  obj: parseAllDocuments(readFileSync(new URL(file, OPERANDS_DIR), 'utf8'))[0]?.toJS() as Obj,
}));

const plural: Record<string, string> = {
  Namespace: 'namespaces',
  ServiceAccount: 'serviceaccounts',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  Deployment: 'deployments',
  DaemonSet: 'daemonsets',
  ConfigMap: 'configmaps',
  Service: 'services',
  ClusterOperator: 'clusteroperators',
};
const path = (o: Obj): string => {
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  return `${base}${o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : ''}/${plural[o.kind] ?? ''}`;
};

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster();
}, 30_000);
afterAll(async () => {
  await tc.stop();
});

describe('manifests/', () => {
  it('use the upstream file naming and release-payload include annotations', () => {
    for (const f of files) expect(f).toMatch(/^0000_80_machine-config_\d\d_[a-z.-]+\.yaml$/);
    for (const { obj } of docs)
      expect(obj.metadata.annotations?.['include.release.openshift.io/self-managed-high-availability']).toBe('true');
  });
  it("ship the operator's own workload and the 22623/22624 Service, none of the operands (as upstream's install/)", () => {
    const kinds = docs.map(({ obj }) => `${obj.kind}/${obj.metadata.name}`);
    expect(kinds.filter((k) => k.startsWith('Deployment/') || k.startsWith('DaemonSet/'))).toEqual([
      'Deployment/machine-config-operator',
    ]);
    expect(operands.map(({ obj }) => `${obj.kind}/${obj.metadata.name}`)).toEqual([
      'DaemonSet/machine-config-daemon',
      'Deployment/machine-config-controller',
      'DaemonSet/machine-config-server',
    ]);
    for (const { obj } of operands)
      expect(Object.keys(obj.metadata.annotations ?? {}).filter((k) => k.startsWith('include.release.'))).toEqual([]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Namespace/openshift-machine-config-operator',
        'Deployment/machine-config-operator',
        'Service/machine-config-server',
        'ConfigMap/machine-config-osimageurl',
        'ClusterOperator/machine-config',
      ]),
    );
    const svc = docs.find(({ obj }) => obj.kind === 'Service')?.obj;
    expect((svc?.spec?.['ports'] as Array<{ port: number }>).map((p) => p.port)).toEqual([22623, 22624]);
    const cm = docs.find(({ obj }) => obj.metadata.name === 'machine-config-osimageurl')?.obj;
    expect(Object.keys(cm?.data ?? {}).sort()).toEqual([
      'baseOSContainerImage',
      'baseOSExtensionsContainerImage',
      'releaseVersion',
    ]);
  });
  it("ship upstream's images.json, every placeholder a tag of image-references, mounted into the operator", () => {
    const cm = docs.find(({ obj }) => obj.metadata.name === 'machine-config-operator-images')?.obj;
    const json = JSON.parse(cm?.data?.['images.json'] ?? '') as Record<string, string>;
    expect(Object.keys(json)).toEqual([
      'releaseVersion',
      'machineConfigOperator',
      'infraImage',
      'keepalivedImage',
      'corednsImage',
      'haproxyImage',
      'baremetalRuntimeCfgImage',
      'oauthProxy',
      'kubeRbacProxy',
    ]);
    expect(json['releaseVersion']).toBe('0.0.1-snapshot');
    const refs = parseAllDocuments(readFileSync(new URL('image-references', DIR), 'utf8'))[0]?.toJS() as {
      spec: { tags: Array<{ name: string; from: { name: string } }> };
    };
    const tags = new Set(refs.spec.tags.map((t) => t.name));
    for (const t of refs.spec.tags)
      expect(t.from.name).toBe(`placeholder.url.oc.will.replace.this.org/placeholdernamespace:${t.name}`);
    for (const [k, v] of Object.entries(json)) {
      if (k === 'releaseVersion') continue;
      const tag = /^placeholder\.url\.oc\.will\.replace\.this\.org\/placeholdernamespace:(.+)$/.exec(v)?.[1] ?? '';
      expect(tags, `${k}: ${v}`).toContain(tag);
    }
    const d = docs.find(({ obj }) => obj.kind === 'Deployment' && obj.metadata.name === 'machine-config-operator')?.obj;
    const pod = (d?.spec?.['template'] as { spec: Record<string, unknown> }).spec;
    const c = (pod['containers'] as Array<{ args: string[]; volumeMounts: unknown[] }>)[0];
    expect(c?.args).toContain('--images-json=/etc/mco/images/images.json');
    expect(c?.volumeMounts).toContainEqual({ name: 'images', mountPath: '/etc/mco/images' });
    expect(pod['volumes']).toContainEqual({ name: 'images', configMap: { name: 'machine-config-operator-images' } });
  });
  it('run the daemon as the chroot path needs: privileged, hostPID, the host / at /rootfs, --root-mount=/rootfs', () => {
    const ds = operands.find(({ obj }) => obj.metadata.name === 'machine-config-daemon')?.obj;
    const pod = (ds?.spec?.['template'] as { spec: Record<string, unknown> }).spec;
    expect(pod['hostPID']).toBe(true);
    const c = (
      pod['containers'] as Array<{
        args: string[];
        securityContext: { privileged: boolean };
        volumeMounts: Array<{ name: string; mountPath: string }>;
      }>
    )[0];
    expect(c?.securityContext.privileged).toBe(true);
    expect(c?.args).toContain('--root-mount=/rootfs');
    const mount = c?.volumeMounts.find((m) => m.mountPath === '/rootfs');
    const vol = (pod['volumes'] as Array<{ name: string; hostPath?: { path: string } }>).find(
      (v) => v.name === mount?.name,
    );
    expect(vol?.hostPath?.path).toBe('/');
  });
  it('are accepted by the API server in file order, the operands after them', async () => {
    for (const { file, obj } of [...docs, ...operands]) {
      if (obj.metadata.name === 'openshift-machine-config-operator' && obj.kind === 'Namespace') continue; // created by the test cluster
      await expect(
        tc.client.request('POST', path(obj), { body: obj }),
        `${file}: ${obj.kind}/${obj.metadata.name}`,
      ).resolves.toBeDefined();
    }
  }, 30_000);
  it('let the machine-config-server start as its ServiceAccount: its informers (kubeconfig-data ConfigMap included) list and watch', async () => {
    // the RBAC of the previous test is in place; the server's token is minted for its ServiceAccount
    const client = KubeClient.fromKubeconfigString(
      tc.sandbox.serviceAccountKubeconfig('openshift-machine-config-operator', 'machine-config-server'),
    );
    const refused: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (msg, fields) => {
        refused.push(`${msg} ${JSON.stringify(fields)}`);
      },
      child: () => logger,
    };
    const starting = startMachineConfigServer({
      client,
      apiserverURL: 'https://api.example:6443',
      securePort: null,
      insecurePort: 0,
      host: '127.0.0.1',
      noKubeconfig: true,
      logger,
    });
    // without the ConfigMap rule, the first list is refused (403) and start() keeps retrying
    const first = await Promise.race([
      starting.then(() => 'started'),
      new Promise<string>((r) =>
        setTimeout(() => {
          r('still starting');
        }, 10_000),
      ),
    ]);
    expect(first, refused.join('\n')).toBe('started');
    expect(refused.filter((w) => w.includes('403'))).toEqual([]);
    await (await starting).stop();
    await client.close();
  }, 30_000);
});
