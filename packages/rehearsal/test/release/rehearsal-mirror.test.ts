/**
 * `mirrorTarget`: release B is published only under the mirror repository of the rehearsal registry (as a
 * disconnected cluster's mirror holds it), while its pull spec keeps naming the source repository.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryClient, parseImageReference } from '@keelson/release-payload';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  publishRehearsalReleases,
  REHEARSAL_MIRROR_REPOSITORY,
  REHEARSAL_REPOSITORY,
  type PublishedReleases,
} from '../../src/release/index.js';

let work = '';
let pub: PublishedReleases;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rehearsal-mirror-'));
  pub = await publishRehearsalReleases({ out: join(work, 'releases'), mirrorTarget: true });
}, 60_000);

afterAll(async () => {
  await pub.close();
  await rm(work, { recursive: true, force: true });
});

const manifestStatus = async (repo: string, reference: string): Promise<{ status: number; code?: string }> => {
  const res = await fetch(`http://${pub.registry.host}/v2/${repo}/manifests/${reference}`);
  if (res.ok) return { status: res.status };
  return { status: res.status, code: ((await res.json()) as { errors: { code: string }[] }).errors[0]?.code ?? '' };
};

describe('a rehearsal target published only under a mirror', { timeout: 60_000 }, () => {
  it('names the source repository in its pull spec, which does not hold it', async () => {
    expect(pub.mirror).toEqual({
      source: `${pub.registry.host}/${REHEARSAL_REPOSITORY}`,
      mirror: `${pub.registry.host}/${REHEARSAL_MIRROR_REPOSITORY}`,
    });
    expect(pub.to.pullSpec).toBe(`${pub.registry.host}/${REHEARSAL_REPOSITORY}@${pub.to.digest}`);
    expect(pub.to.tagPullSpec).toBe(`${pub.registry.host}/${REHEARSAL_REPOSITORY}:4.18.8-x86_64`);
    expect(await manifestStatus(REHEARSAL_REPOSITORY, pub.to.digest)).toEqual({
      status: 404,
      code: 'MANIFEST_UNKNOWN',
    });
  });

  it('is served by digest from the mirror repository; A stays in the source repository only', async () => {
    expect(pub.to.mirrorPullSpec).toBe(`${pub.registry.host}/${REHEARSAL_MIRROR_REPOSITORY}@${pub.to.digest}`);
    const client = new RegistryClient(parseImageReference(pub.to.mirrorPullSpec ?? ''), { plainHttp: true });
    expect((await client.manifest(pub.to.digest)).digest).toBe(pub.to.digest);
    expect(pub.from.mirrorPullSpec).toBeUndefined();
    expect(await manifestStatus(REHEARSAL_REPOSITORY, pub.from.digest)).toEqual({ status: 200 });
    expect(await manifestStatus(REHEARSAL_MIRROR_REPOSITORY, pub.from.digest)).toEqual({
      status: 404,
      code: 'MANIFEST_UNKNOWN',
    });
  });
});
