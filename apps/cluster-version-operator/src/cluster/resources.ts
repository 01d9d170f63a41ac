/** Objects the CVO reads (config.openshift.io Infrastructure; core Service). */
import { defineResource, type KubeObject } from '@keelson/kube';

/** Core `v1` Service (only what the CVO reads). */
export interface Service extends KubeObject {
  spec?: { clusterIP?: string; ports?: Array<{ name?: string; port: number }> };
}

/** `config.openshift.io/v1` Infrastructure `cluster` (the fields the CVO reads). */
export interface Infrastructure extends KubeObject {
  status?: {
    controlPlaneTopology?: string;
    infrastructureTopology?: string;
    apiServerInternalURI?: string;
    apiServerURL?: string;
  };
}

export const Services = defineResource<Service>({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  namespaced: true,
});

export const Infrastructures = defineResource<Infrastructure>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'Infrastructure',
  plural: 'infrastructures',
  namespaced: false,
});
