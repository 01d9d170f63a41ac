/**
 * Issue 18 defect 5: the CVO must not rewrite objects the server defaulted. The objects are stored in the form
 * kube-apiserver stores them (the core/v1 and apps/v1 defaulting functions applied: `fieldRef.apiVersion: v1`,
 * `imagePullPolicy`, `terminationMessagePath`, probe timings, port protocol, hostPath type, volume `defaultMode`,
 * DaemonSet `maxSurge`, Service `sessionAffinity`/`ipFamilies`, quantities in canonical form …), so the test stands on
 * its own whether or not the embedded server defaults; then the MCO's shipped manifests and operand workloads are
 * applied in Reconciling
 * mode through the real ResourceApplier over HTTP: zero writes.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KubeClient, KubeConfig, nullLogger } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { clone, isObject, ResourceApplier, type JsonObject } from '@keelson/cluster-version';

const MCO_MANIFESTS = new URL('../../machine-config-operator/manifests/', import.meta.url).pathname;
const MCO_OPERANDS = new URL('../../machine-config-operator/operands/', import.meta.url).pathname;
type J = JsonObject;

function obj(v: unknown): J {
  return isObject(v) ? v : {};
}

/** kube-apiserver's core/v1 defaults of a container (`SetDefaults_Container`, `_Probe`, `_ObjectFieldSelector`, ports). */
function defaultContainer(c: J, hostNetwork: boolean): void {
  const image = typeof c['image'] === 'string' ? c['image'] : '';
  c['imagePullPolicy'] ??=
    image.endsWith(':latest') || !/[:@]/.test(image.split('/').pop() ?? '') ? 'Always' : 'IfNotPresent';
  c['terminationMessagePath'] ??= '/dev/termination-log';
  c['terminationMessagePolicy'] ??= 'File';
  for (const e of (c['env'] as J[] | undefined) ?? []) {
    const ref = obj(obj(e['valueFrom'])['fieldRef']);
    if (ref['fieldPath'] !== undefined) ref['apiVersion'] ??= 'v1';
  }
  for (const p of (c['ports'] as J[] | undefined) ?? []) {
    p['protocol'] ??= 'TCP';
    if (hostNetwork) p['hostPort'] ??= p['containerPort'];
  }
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = c[k];
    if (!isObject(probe)) continue;
    Object.assign(probe, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, ...probe });
    if (isObject(probe['httpGet'])) probe['httpGet']['scheme'] ??= 'HTTP';
  }
}

/** kube-apiserver's defaults of a pod template (`SetDefaults_PodSpec`, `_Volume`, `_HostPathVolumeSource`, …). */
function defaultPodTemplate(t: J): void {
  const spec = obj(t['spec']);
  spec['restartPolicy'] ??= 'Always';
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['schedulerName'] ??= 'default-scheduler';
  spec['securityContext'] ??= {};
  spec['terminationGracePeriodSeconds'] ??= 30;
  if (spec['serviceAccountName'] !== undefined) spec['serviceAccount'] ??= spec['serviceAccountName'];
  for (const c of [
    ...((spec['containers'] as J[] | undefined) ?? []),
    ...((spec['initContainers'] as J[] | undefined) ?? []),
  ])
    defaultContainer(c, spec['hostNetwork'] === true);
  for (const v of (spec['volumes'] as J[] | undefined) ?? []) {
    if (isObject(v['hostPath'])) v['hostPath']['type'] ??= '';
    if (isObject(v['secret'])) v['secret']['defaultMode'] ??= 420;
    if (isObject(v['configMap'])) v['configMap']['defaultMode'] ??= 420;
  }
  t['metadata'] ??= {};
}

/** What kube-apiserver 1.32 stores for `o` (the defaults of the kinds the MCO's manifests hold). */
function kubeDefaulted(o: J): J {
  const d = clone(o);
  const spec = obj(d['spec']);
  if (d['kind'] === 'DaemonSet') {
    const us = obj((spec['updateStrategy'] ??= { type: 'RollingUpdate' }));
    if (us['type'] === 'RollingUpdate')
      us['rollingUpdate'] = { maxUnavailable: 1, maxSurge: 0, ...obj(us['rollingUpdate']) };
    spec['revisionHistoryLimit'] ??= 10;
    defaultPodTemplate(obj(spec['template']));
  }
  if (d['kind'] === 'Deployment') {
    spec['progressDeadlineSeconds'] ??= 600;
    spec['revisionHistoryLimit'] ??= 10;
    const st = obj((spec['strategy'] ??= { type: 'RollingUpdate' }));
    if (st['type'] === 'RollingUpdate')
      st['rollingUpdate'] = { maxUnavailable: '25%', maxSurge: '25%', ...obj(st['rollingUpdate']) };
    defaultPodTemplate(obj(spec['template']));
  }
  if (d['kind'] === 'Service') {
    Object.assign(spec, {
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      clusterIP: '172.30.12.34',
      clusterIPs: ['172.30.12.34'],
      ...spec,
    });
    for (const p of (spec['ports'] as J[] | undefined) ?? []) {
      p['protocol'] ??= 'TCP';
      p['targetPort'] ??= p['port'];
    }
  }
  return d;
}

let sandbox: Sandbox;
let client: KubeClient;
const manifests: J[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  const kc = new KubeConfig();
  kc.loadFromString(
    await readFile(
      await sandbox.writeKubeconfig(join(process.env['TMPDIR'] ?? '/tmp', `kc-defaulted-${process.pid}`)),
      'utf8',
    ),
  );
  client = new KubeClient(kc);
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-config-operator' } },
  });
  // the release's manifests, and the operands the MCO operator renders from its package (daemon, controller, server)
  const files = (await readdir(MCO_MANIFESTS)).filter((n) => n.endsWith('.yaml')).map((n) => join(MCO_MANIFESTS, n));
  for (const d of (await readdir(MCO_OPERANDS)).sort())
    files.push(
      ...(await readdir(join(MCO_OPERANDS, d))).filter((n) => n.endsWith('.yaml')).map((n) => join(MCO_OPERANDS, d, n)),
    );
  for (const f of files.sort()) {
    for (const doc of parseAllDocuments(await readFile(f, 'utf8'))) {
      const o = doc.toJS() as J | null;
      if (o && ['DaemonSet', 'Deployment', 'Service'].includes(String(o['kind']))) manifests.push(o);
    }
  }
}, 30_000);

afterAll(async () => {
  await client?.close();
  await sandbox?.stop();
});

describe('an unchanged cluster whose server defaulted the objects is reconciled with zero writes (defect 5)', () => {
  it('the MCO Deployments, DaemonSets and Service as kube-apiserver stores them are no diff', async () => {
    expect(manifests.map((m) => `${String(m['kind'])}/${String(obj(m['metadata'])['name'])}`)).toContain(
      'DaemonSet/machine-config-daemon',
    );
    const applier = new ResourceApplier(client, nullLogger);
    for (const m of manifests) {
      const [group, version] = String(m['apiVersion']).includes('/')
        ? String(m['apiVersion']).split('/')
        : ['', String(m['apiVersion'])];
      const plural = `${String(m['kind']).toLowerCase()}s`;
      const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
      await client.request('POST', `${base}/namespaces/openshift-machine-config-operator/${plural}`, {
        body: kubeDefaulted(m),
      });
    }
    for (const m of manifests) {
      const { action } = await applier.apply(m, 'reconciling');
      expect({ name: obj(m['metadata'])['name'], action }).toEqual({
        name: obj(m['metadata'])['name'],
        action: 'unchanged',
      });
    }
    expect(applier.writes).toEqual({ creates: 0, updates: 0, deletes: 0 });
  });

  it('a real change is still written: env value, and a quantity equal by value is not a change', async () => {
    const applier = new ResourceApplier(client, nullLogger);
    const ds = clone(manifests.find((m) => obj(m['metadata'])['name'] === 'machine-config-daemon') ?? {});
    const container = obj((obj(obj(obj(ds['spec'])['template'])['spec'])['containers'] as J[])[0]);
    container['resources'] = { requests: { cpu: '0.02', memory: '50Mi' } };
    expect((await applier.apply(ds, 'reconciling')).action).toBe('unchanged');
    (container['env'] as J[]).push({ name: 'EXTRA', value: '1' });
    expect((await applier.apply(ds, 'reconciling')).action).toBe('updated');
    expect((await applier.apply(ds, 'reconciling')).action).toBe('unchanged');
    expect(applier.writes.updates).toBe(1);
  });
});
