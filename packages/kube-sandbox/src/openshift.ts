/** Serving the upstream OpenShift CRDs shipped in @keelson/api from a sandbox. */
import { loadCrds, type OpenShiftKind } from '@keelson/api';
import type { Cluster } from './cluster.js';
import type { KubeObject } from './types.js';
import { must } from './util.js';

/** Anything holding a sandbox cluster (a {@link Sandbox} or the cluster itself). */
export type CrdTarget = { readonly cluster: Cluster } | Cluster;

/**
 * Creates (or, when one of that name exists, replaces the spec of) the upstream OpenShift CRDs of `kinds`
 * (default: all shipped in @keelson/api: ClusterVersion, ClusterOperator, MachineConfig, MachineConfigPool,
 * ControllerConfig, KubeletConfig, ContainerRuntimeConfig, MachineConfigNode, MachineConfiguration).
 * They are Established and served when the promise resolves. Returns the CRD names.
 */
export async function installOpenShiftCrds(target: CrdTarget, kinds?: readonly OpenShiftKind[]): Promise<string[]> {
  const cluster = 'cluster' in target ? target.cluster : target;
  const crdType = must(cluster.findType('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'), 'built-in type apiextensions.k8s.io/v1/customresourcedefinitions');
  const names: string[] = [];
  for (const crd of await loadCrds(kinds)) {
    const name = crd.metadata.name ?? '';
    const existing = cluster.peek(crdType, undefined, name);
    const body = crd as unknown as KubeObject;
    if (existing) cluster.update(crdType, undefined, name, { ...body, metadata: { ...existing.metadata, ...body.metadata } }, { fieldManager: 'keelson-sandbox' });
    else cluster.create(crdType, undefined, body, { fieldManager: 'keelson-sandbox' });
    names.push(name);
  }
  return names;
}
