/**
 * Loads the cluster configuration fixtures (`test/fixtures/cluster-config`): upstream's config.openshift.io CRDs (shipped
 * in @keelson/api `crds/config`) and a
 * realistic profile's objects, created in the embedded API server as an installed cluster has them (status written
 * through the status subresource).
 */
import { readFile } from 'node:fs/promises';
import { loadConfigCrds } from '@keelson/api';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { KubeApiError, type KubeClient } from '@keelson/kube';
import { waitFor } from './cluster.js';

const DIR = fileURLToPath(new URL('../fixtures/cluster-config/', import.meta.url));

/** The profiles of `fixtures/cluster-config/profiles`. */
export const PROFILES = ['aws', 'baremetal', 'vsphere', 'none-sno', 'ipv6', 'proxy'] as const;
export type Profile = (typeof PROFILES)[number];

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  status?: unknown;
} & Record<string, unknown>;

const PLURALS: Record<string, string> = {
  Infrastructure: 'infrastructures',
  Network: 'networks',
  Proxy: 'proxies',
  DNS: 'dnses',
  Image: 'images',
  APIServer: 'apiservers',
  ConfigMap: 'configmaps',
  Secret: 'secrets',
};

/** Collection path of an object. */
export function collectionPath(o: Pick<Obj, 'apiVersion' | 'kind' | 'metadata'>): string {
  const plural = PLURALS[o.kind];
  if (plural === undefined) throw new Error(`fixture: unexpected kind ${o.kind}`);
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  return o.metadata.namespace !== undefined
    ? `${base}/namespaces/${o.metadata.namespace}/${plural}`
    : `${base}/${plural}`;
}

/** Installs upstream's config.openshift.io CRDs (release-4.20, from @keelson/api) and waits until each is served. */
export async function installConfigCrds(client: KubeClient): Promise<void> {
  for (const crd of await loadConfigCrds()) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    await waitFor(
      `${crd.spec.names.plural} served`,
      async () => (await client.request('GET', `/apis/${crd.spec.group}/v1/${crd.spec.names.plural}`)) ?? undefined,
    );
  }
}

/** The objects of a profile. */
export async function profileObjects(p: Profile): Promise<Obj[]> {
  const text = await readFile(`${DIR}profiles/${p}.yaml`, 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as Obj);
}

/**
 * Creates an object, then writes its status through the status subresource when its CRD has one (the create drops it
 * there; a CRD without the subresource, as Network's, keeps the status of the create).
 */
export async function createWithStatus(client: KubeClient, o: Obj): Promise<void> {
  const path = collectionPath(o);
  const created = await client.request<Obj>('POST', path, { body: o });
  if (o.status === undefined || o.apiVersion === 'v1') return;
  try {
    await client.request('PUT', `${path}/${o.metadata.name}/status`, { body: { ...created, status: o.status } });
  } catch (e) {
    if (!(e instanceof KubeApiError && e.status === 404)) throw e;
  }
}

/** Installs the CRDs, then a profile's objects. */
export async function loadProfile(client: KubeClient, p: Profile): Promise<Obj[]> {
  await installConfigCrds(client);
  const objects = await profileObjects(p);
  for (const o of objects) await createWithStatus(client, o);
  return objects;
}
