import { CAPABILITY_SETS, FEATURE_SETS, KNOWN_CAPABILITIES as API_KNOWN_CAPABILITIES } from '@keelson/api';
import { manifestHash, type ReleasePayload } from './payload.js';
import type { Manifest } from './parse.js';

/** Feature sets accepted in `release.openshift.io/feature-set` (the API's empty value is spelled `Default`), sorted. */
export const KNOWN_FEATURE_SETS: readonly string[] = [...FEATURE_SETS].sort();

/** Known cluster capabilities (ClusterVersion API enum), in API order: `KNOWN_CAPABILITIES` of @keelson/api. */
export const KNOWN_CAPABILITIES: readonly string[] = API_KNOWN_CAPABILITIES;

/** Capabilities hidden unless a feature gate is enabled. */
const GATED_CAPABILITIES: Readonly<Record<string, string>> = {
  CompatibilityRequirements: 'CRDCompatibilityRequirementOperator',
  ClusterAPI: 'ClusterAPIMachineManagement',
};

/** Baseline capability sets (`spec.capabilities.baselineCapabilitySet`): `CAPABILITY_SETS` of @keelson/api. */
export const BASELINE_CAPABILITY_SETS: Readonly<Record<string, readonly string[]>> = CAPABILITY_SETS as Readonly<
  Record<string, readonly string[]>
>;

/** Known and enabled capability names, as the CVO's `ClusterVersionCapabilitiesStatus`. */
export interface CapabilitiesStatus {
  known: readonly string[];
  enabled: readonly string[];
}

/** Input of {@link clusterCapabilities}, mirroring `ClusterVersion.spec.capabilities` plus CVO state. */
export interface CapabilitiesSpec {
  /** Default `vCurrent`. */
  baselineCapabilitySet?: string;
  additionalEnabledCapabilities?: readonly string[];
  /** Capabilities previously enabled (they can never be disabled) and `--always-enable-capabilities`. */
  implicitlyEnabled?: readonly string[];
  /** Enabled feature gates (some capabilities are hidden unless their gate is on). */
  enabledFeatureGates?: readonly string[];
}

/** Computes the known and enabled capability sets from a ClusterVersion-like spec. */
export function clusterCapabilities(spec: CapabilitiesSpec = {}): CapabilitiesStatus {
  const gates = new Set(spec.enabledFeatureGates ?? []);
  const hidden = new Set(
    Object.entries(GATED_CAPABILITIES)
      .filter(([, g]) => !gates.has(g))
      .map(([c]) => c),
  );
  const baselineName = spec.baselineCapabilitySet ?? 'vCurrent';
  const baseline = BASELINE_CAPABILITY_SETS[baselineName];
  if (!baseline) {
    throw new RangeError(
      `unknown baselineCapabilitySet ${JSON.stringify(baselineName)}; known: ${Object.keys(BASELINE_CAPABILITY_SETS).join(', ')}`,
    );
  }
  const known = KNOWN_CAPABILITIES.filter((c) => !hidden.has(c));
  const enabled = new Set<string>([
    ...baseline,
    ...(spec.additionalEnabledCapabilities ?? []),
    ...(spec.implicitlyEnabled ?? []),
  ]);
  for (const h of hidden) enabled.delete(h);
  return { known: [...known].sort(), enabled: [...enabled].sort() };
}

/** A `spec.overrides[]` entry of ClusterVersion. */
export interface ComponentOverride {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  unmanaged: boolean;
}

/**
 * What is known about the target cluster. An absent field disables that filter (upstream passes `nil`), except
 * `majorVersion`, which defaults to the payload's own major version (pass `null` to disable).
 */
export interface ClusterFacts {
  /** `EXCLUDE_MANIFESTS` identifier, e.g. `internal-openshift-hosted`. */
  excludeIdentifier?: string;
  /** Cluster feature set (`''` or `Default`, `TechPreviewNoUpgrade`, ...). */
  featureSet?: string;
  /** Enabled feature gate names. */
  enabledFeatureGates?: readonly string[];
  /** Cluster profile, e.g. `self-managed-high-availability`. */
  profile?: string;
  /** Known/enabled capabilities (see {@link clusterCapabilities}). */
  capabilities?: CapabilitiesStatus;
  /** Accept capability names the cluster does not know (still require them enabled). */
  allowUnknownCapabilities?: boolean;
  overrides?: readonly ComponentOverride[];
  majorVersion?: number | null;
}

/** Which inclusion rule excluded a manifest. */
export type ExclusionRule =
  | 'no-annotations'
  | 'exclude-identifier'
  | 'feature-set-and-gate'
  | 'feature-set'
  | 'feature-gate'
  | 'major-version'
  | 'profile'
  | 'capability'
  | 'override';

/** Why a manifest is not applied. */
export interface ExclusionReason {
  rule: ExclusionRule;
  /** Upstream-style message, e.g. `include.release.openshift.io/hypershift unset`. */
  message: string;
}

/** An excluded manifest and why. */
export interface ExcludedManifest {
  manifest: Manifest;
  reason: ExclusionReason;
}

/** Result of {@link filterManifests}. */
export interface FilterResult {
  included: Manifest[];
  excluded: ExcludedManifest[];
  /** Included manifests annotated `release.openshift.io/delete: "true"` (the CVO deletes instead of applying). */
  deletions: Manifest[];
  /** Included manifests whose `release.openshift.io/delete` value is invalid (the CVO fails on them at apply time). */
  invalidDeleteAnnotations: Manifest[];
  /** `versionHash` over the included manifests. */
  versionHash: string;
}

const FEATURE_SET = 'release.openshift.io/feature-set';
const FEATURE_GATE = 'release.openshift.io/feature-gate';
const MAJOR_VERSION = 'release.openshift.io/major-version';
const CAPABILITY = 'capability.openshift.io/name';
/** Annotation asking the CVO to delete the resource. */
export const DELETE_ANNOTATION = 'release.openshift.io/delete';

function sortedUnique(xs: Iterable<string>): string[] {
  return [...new Set(xs)].sort();
}

/** The `+`-separated capabilities a manifest belongs to. */
export function manifestCapabilities(m: Manifest): string[] {
  const v = m.annotations?.[CAPABILITY];
  return v === undefined || v === '' ? [] : v.split('+');
}

function parseUint(s: string): number | null {
  return /^[0-9]+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : null;
}

function checkMajor(m: Manifest, major: number, value: string): string | null {
  const isFG = m.gvk.group === 'config.openshift.io' && m.gvk.kind === 'FeatureGate';
  const isCRD = m.gvk.group === 'apiextensions.k8s.io' && m.gvk.kind === 'CustomResourceDefinition';
  if (!isFG && !isCRD) return 'major version filtering is only supported for feature gates and custom resources';
  const inc = new Set<number>();
  const exc = new Set<number>();
  for (let req of value.split(',')) {
    req = req.trim();
    if (req === '') continue;
    if (req.startsWith('-')) {
      const n = parseUint(req.slice(1));
      if (n === null) return `invalid excluded major version ${JSON.stringify(req.slice(1))} in annotation`;
      exc.add(n);
    } else {
      const n = parseUint(req);
      if (n === null) return `invalid included major version ${JSON.stringify(req)} in annotation`;
      inc.add(n);
    }
  }
  const overlap = [...inc].filter((x) => exc.has(x));
  if (overlap.length > 0) return `inclusion and exclusion requirements overlap: [${overlap.join(' ')}]`;
  if (inc.has(major)) return null;
  if (exc.has(major)) return `major version ${major} matches excluded version ${major}`;
  if (inc.size > 0) return `major version ${major} does not match any required versions`;
  return null;
}

/**
 * Applies upstream's inclusion rules (`Manifest.Include`) to one manifest. Returns `null` when included, else the
 * first failing rule and its message. `majorVersion` must be resolved by the caller (`undefined`/`null` disables it).
 */
export function includeManifest(m: Manifest, facts: ClusterFacts): ExclusionReason | null {
  const a = m.annotations;
  if (a === null) return { rule: 'no-annotations', message: 'no annotations' };
  if (facts.excludeIdentifier !== undefined) {
    const key = `exclude.release.openshift.io/${facts.excludeIdentifier}`;
    if (a[key] === 'true') return { rule: 'exclude-identifier', message: `${key}=true` };
  }
  const gates = facts.enabledFeatureGates === undefined ? undefined : new Set(facts.enabledFeatureGates);
  if (facts.featureSet !== undefined && gates !== undefined && FEATURE_SET in a && FEATURE_GATE in a) {
    return {
      rule: 'feature-set-and-gate',
      message:
        'both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both',
    };
  }
  if (facts.featureSet !== undefined && FEATURE_SET in a) {
    const required = facts.featureSet === '' ? 'Default' : facts.featureSet;
    const value = a[FEATURE_SET];
    const sets = value.split(',');
    for (const s of sets) {
      if (!KNOWN_FEATURE_SETS.includes(s)) {
        return {
          rule: 'feature-set',
          message: `unrecognized value ${JSON.stringify(s)} in ${FEATURE_SET}=${value}; known values are: ${KNOWN_FEATURE_SETS.join(',')}`,
        };
      }
    }
    if (!sets.includes(required)) {
      return {
        rule: 'feature-set',
        message: `${JSON.stringify(required)} is required, and ${FEATURE_SET}=${sortedUnique(sets).join(',')}`,
      };
    }
  }
  if (gates !== undefined && FEATURE_GATE in a) {
    for (let req of a[FEATURE_GATE].split(',')) {
      req = req.trim();
      if (req === '') continue;
      if (req.startsWith('-')) {
        const g = req.slice(1);
        if (gates.has(g))
          return {
            rule: 'feature-gate',
            message: `feature gate ${g} is enabled but manifest requires it to be disabled`,
          };
      } else if (!gates.has(req)) {
        return { rule: 'feature-gate', message: `feature gate ${req} is required but not enabled` };
      }
    }
  }
  if (facts.majorVersion !== undefined && facts.majorVersion !== null && MAJOR_VERSION in a) {
    const err = checkMajor(m, facts.majorVersion, a[MAJOR_VERSION]);
    if (err !== null) return { rule: 'major-version', message: err };
  }
  if (facts.profile !== undefined) {
    const key = `include.release.openshift.io/${facts.profile}`;
    const v = a[key];
    if (v === undefined) return { rule: 'profile', message: `${key} unset` };
    if (v !== 'true') return { rule: 'profile', message: `unrecognized value ${key}=${v}` };
  }
  if (facts.capabilities !== undefined) {
    const known = new Set(facts.capabilities.known);
    const enabled = new Set(facts.capabilities.enabled);
    const unknown: string[] = [];
    const disabled: string[] = [];
    for (const c of manifestCapabilities(m)) {
      if (!facts.allowUnknownCapabilities && !known.has(c)) {
        unknown.push(c);
        continue;
      }
      if (!enabled.has(c)) disabled.push(c);
    }
    if (unknown.length > 0)
      return { rule: 'capability', message: `unrecognized capability names: ${unknown.join(', ')}` };
    if (disabled.length > 0) return { rule: 'capability', message: `disabled capabilities: ${disabled.join(', ')}` };
  }
  for (const o of facts.overrides ?? []) {
    const ns = m.namespace === '' ? '' : o.namespace;
    if (o.group === m.gvk.group && o.kind === m.gvk.kind && o.name === m.name && ns === m.namespace && o.unmanaged) {
      return { rule: 'override', message: 'overridden' };
    }
  }
  return null;
}

/**
 * Splits a payload's manifests into those the described cluster would apply and those it would not, with the reason
 * for each exclusion. Architecture never filters manifests (as upstream).
 */
export function filterManifests(
  payload: Pick<ReleasePayload, 'manifests' | 'metadata'>,
  facts: ClusterFacts = {},
): FilterResult {
  const resolved: ClusterFacts = { ...facts };
  if (facts.majorVersion === undefined) resolved.majorVersion = payload.metadata.semver.major;
  const included: Manifest[] = [];
  const excluded: ExcludedManifest[] = [];
  const deletions: Manifest[] = [];
  const invalidDeleteAnnotations: Manifest[] = [];
  for (const m of payload.manifests) {
    const reason = includeManifest(m, resolved);
    if (reason) {
      excluded.push({ manifest: m, reason });
      continue;
    }
    included.push(m);
    const del = m.annotations?.[DELETE_ANNOTATION];
    if (del !== undefined) {
      if (del.toLowerCase() === 'true') deletions.push(m);
      else invalidDeleteAnnotations.push(m);
    }
  }
  return { included, excluded, deletions, invalidDeleteAnnotations, versionHash: manifestHash(included) };
}

/**
 * Capabilities that must become implicitly enabled when updating from `current` to `update` (upstream
 * `GetImplicitlyEnabledCapabilities`): for each update manifest excluded by capabilities whose same resource in the
 * current payload is included, its new capabilities (minus the current ones, already implicit and enabled).
 */
export function implicitlyEnabledCapabilities(
  update: readonly Manifest[],
  current: readonly Manifest[],
  capabilities: CapabilitiesStatus & { implicitlyEnabled?: readonly string[] },
  facts: Omit<ClusterFacts, 'capabilities'> = {},
): string[] {
  const implicit = new Set(capabilities.implicitlyEnabled ?? []);
  const ret = new Set(implicit);
  const enabled = new Set(capabilities.enabled);
  const cfg: ClusterFacts = { ...facts, capabilities, allowUnknownCapabilities: true };
  const byId = new Map<string, Manifest[]>();
  for (const c of current) byId.set(c.id, [...(byId.get(c.id) ?? []), c]);
  for (const u of update) {
    if (includeManifest(u, cfg) === null) continue;
    for (const c of byId.get(u.id) ?? []) {
      if (includeManifest(c, cfg) !== null) continue;
      const cur = new Set(manifestCapabilities(c));
      for (const cap of manifestCapabilities(u)) {
        if (!cur.has(cap) && !implicit.has(cap) && !enabled.has(cap)) ret.add(cap);
      }
    }
  }
  return [...ret].sort();
}
