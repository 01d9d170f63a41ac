/**
 * Small release payloads for end-to-end tests of the CVO and the CLI: a few components at their run levels, each a
 * Namespace, a ConfigMap, an operator Deployment (whose pod carries `RELEASE_VERSION`, as the sandbox's
 * cluster-operator simulator reads it) and a ClusterOperator naming its namespace in `relatedObjects`; optionally the
 * CVO's own `manifests/`, a release-verification ConfigMap and an object a later release deletes with
 * `release.openshift.io/delete`. Written as a payload directory and, with {@link writeReleaseImageLayout}, as an OCI
 * image layout that `skopeo` and the release-payload reader accept.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildReleaseImage, OCI_MEDIA_TYPES } from './oci-image.js';

/** The components of a test release: run level and name (one ClusterOperator each). */
export const TEST_RELEASE_COMPONENTS: readonly (readonly [level: string, name: string])[] = [
  ['10', 'config-operator'],
  ['50', 'ingress'],
  ['50', 'dns'],
  ['70', 'console'],
];

/** Options of {@link writeTestRelease}. */
export interface TestReleaseOptions {
  /** Release version (release-metadata, image-references, operator versions). */
  version: string;
  /** Components (default {@link TEST_RELEASE_COMPONENTS}). */
  components?: readonly (readonly [level: string, name: string])[];
  /** A directory whose files are copied into `manifests/` (the CVO's own manifests). */
  cvoManifestsDir?: string;
  /**
   * A release-verification ConfigMap trusting `publicKey` and the signature store `store`; its keys are
   * `verifier-public-key-<name>` and `store-<name>` (name default `test`).
   */
  verification?: { publicKey: string; store: string; name?: string };
  /** The ConfigMap `ingress-obsolete` (run level 50): `keep` writes it, `delete` marks it `release.openshift.io/delete`. */
  obsoleteManifest?: 'keep' | 'delete';
}

const PROFILE = { 'include.release.openshift.io/self-managed-high-availability': 'true' } as const;

/** Namespace of a test component (`openshift-<component>`). */
export function testComponentNamespace(component: string): string {
  return `openshift-${component}`;
}

const meta = (name: string, namespace?: string): Record<string, unknown> => ({
  name,
  ...(namespace !== undefined ? { namespace } : {}),
  annotations: { ...PROFILE },
});
const json = (o: unknown): string => JSON.stringify(o, null, 1);

function componentDeployment(component: string, ns: string, version: string): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(`${component}-operator`, ns),
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: component } },
      template: {
        metadata: { labels: { app: component } },
        spec: {
          containers: [
            {
              name: 'operator',
              image: `quay.io/keelson/${component}:${version}`,
              ports: [{ containerPort: 8443, name: 'https' }],
              env: [{ name: 'RELEASE_VERSION', value: version }],
            },
          ],
        },
      },
    },
  };
}

/** The manifests of one component, by file name. */
export function testComponentManifests(level: string, component: string, version: string): Record<string, string> {
  const ns = testComponentNamespace(component);
  return {
    [`0000_${level}_${component}_00_namespace.yaml`]: json({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(ns) }),
    [`0000_${level}_${component}_01_config.yaml`]: json({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(`${component}-config`, ns),
      data: { version, component },
    }),
    [`0000_${level}_${component}_02_deployment.yaml`]: json(componentDeployment(component, ns, version)),
    [`0000_${level}_${component}_99_clusteroperator.yaml`]: json({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: meta(component),
      status: {
        versions: [{ name: 'operator', version }],
        relatedObjects: [{ group: '', resource: 'namespaces', name: ns }],
      },
    }),
  };
}

function verificationConfigMap(v: NonNullable<TestReleaseOptions['verification']>): string {
  const name = v.name ?? 'test';
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'release-verification',
      namespace: 'openshift-config-managed',
      annotations: { ...PROFILE, 'release.openshift.io/verification-config-map': '' },
    },
    data: { [`verifier-public-key-${name}`]: v.publicKey, [`store-${name}`]: v.store },
  });
}

/** Writes a test release payload directory (`manifests/` + `release-manifests/`) at `root`; returns `root`. */
export async function writeTestRelease(root: string, opts: TestReleaseOptions): Promise<string> {
  const rm = join(root, 'release-manifests');
  await mkdir(join(root, 'manifests'), { recursive: true });
  await mkdir(rm, { recursive: true });
  if (opts.cvoManifestsDir !== undefined) {
    for (const name of await readdir(opts.cvoManifestsDir))
      await writeFile(join(root, 'manifests', name), await readFile(join(opts.cvoManifestsDir, name)));
  }
  const { version } = opts;
  await writeFile(
    join(rm, 'release-metadata'),
    JSON.stringify({ kind: 'cincinnati-metadata-v0', version, previous: [] }),
  );
  await writeFile(
    join(rm, 'image-references'),
    JSON.stringify({
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name: version, creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { tags: [] },
    }),
  );
  await writeFile(
    join(rm, '0000_03_config-operator_00_namespaces.yaml'),
    ['openshift-config', 'openshift-config-managed']
      .map((n) => JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(n) }))
      .join('\n'),
  );
  for (const [level, c] of opts.components ?? TEST_RELEASE_COMPONENTS) {
    for (const [f, text] of Object.entries(testComponentManifests(level, c, version)))
      await writeFile(join(rm, f), text);
  }
  if (opts.obsoleteManifest !== undefined) {
    const annotations =
      opts.obsoleteManifest === 'delete' ? { ...PROFILE, 'release.openshift.io/delete': 'true' } : PROFILE;
    await writeFile(
      join(rm, '0000_50_ingress_05_obsolete.yaml'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'ingress-obsolete', namespace: 'openshift-ingress', annotations },
        data: { old: 'yes' },
      }),
    );
  }
  if (opts.verification !== undefined)
    await writeFile(join(rm, '0000_90_cluster-update-keys_configmap.yaml'), verificationConfigMap(opts.verification));
  return root;
}

/**
 * Packs a release directory as an OCI image layout (`oci-layout`, `index.json`, `blobs/sha256/…`) with one
 * gzip'd layer ({@link buildReleaseImage}); the index entry is tagged `refName` (default `release`). Returns the
 * manifest digest.
 */
export async function writeReleaseImageLayout(
  releaseDir: string,
  layoutDir: string,
  refName = 'release',
  labels: Readonly<Record<string, string>> = { 'io.openshift.release': 'x' },
): Promise<string> {
  const image = await buildReleaseImage(releaseDir, labels);
  const blobDir = join(layoutDir, 'blobs', 'sha256');
  await mkdir(blobDir, { recursive: true });
  for (const [digest, data] of image.blobs) await writeFile(join(blobDir, digest.slice('sha256:'.length)), data);
  await writeFile(join(blobDir, image.digest.slice('sha256:'.length)), image.manifest);
  await writeFile(join(layoutDir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const entry = {
    mediaType: OCI_MEDIA_TYPES.manifest,
    digest: image.digest,
    size: image.manifest.length,
    annotations: { 'org.opencontainers.image.ref.name': refName },
  };
  await writeFile(join(layoutDir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: [entry] }));
  return image.digest;
}
