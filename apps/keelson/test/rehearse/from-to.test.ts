/**
 * `keelson rehearse --from DIR|IMAGE --to DIR|IMAGE` with releases as a user has them, the CLI as a real child process:
 * release A as an OCI image layout on disk (trusting a signing key and a signature store), release B as a signed image
 * in a registry (both from @keelson/payload-gen, served over loopback HTTP by this test); the rehearsal verifies B
 * against A's trust, republishes A, installs it and updates to B with the real components. Then releases that cannot
 * be rehearsed, each refused up front with its typed error (no component started): the upstream CVO test payload
 * (no CVO/MCO manifests), a release without the MCO's osimageurl ConfigMap, the same version twice, and unsigned
 * directories (which `--force` would accept).
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildReleaseImage,
  generateRehearsalReleases,
  publishRehearsalReleases,
  type OciImage,
  type PublishedReleases,
} from '@keelson/payload-gen';
import { openPayload } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  machineConfigManifestsDir,
  type RehearsalReport,
  assertTargetVerifiable,
  byDigest,
  findPayloadProblems,
  RehearsalPayloadError,
} from '@keelson/rehearsal';
import { cli, UPSTREAM_PAYLOADS } from '../cli-helpers.js';

/** Writes an image as an OCI image layout (what `skopeo copy … oci:DIR` leaves a user with). */
async function writeOciLayout(image: OciImage, dir: string): Promise<void> {
  const blobs = join(dir, 'blobs', 'sha256');
  await mkdir(blobs, { recursive: true });
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(blobs, image.digest.slice('sha256:'.length)), image.manifest);
  for (const [digest, data] of image.blobs) await writeFile(join(blobs, digest.slice('sha256:'.length)), data);
  const descriptor = {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    digest: image.digest,
    size: image.manifest.length,
    annotations: { 'org.opencontainers.image.ref.name': 'latest' },
  };
  await writeFile(join(dir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: [descriptor] }));
}

let work: string;
let published: PublishedReleases;
let unsigned: { from: string; to: string };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'keelson-from-to-'));
  const mco = await machineConfigManifestsDir();
  published = await publishRehearsalReleases({
    out: join(work, 'signed'),
    ...(mco !== undefined ? { machineConfigManifestsDir: mco } : {}),
  });
  const gen = await generateRehearsalReleases({
    out: join(work, 'unsigned'),
    ...(mco !== undefined ? { machineConfigManifestsDir: mco } : {}),
  });
  unsigned = { from: gen.from.dir, to: gen.to.dir };
}, 120_000);

afterAll(async () => {
  await published.close();
  await rm(work, { recursive: true, force: true });
});

describe('rehearse --from OCI-LAYOUT --to docker://IMAGE', { timeout: 600_000 }, () => {
  it("verifies B against A's trust, installs A from the layout and updates to B", async () => {
    const layout = join(work, 'a-layout');
    await writeOciLayout(
      await buildReleaseImage(published.from.dir, { 'io.openshift.release': published.from.version }),
      layout,
    );
    const r = await cli(
      'rehearse',
      '--from',
      layout,
      '--to',
      `docker://${published.to.pullSpec}`,
      '--masters',
      '1',
      '--workers',
      '1',
      '--time-scale',
      '120',
      '--timeout',
      '400',
      '--json',
    );
    expect(r.stdout, r.stderr).not.toBe('');
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report.outcome, `${report.message}\n${r.stderr}`).toBe('Completed');
    expect(r.code).toBe(0);
    expect(report.from).toBe(published.from.version);
    expect(report.to).toBe(published.to.version);
    expect(report.pools.map((p) => [p.name, p.updated])).toEqual([
      ['master', 1],
      ['worker', 1],
    ]);
    // the simulated operators followed B's ClusterOperators: every one of them reached B
    const b = await openPayload(published.to.dir);
    const cos = b.manifests
      .filter((m) => m.gvk.kind === 'ClusterOperator')
      .map((m) => m.name)
      .sort();
    expect(report.operators.map((o) => o.name).sort()).toEqual(cos);
    for (const o of report.operators) expect(o.reachedMs, o.name).not.toBeNull();
  });
});

describe('releases that cannot be rehearsed are refused up front', { timeout: 120_000 }, () => {
  it('the upstream CVO test payload: no CVO, MCO manifests or pools', async () => {
    const r = await cli('rehearse', '--from', join(UPSTREAM_PAYLOADS, 'payloadtest'), '--to', unsigned.to, '--quiet');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `--from ${join(UPSTREAM_PAYLOADS, 'payloadtest')}: the payload's manifests/ directory has no Namespace openshift-cluster-version`,
    );
    expect(r.stderr).toContain('REHEARSAL_NO_CVO_MANIFESTS');
    const problems = findPayloadProblems(await openPayload(join(UPSTREAM_PAYLOADS, 'payloadtest'))).map((p) => p.code);
    expect(problems).toEqual(['REHEARSAL_NO_CVO_MANIFESTS', 'REHEARSAL_NO_MCO_MANIFESTS', 'REHEARSAL_NO_POOLS']);
  });

  it("a target without the MCO's osimageurl ConfigMap", async () => {
    const b = join(work, 'no-osimageurl');
    await cp(unsigned.to, b, { recursive: true });
    await rm(join(b, 'release-manifests', '0000_80_machine-config_05_osimageurl.yaml'));
    const r = await cli('rehearse', '--from', unsigned.from, '--to', b, '--force', '--quiet');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--to .*no-osimageurl: no 0000_80_machine-config_\* manifest defines ConfigMap openshift-machine-config-operator\/machine-config-osimageurl/,
    );
    expect(r.stderr).toContain('REHEARSAL_NO_MCO_MANIFESTS');
  });

  it('the same release twice', async () => {
    const r = await cli('rehearse', '--from', unsigned.from, '--to', unsigned.from, '--force', '--quiet');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the same as --from');
    expect(r.stderr).toContain('REHEARSAL_SAME_VERSION');
  });

  it('an unsigned target: says to sign it or pass --force', async () => {
    const r = await cli('rehearse', '--from', unsigned.from, '--to', unsigned.to, '--quiet');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('REHEARSAL_UNSIGNED_TARGET');
    expect(r.stderr).toContain('carries no ConfigMap annotated release.openshift.io/verification-config-map');
    expect(r.stderr).toContain('pass --force');
  });

  it('a directory target of a release that trusts a key: the rehearsal cannot sign it', async () => {
    const a = await openPayload(published.from.dir);
    const err = await assertTargetVerifiable(a, { pullSpec: 'x', fromDirectory: true }, published.to.dir, false).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RehearsalPayloadError);
    expect((err as RehearsalPayloadError).code).toBe('REHEARSAL_UNSIGNED_TARGET');
    expect((err as Error).message).toContain(`verifier-public-key-${published.keyName}`);
    expect((err as Error).message).toContain(published.store.url);
    await expect(
      assertTargetVerifiable(a, { pullSpec: 'x', fromDirectory: true }, published.to.dir, true),
    ).resolves.toBeUndefined();
  });

  it("an image whose signature is not in A's stores", async () => {
    const a = await openPayload(published.from.dir);
    // a digest nobody signed, in the registry A's store would vouch for
    const pullSpec = `${published.to.pullSpec.split('@')[0] ?? ''}@sha256:${'0'.repeat(64)}`;
    const err = await assertTargetVerifiable(a, { pullSpec, fromDirectory: false }, 'docker://x', false).catch(
      (e: unknown) => e,
    );
    expect((err as RehearsalPayloadError).code).toBe('REHEARSAL_UNSIGNED_TARGET');
    expect((err as Error).message).toContain('has no signature the CVO of');
  });
});

describe('byDigest', () => {
  it('pins a registry reference to the digest it was read at', () => {
    const d = `sha256:${'a'.repeat(64)}`;
    expect(byDigest('docker://127.0.0.1:5000/ocp/release:4.18.8-x86_64', d)).toBe(`127.0.0.1:5000/ocp/release@${d}`);
    expect(byDigest(`quay.io/openshift-release-dev/ocp-release@sha256:${'b'.repeat(64)}`, d)).toBe(
      `quay.io/openshift-release-dev/ocp-release@${d}`,
    );
    expect(byDigest('localhost:5000/release', d)).toBe(`localhost:5000/release@${d}`);
  });
});
