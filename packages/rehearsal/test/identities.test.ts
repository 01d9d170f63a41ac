/**
 * Who the rehearsal's components run as: the ServiceAccount of the release's workload manifests, ready once created
 * and bound, with a kubeconfig whose token the API server authenticates and RBAC authorizes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiError, KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { generateRehearsalReleases } from '../src/release/index.js';
import { openPayload, type ReleasePayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindsServiceAccount,
  COMPONENT_WORKLOADS,
  cvoBootstrapRbac,
  serviceAccountReady,
  ServiceAccountMissing,
  shippedBindings,
  waitForClusterWorkload,
  waitForServiceAccount,
  WorkloadMissing,
  workloadServiceAccount,
  writeServiceAccountKubeconfig,
} from '../src/identities.js';
import { machineConfigManifestsDir } from '../src/components.js';
import { bootstrapCluster } from '../src/cluster-bootstrap.js';

let work = '';
let payload: ReleasePayload;
let sandbox: Sandbox;
let admin: KubeClient;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rehearse-identities-'));
  const mcoDir = await machineConfigManifestsDir();
  const rel = await generateRehearsalReleases({
    out: work,
    ...(mcoDir !== undefined ? { machineConfigManifestsDir: mcoDir } : {}),
  });
  payload = await openPayload(rel.from.dir);
  sandbox = await startSandbox();
  admin = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
}, 60_000);

afterAll(async () => {
  await admin.close();
  await sandbox.stop();
  await rm(work, { recursive: true, force: true });
});

describe('rehearsal identities', { timeout: 30_000 }, () => {
  it('reads the ServiceAccount of each workload from the release (default when the pod spec names none)', () => {
    expect(workloadServiceAccount(payload, COMPONENT_WORKLOADS['cluster-version-operator'])).toEqual({
      namespace: 'openshift-cluster-version',
      name: 'default',
    });
    expect(workloadServiceAccount(payload, COMPONENT_WORKLOADS['machine-config-operator'])).toEqual({
      namespace: 'openshift-machine-config-operator',
      name: 'machine-config-operator',
    });
    // the MCO's operands are deployed by its operator, as upstream: the release carries none of them
    for (const c of ['machine-config-controller', 'machine-config-daemon', 'machine-config-server'] as const)
      expect(workloadServiceAccount(payload, COMPONENT_WORKLOADS[c]), c).toBeUndefined();
    expect(workloadServiceAccount({ manifests: [] }, COMPONENT_WORKLOADS['machine-config-operator'])).toBeUndefined();
    // the installer's part: the CVO's own RBAC, cluster-admin for its ServiceAccount
    expect(cvoBootstrapRbac(payload).map((m) => `${m.gvk.kind}/${m.name}`)).toContain(
      'ClusterRoleBinding/cluster-version-operator',
    );
    // the controller waits for all of its shipped bindings: its ClusterRoleBinding and its RoleBindings
    const ctl = shippedBindings(payload, {
      namespace: 'openshift-machine-config-operator',
      name: 'machine-config-controller',
    });
    expect(ctl.map((b) => `${b.namespace}/${b.name}`).sort()).toEqual([
      '/machine-config-controller',
      'kube-system/machine-config-controller-install-config',
      'openshift-machine-config-operator/machine-config-leader-election',
    ]);
  });

  it("takes an operand's ServiceAccount from the workload its operator deployed, once it appears", async () => {
    const w = { kind: 'DaemonSet', namespace: 'rehearse-operands', name: 'machine-config-daemon' } as const;
    await expect(waitForClusterWorkload(admin, w, Date.now() + 300)).rejects.toBeInstanceOf(WorkloadMissing);
    const waiting = waitForClusterWorkload(admin, w, Date.now() + 20_000);
    await admin.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: w.namespace } },
    });
    const labels = { app: 'mcd' };
    await admin.request('POST', `/apis/apps/v1/namespaces/${w.namespace}/daemonsets`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: w.name },
        spec: {
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { serviceAccountName: 'machine-config-daemon', containers: [{ name: 'c', image: 'i' }] },
          },
        },
      },
    });
    await expect(waiting).resolves.toEqual({ namespace: w.namespace, name: 'machine-config-daemon' });
  });

  it('matches binding subjects as RBAC does', () => {
    const sa = { namespace: 'ns', name: 'x' };
    expect(bindsServiceAccount({ subjects: [{ kind: 'ServiceAccount', name: 'x', namespace: 'ns' }] }, '', sa)).toBe(
      true,
    );
    expect(bindsServiceAccount({ subjects: [{ kind: 'ServiceAccount', name: 'x' }] }, 'ns', sa)).toBe(true);
    expect(bindsServiceAccount({ subjects: [{ kind: 'ServiceAccount', name: 'x' }] }, '', sa)).toBe(false);
    expect(bindsServiceAccount({ subjects: [{ kind: 'Group', name: 'system:serviceaccounts:ns' }] }, '', sa)).toBe(
      true,
    );
    expect(bindsServiceAccount({ subjects: [{ kind: 'User', name: 'system:serviceaccount:ns:y' }] }, '', sa)).toBe(
      false,
    );
  });

  it('waits for the ServiceAccount and a binding, then runs a client as it: allowed what the binding grants, 403 otherwise', async () => {
    const sa = { namespace: 'openshift-cluster-version', name: 'default' };
    expect(await serviceAccountReady(admin, sa)).toBe(false);
    await expect(waitForServiceAccount(admin, sa, Date.now() + 300)).rejects.toBeInstanceOf(ServiceAccountMissing);
    await bootstrapCluster(admin, { payload }, { channel: 'stable-4.18', upstream: 'http://127.0.0.1:1/graph' });
    await waitForServiceAccount(admin, sa, Date.now() + 5000);
    const path = await writeServiceAccountKubeconfig(admin, sandbox.url, sa, work, 'kubeconfig-cvo');
    const cvo = KubeClient.fromKubeconfigFile(path);
    // cluster-admin through the CVO manifests' ClusterRoleBinding
    await expect(cvo.request('GET', '/api/v1/namespaces/kube-system/secrets')).resolves.toBeDefined();
    await cvo.close();
    // the simulator's identity is bound to its own narrow ClusterRole
    const simPath = await writeServiceAccountKubeconfig(
      admin,
      sandbox.url,
      { namespace: 'keelson-operator-simulator', name: 'operator-simulator' },
      work,
      'kubeconfig-sim',
    );
    const sim = KubeClient.fromKubeconfigFile(simPath);
    await expect(sim.request('GET', '/apis/apps/v1/deployments')).resolves.toBeDefined();
    const refused = await sim.request('GET', '/api/v1/namespaces/kube-system/secrets').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).status).toBe(403);
    expect((refused as KubeApiError).message).toContain(
      'User "system:serviceaccount:keelson-operator-simulator:operator-simulator" cannot list resource "secrets" in API group "" in the namespace "kube-system"',
    );
    await sim.close();
  });
});
