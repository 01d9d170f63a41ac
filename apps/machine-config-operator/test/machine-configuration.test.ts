/**
 * MachineConfiguration `cluster` (upstream syncMachineConfiguration + the daemon's wait for its status): the operator
 * creates it and publishes the merged node disruption policies in its status; the daemon reads the status once it is
 * observed, not the spec. Real operator on the embedded API server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadCrds, type MachineConfiguration } from '@keelson/api';
import { ConfigMaps, Informer, KubeClient, MachineConfigurations, nullLogger } from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { machineConfigurationStatus } from '../src/operator/machine-configuration.js';
import { nodeDisruptionPolicyReader } from '../src/daemon/start.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';
import { startCountingProxy } from './helpers/counting-proxy.js';

const MCFG_PATH = '/apis/operator.openshift.io/v1/machineconfigurations';

const mc = (spec: MachineConfiguration['spec'], generation = 3): MachineConfiguration => ({
  apiVersion: 'operator.openshift.io/v1',
  kind: 'MachineConfiguration',
  metadata: { name: 'cluster', generation },
  spec,
});

describe('machineConfigurationStatus (MergeClusterPolicies)', () => {
  it('defaults, a user file policy replacing a default path, one appended, the SSH key policy replaced', () => {
    const s = machineConfigurationStatus(
      mc({
        managementState: 'Managed',
        nodeDisruptionPolicy: {
          files: [
            { path: '/etc/containers/policy.json', actions: [{ type: 'Reboot' }] },
            { path: '/etc/my.conf', actions: [{ type: 'Restart', restart: { serviceName: 'my.service' } }] },
          ],
          sshkey: { actions: [{ type: 'Drain' }] },
        },
      }),
    );
    const files = s.nodeDisruptionPolicyStatus?.clusterPolicies?.files ?? [];
    expect(files[0]).toEqual({ path: '/var/lib/kubelet/config.json', actions: [{ type: 'None' }] });
    expect(files.find((f) => f.path === '/etc/containers/policy.json')?.actions).toEqual([{ type: 'Reboot' }]);
    expect(files.findIndex((f) => f.path === '/etc/containers/policy.json')).toBe(2);
    expect(files.at(-1)).toEqual({
      path: '/etc/my.conf',
      actions: [{ type: 'Restart', restart: { serviceName: 'my.service' } }],
    });
    expect(files.find((f) => f.path === '/etc/containers/registries.conf')?.actions).toEqual([{ type: 'Special' }]);
    expect(s.nodeDisruptionPolicyStatus?.clusterPolicies?.sshkey).toEqual({ actions: [{ type: 'Drain' }] });
    expect(s.observedGeneration).toBe(3);
  });
});

describe('MachineConfiguration cluster on the API server', () => {
  let tc: TestCluster;
  let operator: Running | undefined;
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    await tc.stop();
  });

  it('the operator publishes the policies in the status; the daemon reads the status, waiting until observed', async () => {
    tc = await startTestCluster();
    for (const crd of await loadCrds(['MachineConfiguration']))
      await tc.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    const mcs = tc.client.resource(MachineConfigurations);
    await waitFor('CRD served', () => mcs.list().then(() => true));
    const read = nodeDisruptionPolicyReader(tc.client, { intervalMs: 50, timeoutMs: 300 });
    expect(await read()).toBeUndefined(); // no object: the defaults
    // an object the operator has not observed yet: the daemon waits, then fails as upstream
    await mcs.create(mc({ managementState: 'Managed' }));
    await expect(read()).rejects.toThrow(
      'NodeDisruptionPolicyStatus was not ready: NodeDisruptionPolicyStatus is not up to date',
    );
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: 'openshift-machine-config-operator' },
      data: {
        baseOSContainerImage: `quay.io/test/rhcos@sha256:${'2'.repeat(64)}`,
        baseOSExtensionsContainerImage: '',
        releaseVersion: '4.99.0',
      },
    });
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 100,
      leaderElection: false,
      health: false,
    });
    const observed = await waitFor('status observed', async () => {
      const o = await mcs.get('cluster');
      return o.status?.observedGeneration === o.metadata.generation ? o : undefined;
    });
    expect(observed.status?.nodeDisruptionPolicyStatus?.clusterPolicies?.sshkey).toEqual({
      actions: [{ type: 'None' }],
    });
    // the admin adds a policy: the status follows, and the daemon reads it from there
    await mcs.patch(
      'cluster',
      { spec: { nodeDisruptionPolicy: { units: [{ name: 'my.service', actions: [{ type: 'DaemonReload' }] }] } } },
      { type: 'merge' },
    );
    const policy = await waitFor('daemon sees the new policy', async () => {
      const p = await read();
      return p?.units?.some((u) => u.name === 'my.service') === true ? p : undefined;
    });
    expect(policy.units?.find((u) => u.name === 'my.service')?.actions).toEqual([{ type: 'DaemonReload' }]);
    // an unchanged object is not written again
    const rv = (await mcs.get('cluster')).metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 500));
    expect((await mcs.get('cluster')).metadata.resourceVersion).toBe(rv);
  }, 60_000);

  it('a reader given a watch reads MachineConfiguration cluster from it: no GET per update, the wait re-reads the watch', async () => {
    tc = await startTestCluster();
    for (const crd of await loadCrds(['MachineConfiguration']))
      await tc.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    const mcs = tc.client.resource(MachineConfigurations);
    await waitFor('CRD served', () => mcs.list().then(() => true));
    const proxy = await startCountingProxy(tc.sandbox.url);
    const client = new KubeClient(proxy.kubeConfig(tc.kubeConfig));
    const watched = new Informer(client, MachineConfigurations, { fieldSelector: 'metadata.name=cluster' });
    try {
      watched.start();
      await watched.waitForSync();
      const read = nodeDisruptionPolicyReader(client, { intervalMs: 20, timeoutMs: 200 }, watched);
      const gets = (): number =>
        proxy.requests.filter((r) => r.method === 'GET' && r.path.startsWith(MCFG_PATH) && !r.path.includes('watch'))
          .length;
      const listed = gets(); // the informer's list
      expect(await read()).toBeUndefined(); // no object in the watch: the defaults
      await mcs.create(mc({ managementState: 'Managed' }));
      await waitFor('watch sees the object', () => watched.store.get('cluster'));
      await expect(read()).rejects.toThrow('NodeDisruptionPolicyStatus was not ready');
      // the operator publishes the status while a daemon waits: the wait picks it up from the watch
      const waiting = read();
      const o = await mcs.get('cluster');
      await mcs.updateStatus({
        ...o,
        status: {
          observedGeneration: o.metadata.generation ?? 0,
          nodeDisruptionPolicyStatus: {
            clusterPolicies: { units: [{ name: 'my.service', actions: [{ type: 'DaemonReload' }] }] },
          },
        },
      });
      const policy = await waiting;
      expect(policy?.units?.[0]).toEqual({ name: 'my.service', actions: [{ type: 'DaemonReload' }] });
      expect(gets()).toBe(listed);
      // without the watch the same reader GETs the object on every call (upstream's GET per update)
      await nodeDisruptionPolicyReader(client, { intervalMs: 20, timeoutMs: 200 })();
      expect(gets()).toBe(listed + 1);
    } finally {
      await watched.stop();
      await proxy.stop();
    }
  }, 60_000);
});
