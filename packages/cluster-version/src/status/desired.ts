/** `spec.desiredUpdate` validation and resolution (upstream lib/validation/validation.go and pkg/cvo/cvo.go). */
import { isSemver } from '@keelson/update-graph';
import type { ClusterVersion, Release } from '@keelson/api';

/** The release the cluster should run and validation errors. */
export interface DesiredResolution {
  /** Release to apply; undefined = keep the current one. */
  desired: Release | undefined;
  force: boolean;
  invalid: string[];
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates the spec and resolves `desiredUpdate` to a release (image looked up in availableUpdates when only a version
 * is given). `currentArch` is the running release's architecture (`Multi` or ''): a request for `architecture: Multi`
 * from a single-architecture cluster resolves to the multi-architecture payload of the current version, the only
 * available update the update service then offers (upstream `pkg/cvo/updatepayload.go` `findUpdateFromConfig`).
 */
export function resolveDesired(cv: ClusterVersion, currentArch = ''): DesiredResolution {
  const invalid: string[] = [];
  const id = cv.spec.clusterID;
  if (id !== '' && !UUID_RE.test(id)) invalid.push('spec.clusterID: Invalid value: must be an RFC4122-variant UUID');
  else if (id !== '' && id[14] !== '4') invalid.push('spec.clusterID: Invalid value: must be a version-4 UUID');
  const du = cv.spec.desiredUpdate;
  if (!du) return { desired: undefined, force: false, invalid };
  const version = du.version ?? '';
  const image = du.image ?? '';
  const force = du.force === true;
  if (version === '' && image === '' && (du.architecture ?? '') === '') {
    invalid.push('spec.desiredUpdate: Required value: must specify architecture, version, or image');
    return { desired: undefined, force, invalid };
  }
  if (version !== '' && !isSemver(version)) {
    invalid.push('spec.desiredUpdate.version: Invalid value: must be a semantic version (1.2.3[-...])');
    return { desired: undefined, force, invalid };
  }
  if (image !== '') return { desired: { version, image }, force, invalid };
  if (du.architecture === 'Multi' && currentArch !== 'Multi') {
    // only the multi payload of the current version; never the single-arch image history knows for that version
    const current = cv.status?.desired.version ?? '';
    const multi = (cv.status?.availableUpdates ?? []).find((u) => u.version === current && (u.image ?? '') !== '');
    if (!multi) {
      invalid.push(
        'spec.desiredUpdate.version: Invalid value: when image is empty the update must be an available update',
      );
      return { desired: undefined, force, invalid };
    }
    return { desired: { ...multi }, force, invalid };
  }
  const matches = (cv.status?.availableUpdates ?? []).filter((u) => u.version === version && (u.image ?? '') !== '');
  const fromHistory = (cv.status?.history ?? []).filter((h) => h.version === version && h.image !== '');
  const all = new Set([...matches.map((m) => m.image ?? ''), ...fromHistory.map((h) => h.image)]);
  if (all.size === 0) {
    invalid.push(
      'spec.desiredUpdate.version: Invalid value: when image is empty the update must be an available update',
    );
    return { desired: undefined, force, invalid };
  }
  if (all.size > 1) {
    invalid.push(
      'spec.desiredUpdate.version: Invalid value: there are multiple possible payloads for this version, specify the exact image',
    );
    return { desired: undefined, force, invalid };
  }
  const found = matches[0];
  return { desired: found ? { ...found } : { version, image: [...all][0] ?? '' }, force, invalid };
}
