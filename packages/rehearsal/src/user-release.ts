/**
 * Whether releases a user brings (`rehearse --from DIR|IMAGE --to DIR|IMAGE`) can be rehearsed: the rehearsal runs the
 * Keelson CVO and MCO from the payload itself, so the payload must carry what they need, and the CVO must be able to
 * accept the target the way a real cluster would (a signature it trusts, or `--force`). Problems are found before
 * anything starts and reported as {@link RehearsalPayloadError}s that say what to do.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { buildReleaseImage, type OciRegistry } from './release/index.js';
import { RUN_LEVEL_COMPONENT_PATTERN } from '@keelson/manifest-graph';
import {
  openPayload,
  verificationConfigFromManifests,
  verifyRelease,
  writePayloadFiles,
  type Manifest,
  type ReleasePayload,
} from '@keelson/release-payload';

/** What is wrong with a user's release. */
export type RehearsalPayloadErrorCode =
  | 'REHEARSAL_NO_VERSION'
  | 'REHEARSAL_SAME_VERSION'
  | 'REHEARSAL_NO_CVO_MANIFESTS'
  | 'REHEARSAL_NO_MCO_MANIFESTS'
  | 'REHEARSAL_NO_POOLS'
  | 'REHEARSAL_UNSIGNED_TARGET'
  | 'REHEARSAL_OPERATOR_AFTER_CLUSTEROPERATOR';

/** A release given with `--from`/`--to` that cannot be rehearsed. */
export class RehearsalPayloadError extends Error {
  constructor(
    readonly code: RehearsalPayloadErrorCode,
    /** `--from` or `--to`. */
    readonly flag: '--from' | '--to',
    /** The path or image the user gave. */
    readonly source: string,
    message: string,
  ) {
    super(`${flag} ${source}: ${message}`);
    this.name = 'RehearsalPayloadError';
  }
}

/** The CVO's namespace: its Lease lives there, created from the payload's `manifests/` as the installer does. */
export const CVO_NAMESPACE = 'openshift-cluster-version';
/** The MCO's namespace and the ConfigMap that carries the release's OS image. */
export const MCO_NAMESPACE = 'openshift-machine-config-operator';
export const OSIMAGEURL_CONFIGMAP = 'machine-config-osimageurl';

/** One problem found by {@link findPayloadProblems}. */
export interface PayloadProblem {
  code: RehearsalPayloadErrorCode;
  message: string;
}

const has = (ms: readonly Manifest[], kind: string, namespace: string, name: string): boolean =>
  ms.some((m) => m.gvk.kind === kind && m.namespace === namespace && m.name === name);

/** What a payload lacks to be rehearsed (pure; empty when it can be). */
export function findPayloadProblems(payload: Pick<ReleasePayload, 'metadata' | 'manifests'>): PayloadProblem[] {
  const out: PayloadProblem[] = [];
  if (payload.metadata.version === '') {
    out.push({
      code: 'REHEARSAL_NO_VERSION',
      message:
        'release-manifests/release-metadata has no version: the CVO reports versions from it; write {"kind":"cincinnati-metadata-v0","version":"X.Y.Z"}',
    });
  }
  const cvo = payload.manifests.filter((m) => m.dir === 'manifests');
  if (!cvo.some((m) => m.gvk.group === '' && m.gvk.kind === 'Namespace' && m.name === CVO_NAMESPACE)) {
    out.push({
      code: 'REHEARSAL_NO_CVO_MANIFESTS',
      message: `the payload's manifests/ directory has no Namespace ${CVO_NAMESPACE} (the CVO's own manifests, which the installer renders before the CVO runs): use a payload extracted whole from a release image (oc adm release extract --to DIR), or generate one with keelson-payload-gen --rehearsal`,
    });
  }
  const release = payload.manifests.filter((m) => m.dir === 'release-manifests');
  const mco = release.filter((m) => m.filename.startsWith('0000_80_machine-config'));
  const missingMco = [
    has(mco, 'ConfigMap', MCO_NAMESPACE, OSIMAGEURL_CONFIGMAP)
      ? undefined
      : `ConfigMap ${MCO_NAMESPACE}/${OSIMAGEURL_CONFIGMAP}`,
    has(mco, 'Deployment', MCO_NAMESPACE, 'machine-config-operator')
      ? undefined
      : `Deployment ${MCO_NAMESPACE}/machine-config-operator`,
  ].filter((x): x is string => x !== undefined);
  if (missingMco.length > 0) {
    out.push({
      code: 'REHEARSAL_NO_MCO_MANIFESTS',
      message: `no 0000_80_machine-config_* manifest defines ${missingMco.join(' or ')}: the rehearsal runs the MCO of the release and needs its manifests (the osimageurl ConfigMap gives the nodes' OS image); add the machine-config-operator's manifests to release-manifests/`,
    });
  }
  const pools = new Set(release.filter((m) => m.gvk.kind === 'MachineConfigPool').map((m) => m.name));
  const missingPools = ['master', 'worker'].filter((p) => !pools.has(p));
  if (missingPools.length > 0) {
    out.push({
      code: 'REHEARSAL_NO_POOLS',
      message: `no MachineConfigPool ${missingPools.join(' or ')} in release-manifests/: a real cluster gets them (and MachineConfigs such as 99-worker-ssh) from the installer; add them to the release as manifests, as keelson-payload-gen --rehearsal does`,
    });
  }
  return out;
}

/** The task-graph node of a release manifest (`0000_<level>_<component>_`), as upstream's ByNumberAndComponent groups them. */
function taskNode(m: Manifest): string | undefined {
  const g = RUN_LEVEL_COMPONENT_PATTERN.exec(m.filename);
  return g === null ? undefined : `${g[1] ?? ''}_${g[2] ?? ''}`;
}

function relatedNamespaces(co: Manifest): Set<string> {
  const related =
    (co.object as { status?: { relatedObjects?: { resource?: unknown; name?: unknown }[] } }).status?.relatedObjects ??
    [];
  return new Set(
    related.filter((r) => r.resource === 'namespaces' && typeof r.name === 'string').map((r) => r.name as string),
  );
}

/**
 * Updates that deadlock: upstream's CVO applies the manifests of one task-graph node in order and, at a ClusterOperator
 * manifest, waits until that operator reports the versions the manifest lists (openshift/cluster-version-operator
 * pkg/cvo/internal/operatorstatus.go, `checkOperatorHealth`). An operator Deployment of the same node that comes after
 * it (in a namespace the ClusterOperator names in relatedObjects) is never rolled, so the old operator keeps reporting
 * the old version: the update fails with "Cluster operator X is not available" or waits for ever. Upstream payloads put
 * the Deployment first (the MCO's install/ has 0000_80_machine-config_04_deployment.yaml before
 * 0000_80_machine-config_06_clusteroperator.yaml).
 */
export function findOrderingProblems(payload: Pick<ReleasePayload, 'manifests'>): PayloadProblem[] {
  const release = payload.manifests
    .filter((m) => m.dir === 'release-manifests')
    .sort((x, y) => (x.filename === y.filename ? x.index - y.index : x.filename < y.filename ? -1 : 1));
  const out: PayloadProblem[] = [];
  release.forEach((co, i) => {
    if (co.gvk.kind !== 'ClusterOperator' || co.gvk.group !== 'config.openshift.io') return;
    const node = taskNode(co);
    const namespaces = relatedNamespaces(co);
    const late = release
      .slice(i + 1)
      .find(
        (d) =>
          d.gvk.kind === 'Deployment' &&
          taskNode(d) === node &&
          namespaces.has(d.namespace) &&
          d.name.endsWith('-operator'),
      );
    if (node === undefined || late === undefined) return;
    out.push({
      code: 'REHEARSAL_OPERATOR_AFTER_CLUSTEROPERATOR',
      message: `${co.filename} (ClusterOperator ${co.name}) comes before ${late.filename} (Deployment ${late.namespace}/${late.name}) in the same run level and component: the CVO waits at the ClusterOperator until ${co.name} reports the new version, but the operator that would report it is only rolled out after, so the update can never complete; order the Deployment first, as upstream payloads do (e.g. 0000_80_machine-config_04_deployment.yaml before 0000_80_machine-config_06_clusteroperator.yaml)`,
    });
  });
  return out;
}

/** Throws the first problem of a user's release as a {@link RehearsalPayloadError}. */
export function assertRehearsable(
  payload: Pick<ReleasePayload, 'metadata' | 'manifests'>,
  flag: '--from' | '--to',
  source: string,
): void {
  // the install of --from is driven by the rehearsal itself; only the update to --to walks the CVO's order
  const [first, ...rest] = [...findPayloadProblems(payload), ...(flag === '--to' ? findOrderingProblems(payload) : [])];
  if (first === undefined) return;
  const more = rest.length > 0 ? ` (and ${rest.length} more: ${rest.map((p) => p.code).join(', ')})` : '';
  throw new RehearsalPayloadError(first.code, flag, source, `${first.message}${more}`);
}

/** A and B must be two different versions. */
export function assertUpdatePair(a: { version: string }, b: { version: string }, toSource: string): void {
  if (a.version === b.version) {
    throw new RehearsalPayloadError(
      'REHEARSAL_SAME_VERSION',
      '--to',
      toSource,
      `is version ${b.version}, the same as --from: give the release you want to update to`,
    );
  }
}

/**
 * Whether the CVO running A will accept B: B's digest must have a signature, in one of the stores A's
 * `release-verification` ConfigMap lists, made by a key it trusts. A directory is published by the rehearsal's own
 * registry, where nothing signs it. Unless the update is forced (`--force`, as `oc adm upgrade --force`), an
 * unverifiable target is refused up front instead of stalling the rehearsal on `RetrievePayload`.
 */
export async function assertTargetVerifiable(
  a: Pick<ReleasePayload, 'manifests' | 'metadata'>,
  b: { pullSpec: string; fromDirectory: boolean },
  toSource: string,
  force: boolean,
): Promise<void> {
  if (force) return;
  const what =
    'then rehearse again, or pass --force to rehearse the update as `oc adm upgrade --force` does (the CVO accepts the unverified release)';
  let config;
  try {
    config = verificationConfigFromManifests(a.manifests);
  } catch (e) {
    throw new RehearsalPayloadError(
      'REHEARSAL_UNSIGNED_TARGET',
      '--to',
      toSource,
      `cannot be verified: the --from release's verification ConfigMap is invalid (${(e as Error).message}); ${what}`,
    );
  }
  if (config === null) {
    throw new RehearsalPayloadError(
      'REHEARSAL_UNSIGNED_TARGET',
      '--to',
      toSource,
      `cannot be verified: release ${a.metadata.version} (--from) carries no ConfigMap annotated release.openshift.io/verification-config-map, so its CVO trusts no key and refuses every update that is not forced; add one, ${what}`,
    );
  }
  if (b.fromDirectory) {
    throw new RehearsalPayloadError(
      'REHEARSAL_UNSIGNED_TARGET',
      '--to',
      toSource,
      `is a directory: the rehearsal publishes it unsigned, and the CVO of ${a.metadata.version} only accepts releases signed by ${config.keyrings.map((k) => `verifier-public-key-${k.name}`).join(', ')} (${config.configMap}); give --to as the signed release image (docker://…@sha256:…) whose signature is in a store that ConfigMap lists (${config.stores.map((s) => s.url).join(', ') || 'none'}), ${what}`,
    );
  }
  const digest = /@(sha256:[0-9a-f]{64})$/.exec(b.pullSpec)?.[1] ?? '';
  const res = await verifyRelease({ digest, keyrings: config.keyrings, stores: config.stores });
  if (!res.verified) {
    const why = res.failures.map((f) => `${f.store ?? ''}${f.store !== undefined ? ': ' : ''}${f.reason}`).join('; ');
    throw new RehearsalPayloadError(
      'REHEARSAL_UNSIGNED_TARGET',
      '--to',
      toSource,
      `${b.pullSpec} has no signature the CVO of ${a.metadata.version} accepts (${config.configMap}): ${why}; sign it and put the signature in one of the stores, ${what}`,
    );
  }
}

/** A user's release, ready for the CVO: where its files are and the pull spec the CVO fetches it by. */
export interface UserRelease {
  version: string;
  pullSpec: string;
  payload: ReleasePayload;
  /** Extracted payload (the CVO of A starts from it). */
  dir: string;
  /** True when the rehearsal published it (a directory, OCI layout or archive): nothing has signed that image. */
  published: boolean;
}

/** `[docker://]registry/repo[:tag|@digest]` as `registry/repo@digest` (what the CVO verifies and pulls). */
export function byDigest(source: string, digest: string): string {
  const ref = source.replace(/^docker:\/\//, '').replace(/@sha256:[0-9a-f]{64}$/, '');
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return `${colon > slash ? ref.slice(0, colon) : ref}@${digest}`;
}

/**
 * Opens one release: a registry image (`docker://…`) is used as is; a directory, OCI layout or archive is published to
 * the rehearsal's registry so the CVO fetches it the real way (an OCI layout or archive is rebuilt from its files, so
 * its digest is the rehearsal's, not the original's).
 */
export async function openUserRelease(
  source: string,
  flag: '--from' | '--to',
  registry: () => Promise<OciRegistry>,
  workDir: string,
): Promise<UserRelease> {
  const payload = await openPayload(source, { cacheDir: join(workDir, 'blobs') });
  assertRehearsable(payload, flag, source);
  let dir = source;
  if (payload.image !== undefined) {
    dir = join(workDir, flag.slice(2));
    await writePayloadFiles(payload.files, dir);
    const local = /^(oci|oci-archive|docker-archive):/.test(source) || (await stat(source).catch(() => null)) !== null;
    if (!local)
      return {
        version: payload.metadata.version,
        pullSpec: byDigest(source, payload.image.digest),
        payload,
        dir,
        published: false,
      };
  }
  const image = await buildReleaseImage(dir, { 'io.openshift.release': payload.metadata.version });
  const pullSpec = (await registry()).put(
    'openshift-release-dev/ocp-release',
    `${payload.metadata.version}-x86_64`,
    image,
  );
  return { version: payload.metadata.version, pullSpec, payload, dir, published: true };
}

/** `--from` and `--to` opened and checked: both rehearsable, different versions, B acceptable to A's CVO (or forced). */
export async function openUserReleases(
  from: string,
  to: string,
  registry: () => Promise<OciRegistry>,
  workDir: string,
  force: boolean,
): Promise<{ a: UserRelease; b: UserRelease }> {
  const a = await openUserRelease(from, '--from', registry, workDir);
  const b = await openUserRelease(to, '--to', registry, workDir);
  assertUpdatePair(a, b, to);
  await assertTargetVerifiable(a.payload, { pullSpec: b.pullSpec, fromDirectory: b.published }, to, force);
  return { a, b };
}
