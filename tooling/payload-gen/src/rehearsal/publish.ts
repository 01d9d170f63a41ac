/**
 * Everything a rehearsal needs to fetch releases the real way: releases A and B generated, pushed as OCI images to an
 * in-process registry, signed with a key made for the rehearsal, signatures served from a loopback store that A's
 * `release-verification` ConfigMap trusts.
 */
import { startOciRegistry, type OciRegistry } from './registry-server.js';
import { buildReleaseImage } from './oci-image.js';
import {
  generateRehearsalReleases,
  type RehearsalRelease,
  type RehearsalReleaseOptions,
  type RehearsalReleases,
} from './releases.js';
import {
  generateSigningKey,
  signReleaseDigest,
  startSignatureStore,
  type SignatureStoreServer,
  type SigningKey,
} from './signing.js';

/** A release published to the rehearsal registry. */
export interface PublishedRelease extends RehearsalRelease {
  /** Pull spec by digest (`127.0.0.1:<port>/openshift-release-dev/ocp-release@sha256:…`). */
  pullSpec: string;
  /** Pull spec by tag (`…:<version>-x86_64`), the signature's docker-reference. */
  tagPullSpec: string;
  /** Release image manifest digest. */
  digest: string;
}

/** Releases, registry, signature store and key of one rehearsal; {@link PublishedReleases.close} stops the servers. */
export interface PublishedReleases extends Omit<RehearsalReleases, 'from' | 'to'> {
  from: PublishedRelease;
  to: PublishedRelease;
  registry: OciRegistry;
  store: SignatureStoreServer;
  key: SigningKey;
  /** Name of the key in the verification ConfigMap. */
  keyName: string;
  close(): Promise<void>;
}

/** Repository the rehearsal's release images are pushed to. */
export const REHEARSAL_REPOSITORY = 'openshift-release-dev/ocp-release';

/** Generates, publishes and signs releases A and B (both signed, as every real release is). */
export async function publishRehearsalReleases(
  options: Omit<RehearsalReleaseOptions, 'verification'>,
): Promise<PublishedReleases> {
  const key = await generateSigningKey();
  const store = await startSignatureStore();
  const registry = await startOciRegistry();
  try {
    const keyName = 'keelson-rehearsal';
    const releases = await generateRehearsalReleases({
      ...options,
      verification: { keyName, publicKey: key.publicKey, storeUrl: store.url },
    });
    const publish = async (r: RehearsalRelease): Promise<PublishedRelease> => {
      const image = await buildReleaseImage(r.dir, {
        'io.openshift.release': r.version,
        'io.openshift.release.base-image-digest': '',
      });
      const tag = `${r.version}-x86_64`;
      const pullSpec = registry.put(REHEARSAL_REPOSITORY, tag, image);
      const tagPullSpec = `${registry.host}/${REHEARSAL_REPOSITORY}:${tag}`;
      store.add(image.digest, await signReleaseDigest(image.digest, tagPullSpec, key.privateKey));
      return { ...r, pullSpec, tagPullSpec, digest: image.digest };
    };
    return {
      ...releases,
      from: await publish(releases.from),
      to: await publish(releases.to),
      registry,
      store,
      key,
      keyName,
      close: async () => {
        await registry.close();
        await store.close();
      },
    };
  } catch (e) {
    await registry.close();
    await store.close();
    throw e;
  }
}
