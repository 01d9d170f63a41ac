/** Serving the upstream OpenShift CRDs shipped in @keelson/api from a sandbox. */
import { loadCrds, type OpenShiftKind } from '@keelson/api';
import type { Cluster } from './cluster.js';
import { ApiError } from './errors.js';
import { generateCaCert } from './tls.js';
import type { KubeObject } from './types.js';
import { must } from './util.js';

/** Anything holding a sandbox cluster (a {@link Sandbox} or the cluster itself). */
export type CrdTarget = { readonly cluster: Cluster } | Cluster;

/**
 * Creates (or, when one of that name exists, replaces the spec of) the upstream OpenShift CRDs of `kinds`
 * (default: all shipped in @keelson/api: ClusterVersion, ClusterOperator, MachineConfig, MachineConfigPool,
 * ControllerConfig, KubeletConfig, ContainerRuntimeConfig, MachineConfigNode, MachineConfiguration, Image,
 * ImageDigestMirrorSet, ImageTagMirrorSet, ImageContentSourcePolicy).
 * They are Established and served when the promise resolves. Returns the CRD names.
 */
export async function installOpenShiftCrds(target: CrdTarget, kinds?: readonly OpenShiftKind[]): Promise<string[]> {
  const cluster = 'cluster' in target ? target.cluster : target;
  const crdType = must(
    cluster.findType('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'),
    'built-in type apiextensions.k8s.io/v1/customresourcedefinitions',
  );
  const names: string[] = [];
  for (const crd of await loadCrds(kinds)) {
    const name = crd.metadata.name ?? '';
    const existing = cluster.peek(crdType, undefined, name);
    const body = crd as unknown as KubeObject;
    if (existing)
      cluster.update(
        crdType,
        undefined,
        name,
        { ...body, metadata: { ...existing.metadata, ...body.metadata } },
        { fieldManager: 'keelson-sandbox' },
      );
    else cluster.create(crdType, undefined, body, { fieldManager: 'keelson-sandbox' });
    names.push(name);
  }
  return names;
}

/** PEM bundles of {@link installClusterCABundles}; each one absent is generated (openssl, self-signed). */
export interface ClusterCABundles {
  /** `kube-system/root-ca` `ca.crt` (the installer's root CA). */
  rootCA?: string;
  /** `openshift-config/initial-kube-apiserver-server-ca` `ca-bundle.crt` (the installer's serving CA bundle). */
  initialKubeAPIServerServerCA?: string;
  /** `openshift-config-managed/kube-apiserver-client-ca` `ca-bundle.crt` (published by the kube-apiserver operator). */
  kubeAPIServerClientCA?: string;
  /** Create `kube-system/bootstrap` (`status: complete`), as the installer does when bootstrap ends. Default true. */
  bootstrapComplete?: boolean;
}

/** The signers of each bundle, as an installed OpenShift cluster names them. */
const CA_SUBJECTS = {
  rootCA: ['/OU=openshift/CN=root-ca'],
  initialKubeAPIServerServerCA: [
    '/OU=openshift/CN=kube-apiserver-lb-signer',
    '/OU=openshift/CN=kube-apiserver-localhost-signer',
    '/OU=openshift/CN=kube-apiserver-service-network-signer',
  ],
  kubeAPIServerClientCA: [
    '/OU=openshift/CN=admin-kubeconfig-signer',
    '/OU=openshift/CN=kube-apiserver-to-kubelet-signer',
    '/OU=openshift/CN=kubelet-signer',
  ],
} as const;

/**
 * The objects carrying the CA bundles an installed OpenShift cluster has and the machine-config-operator reads into
 * its ControllerConfig (`rootCAData`, `kubeAPIServerServingCAData`): the `openshift-config` and
 * `openshift-config-managed` Namespaces, then the ConfigMaps `kube-system/root-ca`,
 * `openshift-config/initial-kube-apiserver-server-ca`, `openshift-config-managed/kube-apiserver-client-ca` and
 * (unless `bootstrapComplete: false`) `kube-system/bootstrap`. Bundles not given are generated (openssl).
 */
export async function clusterCABundleObjects(bundles: ClusterCABundles = {}): Promise<KubeObject[]> {
  const gen = async (k: keyof typeof CA_SUBJECTS): Promise<string> =>
    bundles[k] ?? (await Promise.all(CA_SUBJECTS[k].map((s) => generateCaCert(s)))).join('');
  const [rootCA, initial, client] = await Promise.all([
    gen('rootCA'),
    gen('initialKubeAPIServerServerCA'),
    gen('kubeAPIServerClientCA'),
  ]);
  const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const cm = (namespace: string, name: string, data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data,
  });
  return [
    ns('openshift-config'),
    ns('openshift-config-managed'),
    cm('kube-system', 'root-ca', { 'ca.crt': rootCA }),
    cm('openshift-config', 'initial-kube-apiserver-server-ca', { 'ca-bundle.crt': initial }),
    cm('openshift-config-managed', 'kube-apiserver-client-ca', { 'ca-bundle.crt': client }),
    ...((bundles.bootstrapComplete ?? true) ? [cm('kube-system', 'bootstrap', { status: 'complete' })] : []),
  ];
}

/** Creates the objects of {@link clusterCABundleObjects} in a sandbox (existing ones are kept); returns them. */
export async function installClusterCABundles(
  target: CrdTarget,
  bundles: ClusterCABundles = {},
): Promise<KubeObject[]> {
  const cluster = 'cluster' in target ? target.cluster : target;
  const objects = await clusterCABundleObjects(bundles);
  for (const o of objects) {
    const t = must(
      cluster.findType('', 'v1', o.kind === 'Namespace' ? 'namespaces' : 'configmaps'),
      `built-in type v1/${o.kind ?? ''}`,
    );
    try {
      cluster.create(t, o.metadata?.namespace, o, { fieldManager: 'keelson-sandbox' });
    } catch (e) {
      if (!(e instanceof ApiError && e.httpCode === 409)) throw e;
    }
  }
  return objects;
}
