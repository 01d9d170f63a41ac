/**
 * The release image a directory payload is rendered with: "" by default (upstream `LoadUpdate(dir, "", ...)`),
 * so the rendered `manifests/` templates and the version hash do not depend on how the path is spelled.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER_PROFILE, filterManifests, openPayload } from '../src/index.js';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rp-release-image-'));
  await mkdir(join(dir, 'manifests'));
  await mkdir(join(dir, 'release-manifests'));
  await writeFile(
    join(dir, 'release-manifests/release-metadata'),
    JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '4.18.1' }),
  );
  await writeFile(
    join(dir, 'release-manifests/image-references'),
    'kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 4.18.1\n',
  );
  // like the CVO's own install/ template: the deployment runs the release image
  await writeFile(
    join(dir, 'manifests/0000_00_cluster-version-operator_30_deployment.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cluster-version-operator\n  namespace: openshift-cluster-version\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\nspec:\n  template:\n    spec:\n      containers:\n      - name: cluster-version-operator\n        image: \'{{.ReleaseImage}}\'\n',
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const facts = { profile: DEFAULT_CLUSTER_PROFILE, featureSet: '', enabledFeatureGates: [] as string[] };
const image = (raw: Uint8Array): string => /"image":"([^"]*)"/.exec(Buffer.from(raw).toString('utf8'))?.[1] ?? '<none>';

describe('release image of a directory payload', () => {
  it('defaults to "" and gives one version hash for every spelling of the path', async () => {
    const spellings = [
      dir,
      `${dir}/`,
      join(dir, '..', basename(dir)),
      relative(process.cwd(), dir),
      `./${relative(process.cwd(), dir)}`,
    ];
    const hashes = new Set<string>();
    for (const s of spellings) {
      const p = await openPayload(s);
      expect(p.releaseImage).toBe('');
      const deployment = p.manifests.find((m) => m.dir === 'manifests');
      expect(deployment && image(deployment.raw)).toBe('');
      hashes.add(filterManifests(p, facts).versionHash);
    }
    expect(hashes.size).toBe(1);
  });

  it('renders the given release image, and "" when asked for explicitly', async () => {
    const pinned = await openPayload(dir, {
      releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'ab'.repeat(32),
    });
    const deployment = pinned.manifests.find((m) => m.dir === 'manifests');
    expect(deployment && image(deployment.raw)).toBe(
      'quay.io/openshift-release-dev/ocp-release@sha256:' + 'ab'.repeat(32),
    );
    const empty = await openPayload(dir, { releaseImage: '' });
    const byDefault = await openPayload(dir);
    expect(filterManifests(empty, facts).versionHash).toBe(filterManifests(byDefault, facts).versionHash);
    expect(filterManifests(pinned, facts).versionHash).not.toBe(filterManifests(byDefault, facts).versionHash);
  });
});
