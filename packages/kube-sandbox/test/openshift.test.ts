import { crdFiles } from '@keelson/api';
import { afterEach, describe, expect, it } from 'vitest';
import { installOpenShiftCrds } from '../src/index.js';
import { sandbox, type Client } from './helpers.js';

let c: Client | undefined;
afterEach(async () => {
  await c?.sb.stop();
  c = undefined;
});

describe('OpenShift CRDs from @keelson/api', () => {
  it('startSandbox({ openshiftCrds: [...] }) serves only the kinds asked for, Established', async () => {
    c = await sandbox({ openshiftCrds: ['MachineConfigPool', 'ClusterOperator'] });
    const crd = await c.req(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/machineconfigpools.machineconfiguration.openshift.io',
    );
    expect(crd.status).toBe(200);
    expect(
      (crd.body.status.conditions as { type: string; status: string }[]).find((x) => x.type === 'Established')?.status,
    ).toBe('True');
    expect((await c.req('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools')).status).toBe(200);
    expect((await c.req('GET', '/apis/config.openshift.io/v1/clusteroperators')).status).toBe(200);
    expect((await c.req('GET', '/apis/config.openshift.io/v1/clusterversions')).status).toBe(404);
  });

  it('installOpenShiftCrds installs every shipped CRD and is idempotent', async () => {
    c = await sandbox();
    const names = await installOpenShiftCrds(c.sb);
    expect(names).toEqual(crdFiles.map((f) => f.name));
    const list = await c.req('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    expect((list.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort()).toEqual(
      [...names].sort(),
    );
    const before = (
      await c.req('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterversions.config.openshift.io')
    ).body;
    expect(await installOpenShiftCrds(c.sb, ['ClusterVersion'])).toEqual(['clusterversions.config.openshift.io']);
    const after = (
      await c.req('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterversions.config.openshift.io')
    ).body;
    expect(after.metadata.uid).toBe(before.metadata.uid);
    const mc = await c.req('POST', '/apis/machineconfiguration.openshift.io/v1/machineconfigs', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: '99-worker-x', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: { kernelArguments: ['nosmt'] },
    });
    expect(mc.status).toBe(201);
  });
});
