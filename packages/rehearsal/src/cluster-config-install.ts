/**
 * Installs the config.openshift.io CRDs (upstream openshift/api release-4.20, from @keelson/api) and the rehearsal
 * cluster's configuration objects ({@link rehearsalClusterConfig}), as the installer's bootstrap does before the
 * operators run. Existing CRDs and objects are kept.
 */
import { loadConfigCrds } from '@keelson/api';
import { isAlreadyExists, isNotFound, type KubeClient } from '@keelson/kube';
import { rehearsalClusterConfig } from './installer-objects.js';

async function served(client: KubeClient, path: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await client.request('GET', path);
      return;
    } catch (e) {
      if (!isNotFound(e) || i >= 200) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** What {@link installClusterConfig} may create (for the cleanup of a rehearsal against an existing server). */
export async function clusterConfigObjects(): Promise<{ apiVersion?: string; kind?: string; metadata?: unknown }[]> {
  return [...(await loadConfigCrds()), ...rehearsalClusterConfig().map((c) => c.object)];
}

/** CRDs, then each object (its status through the status subresource when the CRD has one). */
export async function installClusterConfig(client: KubeClient): Promise<void> {
  for (const crd of await loadConfigCrds()) {
    try {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    await served(client, `/apis/${crd.spec.group}/v1/${crd.spec.names.plural}`);
  }
  for (const { plural, object, status } of rehearsalClusterConfig()) {
    const path = `/apis/config.openshift.io/v1/${plural}`;
    let created: Record<string, unknown>;
    try {
      created = await client.request<Record<string, unknown>>('POST', path, {
        body: status === undefined ? object : { ...object, status },
      });
    } catch (e) {
      if (isAlreadyExists(e)) continue;
      throw e;
    }
    if (status === undefined) continue;
    try {
      await client.request('PUT', `${path}/cluster/status`, { body: { ...created, status } });
    } catch (e) {
      if (!isNotFound(e)) throw e; // no status subresource (Network): the create kept the status
    }
  }
}
