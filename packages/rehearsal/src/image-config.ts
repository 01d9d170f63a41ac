/**
 * The image configuration every installed OpenShift cluster has, for the rehearsal's cluster: the config-operator's
 * CRDs for `images.config.openshift.io`, ImageDigestMirrorSet, ImageTagMirrorSet and ImageContentSourcePolicy (the
 * upstream files shipped in @keelson/api) and the `cluster` Image object the machine-config-controller's
 * container-runtime-config controller renders `99-<pool>-generated-registries` from. With them an admin can create
 * an ImageDigestMirrorSet mid-rehearsal (`--hold`, or a test) and watch it reach every node's registries.conf.
 */
import { loadCrds } from '@keelson/api';
import { isAlreadyExists, type KubeClient } from '@keelson/kube';

/** The kinds installed. */
export const IMAGE_CONFIG_KINDS = [
  'Image',
  'ImageDigestMirrorSet',
  'ImageTagMirrorSet',
  'ImageContentSourcePolicy',
] as const;

async function served(client: KubeClient, path: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await client.request('GET', path);
      return;
    } catch (e) {
      if (i >= 200) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

const CLUSTER_IMAGE = { apiVersion: 'config.openshift.io/v1', kind: 'Image', metadata: { name: 'cluster' }, spec: {} };

/** What {@link bootstrapImageConfig} may create (for the cleanup of a rehearsal against an existing server). */
export async function imageConfigObjects(): Promise<{ apiVersion?: string; kind?: string; metadata?: unknown }[]> {
  return [...(await loadCrds([...IMAGE_CONFIG_KINDS])), CLUSTER_IMAGE];
}

/** Creates the image-configuration CRDs (kept when present) and `images.config.openshift.io/cluster` (empty spec). */
export async function bootstrapImageConfig(client: KubeClient): Promise<void> {
  for (const crd of await loadCrds([...IMAGE_CONFIG_KINDS])) {
    try {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    const version = crd.spec.versions.find((v) => v.storage)?.name ?? crd.spec.versions[0]?.name ?? 'v1';
    await served(client, `/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`);
  }
  try {
    await client.request('POST', '/apis/config.openshift.io/v1/images', { body: CLUSTER_IMAGE });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}
