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
  /**
   * Where the image really is when it was published only under the mirror repository ({@link PublishOptions.mirrorTarget}):
   * `pullSpec` then names the source repository, which answers `MANIFEST_UNKNOWN`/`NAME_UNKNOWN` for it.
   */
  mirrorPullSpec?: string;
}

/** A mirror of the release repository, as an ImageDigestMirrorSet entry (`source` → `mirrors`) declares it. */
export interface ReleaseMirror {
  /** `<registry host>/openshift-release-dev/ocp-release`: the repository pull specs name. */
  source: string;
  /** `<registry host>/keelson-mirror/ocp-release`: the only repository holding the mirrored release. */
  mirror: string;
}

/** Options of {@link publishRehearsalReleases}. */
export interface PublishOptions extends Omit<RehearsalReleaseOptions, 'verification'> {
  /**
   * Publish release B (the update target) only under {@link REHEARSAL_MIRROR_REPOSITORY} of the same registry, as a
   * disconnected cluster's mirror registry holds it (`oc adm release mirror`): B's pull spec still names the source
   * repository, so B is reachable only through an ImageDigestMirrorSet (or ImageContentSourcePolicy) mirror.
   */
  mirrorTarget?: boolean;
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
  /** With {@link PublishOptions.mirrorTarget}: the mirror B is published under. */
  mirror?: ReleaseMirror;
  close(): Promise<void>;
}

/** Repository the rehearsal's release images are pushed to. */
export const REHEARSAL_REPOSITORY = 'openshift-release-dev/ocp-release';

/** Repository of the same registry that mirrors {@link REHEARSAL_REPOSITORY} (with `mirrorTarget`). */
export const REHEARSAL_MIRROR_REPOSITORY = 'keelson-mirror/ocp-release';

/** Generates, publishes and signs releases A and B (both signed, as every real release is). */
export async function publishRehearsalReleases(options: PublishOptions): Promise<PublishedReleases> {
  const { mirrorTarget, ...releaseOptions } = options;
  const key = await generateSigningKey();
  const store = await startSignatureStore();
  const registry = await startOciRegistry();
  try {
    const keyName = 'keelson-rehearsal';
    const releases = await generateRehearsalReleases({
      ...releaseOptions,
      verification: { keyName, publicKey: key.publicKey, storeUrl: store.url },
    });
    const mirror: ReleaseMirror = {
      source: `${registry.host}/${REHEARSAL_REPOSITORY}`,
      mirror: `${registry.host}/${REHEARSAL_MIRROR_REPOSITORY}`,
    };
    const publish = async (r: RehearsalRelease, mirrored: boolean): Promise<PublishedRelease> => {
      const image = await buildReleaseImage(r.dir, {
        'io.openshift.release': r.version,
        'io.openshift.release.base-image-digest': '',
      });
      const tag = `${r.version}-x86_64`;
      const where = registry.put(mirrored ? REHEARSAL_MIRROR_REPOSITORY : REHEARSAL_REPOSITORY, tag, image);
      const pullSpec = `${mirror.source}@${image.digest}`;
      // the signature names the source repository, as `oc adm release mirror` keeps the release's own signature
      const tagPullSpec = `${mirror.source}:${tag}`;
      store.add(image.digest, await signReleaseDigest(image.digest, tagPullSpec, key.privateKey));
      return { ...r, pullSpec, tagPullSpec, digest: image.digest, ...(mirrored ? { mirrorPullSpec: where } : {}) };
    };
    return {
      ...releases,
      from: await publish(releases.from, false),
      to: await publish(releases.to, mirrorTarget === true),
      registry,
      store,
      key,
      keyName,
      ...(mirrorTarget === true ? { mirror } : {}),
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
