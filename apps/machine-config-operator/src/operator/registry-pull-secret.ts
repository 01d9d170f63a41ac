/**
 * ControllerConfig `spec.internalRegistryPullSecret`, as openshift/machine-config-operator release-4.20
 * `pkg/operator/sync.go` `getImageRegistryPullSecrets` builds it (pure part): the `.dockercfg` of every image pull
 * secret of ServiceAccount `machine-os-puller`, then the cluster pull secret's auths (later entries win), plus the
 * internal registry's default route cloned from its service entry. Go's `DockerConfigEntry` field order and
 * `omitempty`, its map key order (sorted) in the JSON.
 */
import { OperatorSyncError } from '@keelson/machineconfig';

/** One registry's credentials (`secrets.DockerConfigEntry`). */
interface DockerConfigEntry {
  username?: string;
  password?: string;
  email?: string;
  auth?: string;
}

const fail = (message: string): OperatorSyncError => new OperatorSyncError('RenderConfig', message);
const INTERNAL_REGISTRY = 'image-registry.openshift-image-registry.svc:5000';

function entryOf(v: unknown): DockerConfigEntry {
  const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  const out: DockerConfigEntry = {};
  for (const k of ['username', 'password', 'email', 'auth'] as const) {
    const s = o[k];
    if (typeof s === 'string' && s !== '') out[k] = s;
  }
  return out;
}

/**
 * The auths of a pull secret in either format: `{"auths": {...}}` (dockerconfigjson) or `{host: entry}` (dockercfg).
 * @throws Error when it is not a JSON object
 */
export function parseDockerAuths(raw: Buffer | string): Map<string, DockerConfigEntry> {
  const parsed: unknown = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('pull secret is not a JSON object');
  const o = parsed as Record<string, unknown>;
  const auths = 'auths' in o && typeof o['auths'] === 'object' && o['auths'] !== null ? o['auths'] : o;
  return new Map(Object.entries(auths as Record<string, unknown>).map(([k, v]) => [k, entryOf(v)]));
}

/** Inputs of {@link mergeInternalRegistryPullSecret}. */
export interface PullSecretInputs {
  /** `.dockercfg` of each of machine-os-puller's image pull secrets, in the ServiceAccount's order. */
  pullerSecrets: ReadonlyArray<{ name: string; dockercfg: Buffer | undefined }>;
  /** `openshift-config/pull-secret`: its type and `.dockerconfigjson`. */
  clusterPullSecret: { type: string; dockerconfigjson: Buffer | undefined };
  /** DNS `cluster` spec.baseDomain. */
  baseDomain: string;
}

/**
 * The merged pull secret as base64 of `{"auths":{…}}`, or null when no auths are found.
 * @throws OperatorSyncError with upstream's texts
 */
export function mergeInternalRegistryPullSecret(i: PullSecretInputs): string | null {
  const auths = new Map<string, DockerConfigEntry>();
  for (const s of i.pullerSecrets) {
    try {
      for (const [k, v] of parseDockerAuths(s.dockercfg ?? Buffer.from('{}'))) auths.set(k, v);
    } catch (e) {
      throw fail(`could not merge auths from secret ${s.name}: ${(e as Error).message}`);
    }
  }
  if (i.clusterPullSecret.type !== 'kubernetes.io/dockerconfigjson')
    throw fail(`expected secret type kubernetes.io/dockerconfigjson found ${i.clusterPullSecret.type}`);
  try {
    for (const [k, v] of parseDockerAuths(i.clusterPullSecret.dockerconfigjson ?? Buffer.from('{}'))) auths.set(k, v);
  } catch (e) {
    throw fail(`failed to convert global pull secret to old format: ${(e as Error).message}`);
  }
  const internal = auths.get(INTERNAL_REGISTRY);
  if (internal !== undefined) auths.set(`default-route-openshift-image-registry.apps.${i.baseDomain}`, internal);
  if (auths.size === 0) return null;
  const sorted = Object.fromEntries([...auths].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return Buffer.from(JSON.stringify({ auths: sorted }), 'utf8').toString('base64');
}
