/** Cluster-scoped config objects the CVO reads (config.openshift.io Infrastructure, Proxy, APIServer; core Service). */
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

/** `config.openshift.io/v1` Proxy `cluster`. */
export interface Proxy extends KubeObject {
  spec?: { trustedCA?: { name?: string } };
  status?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
}

/** `config.openshift.io/v1` APIServer `cluster` (TLS profile for `config.openshift.io/inject-tls`). */
export interface APIServer extends KubeObject {
  spec?: {
    tlsSecurityProfile?: {
      type?: string;
      custom?: { ciphers?: string[]; minTLSVersion?: string };
    } | null;
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

export const Proxies = defineResource<Proxy>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'Proxy',
  plural: 'proxies',
  namespaced: false,
});

export const APIServers = defineResource<APIServer>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'APIServer',
  plural: 'apiservers',
  namespaced: false,
});
