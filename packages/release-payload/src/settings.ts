/**
 * Checks of the cluster settings a user passes (capability names, feature set, cluster profile) against the values
 * OpenShift knows. Unknown values are accepted (the API takes any string for forward compatibility, and a newer
 * payload may know more), but they are most often typos or wrong case (`console` for `Console`), which silently
 * exclude manifests; so each one gives a warning that names the closest known value and lists the known ones.
 */
import {
  CLUSTER_PROFILES,
  FEATURE_SETS,
  KNOWN_CAPABILITIES,
  type ClusterProfile,
  type ClusterVersionCapability,
  type FeatureSet,
} from '@keelson/api';

/** The settings {@link checkClusterSettings} looks at; every field is optional. */
export interface ClusterSettings {
  /** Capability names (enabled or requested). */
  readonly capabilities?: readonly ClusterVersionCapability[];
  /** Feature set; `""` is the API's spelling of `Default`. */
  readonly featureSet?: FeatureSet;
  readonly profile?: ClusterProfile;
}

/** One questionable setting. */
export interface SettingWarning {
  readonly field: 'capabilities' | 'featureSet' | 'profile';
  /** The value as given. */
  readonly value: string;
  /** The known value differing only in case, when there is one. */
  readonly suggestion?: string;
  /** Every known value of the field. */
  readonly known: readonly string[];
  /** Human text: what is wrong, the suggestion, the known values. */
  readonly message: string;
}

function check(
  field: SettingWarning['field'],
  label: string,
  value: string,
  known: readonly string[],
): SettingWarning | undefined {
  if (known.includes(value)) return undefined;
  const suggestion = known.find((k) => k.toLowerCase() === value.toLowerCase());
  const hint = suggestion !== undefined ? `names are case-sensitive: did you mean "${suggestion}"? ` : '';
  const message = `unknown ${label} "${value}"; ${hint}known ${label === 'capability' ? 'capabilities' : `${label}s`}: ${known.join(', ')}`;
  return { field, value, known, message, ...(suggestion !== undefined ? { suggestion } : {}) };
}

/** Warnings for the unknown values among `settings` (empty when all are known). */
export function checkClusterSettings(settings: ClusterSettings): SettingWarning[] {
  const out: SettingWarning[] = [];
  for (const c of new Set(settings.capabilities ?? [])) {
    const w = check('capabilities', 'capability', c, KNOWN_CAPABILITIES);
    if (w) out.push(w);
  }
  if (settings.featureSet !== undefined && settings.featureSet !== '') {
    const w = check('featureSet', 'feature set', settings.featureSet, FEATURE_SETS);
    if (w) out.push(w);
  }
  if (settings.profile !== undefined) {
    const w = check('profile', 'cluster profile', settings.profile, CLUSTER_PROFILES);
    if (w) out.push(w);
  }
  return out;
}
