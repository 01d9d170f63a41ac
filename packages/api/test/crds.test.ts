import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CRD_DIR,
  CrdError,
  OPENSHIFT_KINDS,
  crdFile,
  crdFiles,
  crds,
  loadCrd,
  loadCrds,
  type OpenShiftKind,
} from '../src/index.js';

describe('shipped CRDs', () => {
  it('lists one file per typed kind, in file-name order, under the package crds/ folder', () => {
    expect(crdFiles.map((f) => f.kind).sort()).toEqual(Object.keys(OPENSHIFT_KINDS).sort());
    const names = crdFiles.map((f) => f.file);
    expect(names).toEqual([...names].sort());
    for (const f of crdFiles) {
      expect(f.path.startsWith(CRD_DIR)).toBe(true);
      expect(readFileSync(f.path, 'utf8')).toContain(`name: ${f.name}`);
    }
    expect(crdFile('MachineConfigPool').name).toBe('machineconfigpools.machineconfiguration.openshift.io');
  });

  it('parses each CRD and agrees with OPENSHIFT_KINDS on group, kind, plural and scope', async () => {
    const crds = await loadCrds();
    expect(crds).toHaveLength(13);
    for (const crd of crds) {
      const kind = crd.spec.names.kind as OpenShiftKind;
      const info = OPENSHIFT_KINDS[kind];
      expect(info).toBeDefined();
      expect(crd.spec.group).toBe(info.group);
      expect(crd.spec.names.plural).toBe(info.plural);
      expect(crd.spec.scope).toBe(info.namespaced ? 'Namespaced' : 'Cluster');
      expect(crd.spec.versions.map((v) => v.name)).toContain(info.version);
    }
  });

  it('returns independent copies and only the kinds asked for', async () => {
    const [a] = await loadCrds(['MachineConfigPool']);
    a!.spec.group = 'changed';
    const b = await loadCrd('MachineConfigPool');
    expect(b.spec.group).toBe('machineconfiguration.openshift.io');
    const status = b.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['status']!;
    const rules = status.properties!['poolSynchronizersStatus']!.items!['x-kubernetes-validations']!;
    expect(rules.map((r) => r.message)).toContain('machineCount must be greater than or equal to updatedMachineCount');
  });

  it('groups the same data under the crds namespace object', async () => {
    expect(crds.files).toBe(crdFiles);
    expect(crds.dir).toBe(CRD_DIR);
    expect((await crds.loadOne('ClusterOperator')).metadata.name).toBe('clusteroperators.config.openshift.io');
    expect((await crds.load(['ClusterVersion'])).map((c) => c.spec.names.kind)).toEqual(['ClusterVersion']);
  });

  it('rejects an unknown kind with a typed error', async () => {
    await expect(loadCrds(['Bogus' as OpenShiftKind])).rejects.toBeInstanceOf(CrdError);
    expect(() => crdFile('Bogus' as OpenShiftKind)).toThrow(/no CRD is shipped for kind Bogus; known kinds: /);
  });

  it('ships the upstream bytes (the README revision), unmodified', () => {
    // sha256 of the files as copied from openshift/api 2a3d73913b5a7caec4c57d5c3d04f51106ec4da3
    const expected: Record<string, string> = {
      '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml':
        '8e1270b3736ba431b1c13047550f343d5ae38042d1ad4a067c72d31eab121a2c',
      '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml':
        '10b91f51a922ff39a529ab2c1b6e049cbe1ca929d9f815c9b4880c7d66a204ab',
      '0000_10_config-operator_01_imagecontentsourcepolicies.crd.yaml':
        'd1a92c6997bf38bb5f0519342d9c31b6093bd18efb7ef661cc6dfb61836eb064',
      '0000_10_config-operator_01_imagedigestmirrorsets.crd.yaml':
        '40bf21cbfdb607cf8fdc2e9aafb19b71ef331683b8050a374beccfc2038b3b7e',
      '0000_10_config-operator_01_images.crd.yaml': 'f03dae1686ce998450714b50c5a069b0e7eff71866c7d110d8d31f908394c886',
      '0000_10_config-operator_01_imagetagmirrorsets.crd.yaml':
        'a2a45a1f3a8f5a1bc61bf6c1344463480baf4c0cb601cca2f5fa20e51e66c461',
      '0000_80_machine-config_01_containerruntimeconfigs-Default.crd.yaml':
        '0fd2e934e8bf4ae5819dd7c17415fcaa73354be93011dc10c124d62a80bf53ad',
      '0000_80_machine-config_01_controllerconfigs-Default.crd.yaml':
        '6c767213c69a4d1a7aeab7ec9275a89e9bc442835cdf1f438aa3578ad510a231',
      '0000_80_machine-config_01_kubeletconfigs-Default.crd.yaml':
        'fa9a968c79856a10b9c8bb474788b435d6ce911ef8cad8aea45e7218bf2e9e1b',
      '0000_80_machine-config_01_machineconfignodes-SelfManagedHA-Default.crd.yaml':
        '160895755b8f417a59bbd75ae7fe4ab705163092497b7e518f9f6f50a0eecadd',
      '0000_80_machine-config_01_machineconfigpools.crd.yaml':
        'e4fbf93842605097c7c801f64ab369d9bd342e04ea6a026c1adabd6909f7c096',
      '0000_80_machine-config_01_machineconfigs.crd.yaml':
        '7068bd39e59218fec99b82c2eb8c60f93e81696e3142e05f05b0b2a7552d34b5',
      '0000_80_machine-config_01_machineconfigurations.crd.yaml':
        '4d37b5ef4156b9ffed2a1acb36d2cfb7f77a80319740b71b4679e124d140feca',
    };
    const sums = Object.fromEntries(
      crdFiles.map((f) => [f.file, createHash('sha256').update(readFileSync(f.path)).digest('hex')]),
    );
    expect(sums).toEqual(expected);
  });
});

describe('config.openshift.io CRDs (loadConfigCrds)', () => {
  it('Infrastructure, Network, Proxy, DNS, APIServer, Image, cluster-scoped, fresh copies', async () => {
    const { loadConfigCrds } = await import('../src/index.js');
    const got = await loadConfigCrds();
    expect(got.map((c) => c.metadata.name).sort()).toEqual([
      'apiservers.config.openshift.io',
      'dnses.config.openshift.io',
      'images.config.openshift.io',
      'infrastructures.config.openshift.io',
      'networks.config.openshift.io',
      'proxies.config.openshift.io',
    ]);
    for (const c of got) expect(c.spec.scope).toBe('Cluster');
    (got[0] as { spec: { group: string } }).spec.group = 'changed';
    expect((await loadConfigCrds())[0]?.spec.group).toBe('config.openshift.io');
  });
});
