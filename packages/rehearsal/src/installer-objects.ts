/**
 * Cluster configuration the OpenShift installer creates before any operator runs and the rehearsal's cluster gets
 * too: the global pull secret `openshift-config/pull-secret` (openshift/installer `pkg/asset/manifests`
 * `openshift-config-secret-pull-secret.yaml`), which ControllerConfig `spec.pullSecret` names and the MCO's template
 * controller writes to every node's `/var/lib/kubelet/config.json`.
 */

/** The rehearsal's pull secret (kubernetes.io/dockerconfigjson): a credential for the rehearsal's own registry host. */
export function rehearsalPullSecret(): Record<string, unknown> {
  const config = {
    auths: {
      'cloud.openshift.com': {
        auth: Buffer.from('keelson:rehearsal', 'utf8').toString('base64'),
        email: 'rehearsal@keelson.invalid',
      },
    },
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: 'openshift-config' },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config), 'utf8').toString('base64') },
  };
}

/** A config.openshift.io `cluster` object and the status the installer / operators give it. */
export interface ClusterConfigObject {
  plural: string;
  object: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const meta = { name: 'cluster' };
const obj = (kind: string, spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'config.openshift.io/v1',
  kind,
  metadata: meta,
  spec,
});

/**
 * The cluster configuration objects of the rehearsal's cluster, as the installer's bootstrap manifests create them
 * (`cluster-infrastructure-02-config.yml`, `cluster-network-02-config.yml`, `cluster-proxy-01-config.yaml`,
 * `cluster-dns-02-config.yml`, and the APIServer / Image `cluster` objects the config operator creates): platform None,
 * highly available, OVN-Kubernetes on IPv4, no proxy, base domain `keelson.local`.
 */
export function rehearsalClusterConfig(): ClusterConfigObject[] {
  return [
    {
      plural: 'infrastructures',
      object: obj('Infrastructure', { cloudConfig: { name: '' }, platformSpec: { type: 'None' } }),
      status: {
        apiServerURL: 'https://api.keelson.local:6443',
        apiServerInternalURI: 'https://api-int.keelson.local:6443',
        controlPlaneTopology: 'HighlyAvailable',
        infrastructureTopology: 'HighlyAvailable',
        cpuPartitioning: 'None',
        etcdDiscoveryDomain: '',
        infrastructureName: 'keelson',
        platform: 'None',
        platformStatus: { type: 'None' },
      },
    },
    {
      plural: 'networks',
      object: obj('Network', {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        externalIP: { policy: {} },
        networkType: 'OVNKubernetes',
        serviceNetwork: ['172.30.0.0/16'],
      }),
      status: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        clusterNetworkMTU: 1400,
        networkType: 'OVNKubernetes',
        serviceNetwork: ['172.30.0.0/16'],
      },
    },
    { plural: 'proxies', object: obj('Proxy', { trustedCA: { name: '' } }) },
    { plural: 'dnses', object: obj('DNS', { baseDomain: 'keelson.local' }) },
    { plural: 'apiservers', object: obj('APIServer', {}) },
    {
      plural: 'images',
      object: obj('Image', {}),
      status: { internalRegistryHostname: 'image-registry.openshift-image-registry.svc:5000' },
    },
  ];
}
