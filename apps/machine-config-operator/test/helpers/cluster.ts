import { loadCrds, type OpenShiftKind } from '@keelson/api';
import { installClusterCABundles, startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { KubeClient, KubeConfig } from '@keelson/kube';

/** A sandbox API server with the OpenShift CRDs of `@keelson/api` (created over HTTP), the MCO namespace and the cluster's CA ConfigMaps. */
export interface TestCluster {
  sandbox: Sandbox;
  client: KubeClient;
  kubeConfig: KubeConfig;
  stop(): Promise<void>;
}

export async function startTestCluster(
  extraKinds: readonly OpenShiftKind[] = [],
  opts: { simulatePods?: boolean } = {},
): Promise<TestCluster> {
  const sandbox = await startSandbox({ historySize: 100_000, ...opts });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sandbox.kubeconfigYaml());
  const client = new KubeClient(kubeConfig);
  for (const crd of await loadCrds([
    'ClusterOperator',
    'MachineConfig',
    'MachineConfigPool',
    'ControllerConfig',
    'KubeletConfig',
    'ContainerRuntimeConfig',
    ...extraKinds,
  ])) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    const v = crd.spec.versions[0]?.name ?? 'v1';
    for (let i = 0; ; i++) {
      try {
        await client.request('GET', `/apis/${crd.spec.group}/${v}/${crd.spec.names.plural}`);
        break;
      } catch (e) {
        if (i > 100) throw e;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-config-operator' } },
  });
  // the CA ConfigMaps of an installed cluster, read into the ControllerConfig
  await installClusterCABundles(sandbox);
  // the installer's global pull secret, which ControllerConfig spec.pullSecret names (the template controller reads it)
  await client.request('POST', '/api/v1/namespaces/openshift-config/secrets', {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pull-secret', namespace: 'openshift-config' },
      type: 'kubernetes.io/dockerconfigjson',
      data: {
        '.dockerconfigjson': Buffer.from('{"auths":{"quay.io":{"auth":"a2VlbHNvbjp0ZXN0"}}}').toString('base64'),
      },
    },
  });
  return {
    sandbox,
    client,
    kubeConfig,
    stop: async () => {
      await client.close();
      await sandbox.stop();
    },
  };
}

/** Polls `fn` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() - start > timeoutMs)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
