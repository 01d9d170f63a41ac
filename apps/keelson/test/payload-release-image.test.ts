/** `keelson payload info DIR`: the release image defaults to "" like upstream, so the hash does not depend on the path spelling. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliIn } from './cli-helpers.js';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keelson-release-image-'));
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
  await writeFile(
    join(dir, 'manifests/0000_00_cluster-version-operator_30_deployment.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cluster-version-operator\n  namespace: openshift-cluster-version\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: "true"\nspec:\n  template:\n    spec:\n      containers:\n      - name: cluster-version-operator\n        image: \'{{.ReleaseImage}}\'\n',
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function hash(cwd: string, ...args: string[]): Promise<string> {
  const r = await cliIn(cwd, 'payload', 'info', '-o', 'json', ...args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { versionHash: string }).versionHash;
}

describe('keelson payload info DIR --release-image', { timeout: 60_000 }, () => {
  it('gives one hash for dir, ./dir, dir/ and /abs/dir', async () => {
    const parent = dirname(dir);
    const name = basename(dir);
    const hashes = new Set([
      await hash(parent, name),
      await hash(parent, `./${name}`),
      await hash(parent, `${name}/`),
      await hash('/', dir),
    ]);
    expect(hashes.size).toBe(1);
  });

  it("honours --release-image '' and a pull spec", async () => {
    const byDefault = await hash('/', dir);
    expect(await hash('/', '--release-image', '', dir)).toBe(byDefault);
    expect(await hash('/', '--release-image', 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64', dir)).not.toBe(
      byDefault,
    );
  });
});
