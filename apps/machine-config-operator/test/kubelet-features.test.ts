/**
 * The kubelet-config controller's feature handler on the MCO's shipped templates: kubelet.conf of the worker template
 * byte for byte, the worker latency profile, and `98-<pool>-generated-kubelet` written by the controller on the embedded API server (zero writes when unchanged).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigMaps, MachineConfigPools, MachineConfigs, nullLogger, Registry } from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { DEFAULT_DURATIONS, defaultPool, loadTemplateTree } from '@keelson/machineconfig';
import type { ControllerConfig } from '../src/common/api-types.js';
import { featuresIgnition, templateKubeletConf } from '@keelson/machineconfig';
import { FeatureGates, KubeletFeaturesController } from '../src/controllers/kubelet/features-controller.js';
import { defaultTemplatesDir } from '../src/controllers/template/controller.js';
import { decodeDataURL } from '@keelson/machineconfig';
import {
  createRecorder,
  createSharedInformers,
  startSharedInformers,
  stopSharedInformers,
  type ControllerContext,
} from '../src/controllers/context.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const cc = parseYaml(
  readFileSync(new URL('./data/upstream-template/controller_config_aws.yaml', import.meta.url), 'utf8'),
) as ControllerConfig;
const tree = loadTemplateTree(defaultTemplatesDir());
const kubeletConf = (ign: Record<string, unknown>): string => {
  const f = (ign as { storage: { files: Array<{ path: string; contents: { source: string } }> } }).storage.files[0];
  expect(f?.path).toBe('/etc/kubernetes/kubelet.conf');
  return decodeDataURL(f?.contents.source ?? '') ?? '';
};

describe('kubelet.conf as DecodeKubeletConfig/EncodeKubeletConfig write it', () => {
  it('the worker template with the Intermediate profile and gates of the release, byte for byte', () => {
    const base = templateKubeletConf(tree, cc, 'worker', undefined);
    const out = kubeletConf(
      featuresIgnition({
        baseKubeletConf: base,
        role: 'worker',
        features: { KMSv1: true, NodeSwap: false, AWSEFSDriverVolumeMetrics: true },
      }),
    );
    expect(out).toBe(
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'authentication:',
        '  anonymous:',
        '    enabled: false',
        '  webhook:',
        '    cacheTTL: 0s',
        '  x509:',
        '    clientCAFile: /etc/kubernetes/kubelet-ca.crt',
        'authorization:',
        '  webhook:',
        '    cacheAuthorizedTTL: 0s',
        '    cacheUnauthorizedTTL: 0s',
        'cgroupDriver: systemd',
        'cgroupRoot: /',
        'clusterDNS:',
        '- 10.3.0.10',
        'clusterDomain: cluster.local',
        'containerLogMaxSize: 50Mi',
        'containerRuntimeEndpoint: ""',
        'cpuManagerReconcilePeriod: 0s',
        'crashLoopBackOff: {}',
        'enableSystemLogQuery: true',
        'evictionPressureTransitionPeriod: 0s',
        'featureGates:',
        '  AWSEFSDriverVolumeMetrics: true',
        '  KMSv1: true',
        '  NodeSwap: false',
        'fileCheckFrequency: 0s',
        'httpCheckFrequency: 0s',
        'imageMaximumGCAge: 0s',
        'imageMinimumGCAge: 0s',
        'kind: KubeletConfiguration',
        'kubeAPIBurst: 100',
        'kubeAPIQPS: 50',
        'logging:',
        '  flushFrequency: 0',
        '  options:',
        '    json:',
        '      infoBufferSize: "0"',
        '    text:',
        '      infoBufferSize: "0"',
        '  verbosity: 0',
        'maxPods: 250',
        'memorySwap: {}',
        'nodeStatusReportFrequency: 5m0s',
        'nodeStatusUpdateFrequency: 10s',
        'podPidsLimit: 4096',
        'protectKernelDefaults: true',
        'rotateCertificates: true',
        'runtimeRequestTimeout: 0s',
        'serializeImagePulls: false',
        'serverTLSBootstrap: true',
        'shutdownGracePeriod: 0s',
        'shutdownGracePeriodCriticalPods: 0s',
        'staticPodPath: /etc/kubernetes/manifests',
        'streamingConnectionIdleTimeout: 0s',
        'syncFrequency: 0s',
        'systemCgroups: /system.slice',
        'tlsCipherSuites:',
        '- TLS_AES_128_GCM_SHA256',
        '- TLS_AES_256_GCM_SHA384',
        '- TLS_CHACHA20_POLY1305_SHA256',
        '- TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
        '- TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        '- TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
        '- TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
        '- TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
        '- TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
        'tlsMinVersion: VersionTLS12',
        'volumeStatsAggPeriod: 0s',
        '',
      ].join('\n'),
    );
  });

  it('the worker latency profile sets nodeStatusUpdateFrequency on the worker role only', () => {
    const base = templateKubeletConf(tree, cc, 'worker', undefined);
    const w = kubeletConf(
      featuresIgnition({
        baseKubeletConf: base,
        role: 'worker',
        features: {},
        workerLatencyProfile: 'LowUpdateSlowReaction',
      }),
    );
    expect(w).toContain('\nnodeStatusUpdateFrequency: 1m0s\n');
    const m = kubeletConf(
      featuresIgnition({
        baseKubeletConf: base,
        role: 'master',
        features: {},
        workerLatencyProfile: 'LowUpdateSlowReaction',
      }),
    );
    expect(m).toContain('\nnodeStatusUpdateFrequency: 10s\n');
  });
});

describe('98-<pool>-generated-kubelet on the embedded API server', { timeout: 60_000 }, () => {
  let tc: TestCluster;
  let ctx: ControllerContext;
  let ctrl: KubeletFeaturesController;
  let run: Promise<void>;
  let operator: Running;

  beforeAll(async () => {
    tc = await startTestCluster();
    const crd = parseYaml(
      readFileSync(new URL('./data/kubelet/0000_10_config-operator_01_featuregates.crd.yaml', import.meta.url), 'utf8'),
    ) as object;
    await tc.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    await waitFor('featuregates served', () =>
      tc.client.request('GET', '/apis/config.openshift.io/v1/featuregates').then(() => true),
    );
    for (const role of ['master', 'worker'] as const) {
      const p = defaultPool(role);
      await tc.client
        .resource(MachineConfigPools)
        .create({ ...p, metadata: { ...p.metadata, labels: p.metadata.labels ?? {} } } as never);
    }
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: 'openshift-machine-config-operator' },
      data: {
        baseOSContainerImage: `quay.io/test/rhcos@sha256:${'1'.repeat(64)}`,
        baseOSExtensionsContainerImage: '',
        releaseVersion: '4.99.0',
      },
    });
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 300,
      leaderElection: false,
      health: false,
    });
    const informers = createSharedInformers(tc.client, nullLogger);
    ctx = {
      client: tc.client,
      informers,
      recorder: createRecorder(tc.client, nullLogger),
      logger: nullLogger,
      registry: new Registry(),
      durations: DEFAULT_DURATIONS,
      now: () => new Date(),
    };
    await startSharedInformers(informers);
    ctrl = new KubeletFeaturesController(ctx, defaultTemplatesDir(), 'v-test');
    run = ctrl.run();
  });

  afterAll(async () => {
    await ctrl.stop();
    await run;
    await stopSharedInformers(ctx.informers);
    await operator.stop();
    await tc.stop();
  });

  it('waits for the release’s gates, then writes one MC per pool; a gate flip rewrites it; a resync writes nothing', async () => {
    const fg = await tc.client
      .resource(FeatureGates)
      .create({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {} });
    await new Promise((r) => setTimeout(r, 300));
    await expect(tc.client.resource(MachineConfigs).get('98-worker-generated-kubelet')).rejects.toThrow();
    const status = (enabled: string[], disabled: string[]) => ({
      featureGates: [
        { version: '4.99.0', enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) },
      ],
    });
    const withStatus = await tc.client
      .resource(FeatureGates)
      .updateStatus({ ...fg, status: status(['KMSv1'], ['NodeSwap']) });
    const mc = await waitFor('98-worker-generated-kubelet', () =>
      tc.client.resource(MachineConfigs).get('98-worker-generated-kubelet'),
    );
    await waitFor('98-master-generated-kubelet', () =>
      tc.client.resource(MachineConfigs).get('98-master-generated-kubelet'),
    );
    expect(mc.metadata.labels?.['machineconfiguration.openshift.io/role']).toBe('worker');
    expect(mc.metadata.annotations?.['machineconfiguration.openshift.io/generated-by-controller-version']).toBe(
      'v-test',
    );
    expect(kubeletConf(mc.spec?.config as Record<string, unknown>)).toContain(
      'featureGates:\n  KMSv1: true\n  NodeSwap: false\n',
    );
    await tc.client.resource(FeatureGates).updateStatus({ ...withStatus, status: status(['KMSv1', 'NodeSwap'], []) });
    const flipped = await waitFor('gate flipped', async () => {
      const m = await tc.client.resource(MachineConfigs).get('98-worker-generated-kubelet');
      return kubeletConf(m.spec?.config as Record<string, unknown>).includes('NodeSwap: true') ? m : undefined;
    });
    ctrl.controller.enqueue('cluster');
    await new Promise((r) => setTimeout(r, 500));
    await expect(tc.client.resource(MachineConfigs).get('97-worker-generated-kubelet')).rejects.toThrow();
    expect((await tc.client.resource(MachineConfigs).get('98-worker-generated-kubelet')).metadata.resourceVersion).toBe(
      flipped.metadata.resourceVersion,
    );
  });
  it('nodes.config cluster adds 97-<pool>-generated-kubelet: latency profile on workers, cgroup v2 kernel arguments', async () => {
    const crd = parseYaml(
      readFileSync(
        new URL('./data/kubelet/0000_10_config-operator_01_nodes-Default.crd.yaml', import.meta.url),
        'utf8',
      ),
    ) as object;
    await tc.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    await waitFor('nodes.config served', () =>
      tc.client.request('GET', '/apis/config.openshift.io/v1/nodes').then(() => true),
    );
    await tc.client.request('POST', '/apis/config.openshift.io/v1/nodes', {
      body: {
        apiVersion: 'config.openshift.io/v1',
        kind: 'Node',
        metadata: { name: 'cluster' },
        spec: { cgroupMode: 'v2', workerLatencyProfile: 'MediumUpdateAverageReaction' },
      },
    });
    ctrl.controller.enqueue('cluster');
    const w = await waitFor('97-worker-generated-kubelet', () =>
      tc.client.resource(MachineConfigs).get('97-worker-generated-kubelet'),
    );
    expect(w.spec?.kernelArguments).toEqual(['systemd.unified_cgroup_hierarchy=1', 'cgroup_no_v1="all"', 'psi=0']);
    expect(kubeletConf(w.spec?.config as Record<string, unknown>)).toContain('\nnodeStatusUpdateFrequency: 20s\n');
    const m = await waitFor('97-master-generated-kubelet', () =>
      tc.client.resource(MachineConfigs).get('97-master-generated-kubelet'),
    );
    expect(kubeletConf(m.spec?.config as Record<string, unknown>)).toContain('\nnodeStatusUpdateFrequency: 10s\n');
    const w98 = await tc.client.resource(MachineConfigs).get('98-worker-generated-kubelet');
    expect(kubeletConf(w98.spec?.config as Record<string, unknown>)).toContain('\nnodeStatusUpdateFrequency: 20s\n');
  });
});
