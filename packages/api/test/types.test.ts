import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  CAPABILITY_SETS,
  CLUSTER_VERSION_CONDITIONS,
  CVO_ANNOTATIONS,
  KNOWN_CAPABILITIES,
  MACHINE_CONFIG_POOL_CONDITIONS,
  NODE_ANNOTATIONS,
  apiVersionOf,
  drainAnnotationValue,
  includeAnnotation,
  loadCrd,
  nodeRoleLabel,
  poolLabel,
  OPENSHIFT_KINDS,
  type ClusterVersion,
  type MachineConfigPool,
  type OpenShiftKind,
} from '../src/index.js';
import type { JSONSchemaProps } from '../src/index.js';

/** Every property name the CRD schema declares at `path` (dot-separated, `[]` descends into array items). */
async function schemaKeys(kind: OpenShiftKind, path: string): Promise<string[]> {
  const crd = await loadCrd(kind);
  let node: JSONSchemaProps | undefined = crd.spec.versions[0]!.schema!.openAPIV3Schema;
  for (const part of path.split('.').filter(Boolean)) {
    node = part === '[]' ? node?.items : node?.properties?.[part];
  }
  return Object.keys(node?.properties ?? {}).sort();
}

describe('typed objects follow the CRD schemas', () => {
  it('ClusterVersion: a full object type-checks and every typed spec/status field exists in the CRD', async () => {
    const cv: ClusterVersion = {
      apiVersion: apiVersionOf(OPENSHIFT_KINDS.ClusterVersion),
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: {
        clusterID: 'b3b7c4f2-6b1d-4c77-9a5b-1f1d2b3c4d5e',
        channel: 'stable-4.18',
        desiredUpdate: { version: '4.18.3', image: 'quay.io/x@sha256:aa', force: false },
      },
      status: {
        desired: { version: '4.18.2', image: 'quay.io/x@sha256:bb' },
        history: [
          {
            state: 'Completed',
            startedTime: '2025-01-01T00:00:00Z',
            completionTime: '2025-01-01T01:00:00Z',
            version: '4.18.2',
            image: 'quay.io/x@sha256:bb',
            verified: true,
          },
        ],
        observedGeneration: 1,
        versionHash: 'abc',
        availableUpdates: null,
        conditionalUpdates: [
          {
            release: { version: '4.18.3', image: 'i' },
            risks: [
              {
                name: 'R',
                url: 'https://x',
                message: 'm',
                matchingRules: [{ type: 'PromQL', promql: { promql: 'up' } }],
              },
            ],
            conditions: [],
          },
        ],
        conditions: [
          { type: CLUSTER_VERSION_CONDITIONS.Available, status: 'True', lastTransitionTime: '2025-01-01T01:00:00Z' },
        ],
      },
    };
    // every key of the typed spec (the type-level list below must match ClusterVersionSpec) exists in the Default CRD
    const typedSpec: Array<keyof ClusterVersion['spec']> = [
      'capabilities',
      'channel',
      'clusterID',
      'desiredUpdate',
      'overrides',
      'upstream',
      'signatureStores',
    ];
    const specKeys = await schemaKeys('ClusterVersion', 'spec');
    expect(typedSpec.filter((k) => !specKeys.includes(k))).toEqual(['signatureStores']); // TechPreview only
    expect(specKeys.filter((k) => !typedSpec.includes(k as keyof ClusterVersion['spec']))).toEqual([]);
    const statusKeys = await schemaKeys('ClusterVersion', 'status');
    for (const k of Object.keys(cv.status ?? {})) expect(statusKeys).toContain(k);
    expect(statusKeys).toEqual([
      'availableUpdates',
      'capabilities',
      'conditionalUpdates',
      'conditions',
      'desired',
      'history',
      'observedGeneration',
      'versionHash',
    ]);
    expect(await schemaKeys('ClusterVersion', 'status.conditionalUpdates.[].risks.[]')).toEqual([
      'matchingRules',
      'message',
      'name',
      'url',
    ]);
    expect(await schemaKeys('ClusterVersion', 'status.history.[]')).toEqual([
      'acceptedRisks',
      'completionTime',
      'image',
      'startedTime',
      'state',
      'verified',
      'version',
    ]);
  });

  it('MachineConfigPool: typed spec/status keys are the CRD keys', async () => {
    const typedSpec: Array<keyof MachineConfigPool['spec']> = [
      'configuration',
      'machineConfigSelector',
      'maxUnavailable',
      'nodeSelector',
      'osImageStream',
      'paused',
      'pinnedImageSets',
    ];
    expect(await schemaKeys('MachineConfigPool', 'spec')).toEqual(typedSpec);
    const typedStatus: Array<keyof NonNullable<MachineConfigPool['status']>> = [
      'certExpirys',
      'conditions',
      'configuration',
      'degradedMachineCount',
      'machineCount',
      'observedGeneration',
      'osImageStream',
      'poolSynchronizersStatus',
      'readyMachineCount',
      'unavailableMachineCount',
      'updatedMachineCount',
    ];
    expect(await schemaKeys('MachineConfigPool', 'status')).toEqual(typedStatus);
    expectTypeOf<MachineConfigPool['spec']['maxUnavailable']>().toEqualTypeOf<number | string | undefined>();
  });

  it('condition type constants match the CRD printer columns and enums', async () => {
    const mcp = await loadCrd('MachineConfigPool');
    const cols = mcp.spec.versions[0]!.additionalPrinterColumns!.map((c) => c.jsonPath);
    for (const t of [
      MACHINE_CONFIG_POOL_CONDITIONS.Updated,
      MACHINE_CONFIG_POOL_CONDITIONS.Updating,
      MACHINE_CONFIG_POOL_CONDITIONS.Degraded,
    ])
      expect(cols).toContain(`.status.conditions[?(@.type=="${t}")].status`);
    const cv = await loadCrd('ClusterVersion');
    const caps = cv.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['spec']!.properties!['capabilities']!;
    const enumCaps = caps.properties!['additionalEnabledCapabilities']!.items!.enum as string[];
    // the Default CRD lists every capability except the feature-gated ones
    expect([...enumCaps].sort()).toEqual(
      KNOWN_CAPABILITIES.filter((c) => c !== 'CompatibilityRequirements' && c !== 'ClusterAPI').sort(),
    );
    expect(Object.keys(CAPABILITY_SETS).sort()).toEqual(
      [...(caps.properties!['baselineCapabilitySet']!.enum as string[])].sort(),
    );
  });
});

describe('constants', () => {
  it('spell the upstream keys', () => {
    expect(CVO_ANNOTATIONS.createOnly).toBe('release.openshift.io/create-only');
    expect(CVO_ANNOTATIONS.capabilityName).toBe('capability.openshift.io/name');
    expect(includeAnnotation('self-managed-high-availability')).toBe(
      'include.release.openshift.io/self-managed-high-availability',
    );
    expect(NODE_ANNOTATIONS.desiredConfig).toBe('machineconfiguration.openshift.io/desiredConfig');
    expect(drainAnnotationValue('drain', 'rendered-worker-abc')).toBe('drain-rendered-worker-abc');
    expect(poolLabel('worker')).toBe('pools.operator.machineconfiguration.openshift.io/worker');
    expect(nodeRoleLabel('infra')).toBe('node-role.kubernetes.io/infra');
  });

  it('capability sets grow monotonically up to vCurrent', () => {
    const order = ['None', 'v4.11', 'v4.12', 'v4.13', 'v4.14', 'v4.15', 'v4.16', 'v4.17', 'v4.18', 'vCurrent'] as const;
    for (let i = 1; i < order.length; i++) {
      const prev = CAPABILITY_SETS[order[i - 1]!]!;
      const cur = CAPABILITY_SETS[order[i]!]!;
      for (const c of prev) expect(cur).toContain(c);
    }
    expect(CAPABILITY_SETS['v4.18']).toHaveLength(17);
    expect(CAPABILITY_SETS.vCurrent).toHaveLength(19);
  });
});
