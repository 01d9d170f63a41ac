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
