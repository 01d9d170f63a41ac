/**
 * The operator started before the CVO applies its `machine-config-osimageurl` ConfigMap (install order: the
 * Deployment is `0000_80_machine-config_04`, the ConfigMap `…_05`): RenderConfig waits instead of reporting
 * Degraded, and proceeds when the ConfigMap lands. Once the operator reported its version, a missing ConfigMap is a
 * real RenderConfigFailed with upstream's message. Real operator on the embedded API server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterOperators, ConfigMaps, ControllerConfigs, nullLogger } from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const NS = 'openshift-machine-config-operator';
const OS = `quay.io/test/rhcos@sha256:${'2'.repeat(64)}`;
const cm = (
  release: string,
): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  data: Record<string, string>;
} => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'machine-config-osimageurl', namespace: NS },
  data: { baseOSContainerImage: OS, baseOSExtensionsContainerImage: '', releaseVersion: release },
});

describe('operator started before its osimageurl ConfigMap', () => {
  let tc: TestCluster;
  let operator: Running | undefined;
  beforeEach(async () => {
    tc = await startTestCluster();
  });
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    await tc.stop();
  });

  type Cond = { type: string; status: string; reason?: string; message?: string };
  const conditions = async (): Promise<Cond[] | undefined> => {
    try {
      return (await tc.client.resource(ClusterOperators).get('machine-config')).status?.conditions;
    } catch {
      return undefined;
    }
  };
  const cond = (cs: Cond[], type: string): Cond | undefined => cs.find((c) => c.type === type);

  it('reports Progressing, not Degraded, while waiting at install, then renders the ControllerConfig', async () => {
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 200,
      leaderElection: false,
      health: false,
    });
    const waiting = await waitFor('ClusterOperator status', conditions);
    expect(cond(waiting, 'Degraded')).toMatchObject({ status: 'False' });
    expect(cond(waiting, 'Progressing')).toMatchObject({ status: 'True', message: 'Working towards 4.99.0' });
    // several resyncs later it still waits without going Degraded
    await new Promise((r) => setTimeout(r, 800));
    const still = (await conditions()) ?? [];
    expect(cond(still, 'Degraded')).toMatchObject({ status: 'False' });
    const co = await tc.client.resource(ClusterOperators).get('machine-config');
    expect(JSON.stringify(co.status?.extension)).toContain(
      'waiting for configmap \\"machine-config-osimageurl\\" of release 4.99.0',
    );

    await tc.client.resource(ConfigMaps).create(cm('4.99.0'));
    const cc = await waitFor('ControllerConfig', async () => {
      try {
        return await tc.client.resource(ControllerConfigs).get('machine-config-controller');
      } catch {
        return undefined;
      }
    });
    expect(cc.spec.baseOSContainerImage).toBe(OS);
    const everSawDegraded = ((await conditions()) ?? []).some((c) => c.type === 'Degraded' && c.status === 'True');
    expect(everSawDegraded).toBe(false);
  });

  it('goes Degraded RenderConfigFailed with the upstream message once the wait times out', async () => {
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 100,
      osImageURLTimeoutMs: 300,
      leaderElection: false,
      health: false,
    });
    const degraded = await waitFor('Degraded', async () => {
      const cs = await conditions();
      const d = cs === undefined ? undefined : cond(cs, 'Degraded');
      return d?.status === 'True' ? d : undefined;
    });
    expect(degraded).toMatchObject({
      reason: 'RenderConfigFailed',
      message: 'Unable to apply 4.99.0: could not get OS images: configmap "machine-config-osimageurl" not found',
    });
  });

  it('a ConfigMap of another release after this version was reported is a real failure at once', async () => {
    await tc.client.resource(ConfigMaps).create(cm('4.98.0'));
    await tc.client.resource(ClusterOperators).create({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: { name: 'machine-config' },
      spec: {},
    });
    const co = await tc.client.resource(ClusterOperators).get('machine-config');
    await tc.client
      .resource(ClusterOperators)
      .updateStatus({ ...co, status: { versions: [{ name: 'operator', version: '4.99.0' }] } });
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 200,
      leaderElection: false,
      health: false,
    });
    const degraded = await waitFor('Degraded', async () => {
      const cs = await conditions();
      const d = cs === undefined ? undefined : cond(cs, 'Degraded');
      return d?.status === 'True' ? d : undefined;
    });
    expect(degraded).toMatchObject({
      reason: 'RenderConfigFailed',
      message:
        'Failed to resync 4.99.0 because: could not get OS images: refusing to read osImageURL version "4.98.0", operator version "4.99.0"',
    });
  });
});
