/**
 * What a cluster's FeatureGate `cluster` says about manifest filtering (upstream openshift/cluster-version-operator
 * `pkg/featuregates/featuregates.go` `ExtractEnabledGates`, `pkg/start/start.go` `processInitialFeatureGate`): the
 * feature set of `spec` and the gates `status.featureGates` enables for one version. Shared by the CVO and
 * `keelson upgrade plan --kubeconfig`.
 */

/** `config.openshift.io/v1` FeatureGate (the fields read here). */
export interface FeatureGateObject {
  metadata?: { name?: string };
  spec?: { featureSet?: string };
  status?: { featureGates?: { version?: string; enabled?: { name: string }[]; disabled?: { name: string }[] }[] };
}

/** The feature set and the enabled gates of one version. */
export interface FeatureGateState {
  /** `spec.featureSet` (`''` = Default). */
  featureSet: string;
  /** Gates enabled for the version, sorted. */
  enabledGates: string[];
}

/** upstream `ExtractEnabledGates`: the enabled gates of the `status.featureGates` entry for `version` (else none). */
export function extractEnabledGates(fg: FeatureGateObject | undefined, version: string): string[] {
  const entry = fg?.status?.featureGates?.find((d) => d.version === version);
  return [...new Set((entry?.enabled ?? []).map((e) => e.name))].sort();
}

/** The state a FeatureGate gives for `version`; no FeatureGate means the Default feature set with every gate disabled. */
export function featureGateState(fg: FeatureGateObject | undefined, version: string): FeatureGateState {
  return { featureSet: fg?.spec?.featureSet ?? '', enabledGates: extractEnabledGates(fg, version) };
}
