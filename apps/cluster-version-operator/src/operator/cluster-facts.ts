/**
 * The cluster facts a payload is filtered and applied with (openshift/cluster-version-operator pkg/cvo/sync_worker.go
 * `SyncWorker.loadUpdatedPayload` / `Update`, lib/capability `SetCapabilities` and
 * `GetImplicitlyEnabledCapabilities`, pkg/payload/payload.go `LoadUpdate`): profile, capabilities (with the implicitly
 * enabled ones this operator remembers), overrides, the feature set and the enabled feature gates.
 */
import type { Logger } from '@keelson/kube';
import {
  clusterCapabilities,
  filterManifests,
  implicitlyEnabledCapabilities,
  type ClusterFacts,
  type Manifest,
  type ReleasePayload,
} from '@keelson/release-payload';
import type { ClusterVersion } from '../api-types.js';
import type { FeatureGateState } from './featuregates.js';

export interface ClusterFactsOptions {
  clusterProfile: string;
  /** Upstream `EXCLUDE_MANIFESTS`. */
  excludeIdentifier?: string | undefined;
  /** Upstream `--always-enable-capabilities`. */
  alwaysEnableCapabilities?: readonly string[] | undefined;
  /** The feature set and enabled gates, once read. */
  gates: () => FeatureGateState | undefined;
  log: Logger;
}

/** Capabilities and filters of one operator process (the implicitly enabled capabilities only grow). */
export class ClusterFactsState {
  /** Implicitly enabled capabilities, sorted. */
  implicit: string[] = [];

  constructor(private readonly o: ClusterFactsOptions) {}

  /** The cluster's capabilities (upstream `capability.SetCapabilities`, gated capabilities by the enabled gates). */
  caps(cv: ClusterVersion | undefined, withImplicit: boolean): { known: string[]; enabled: string[] } {
    const spec = cv?.spec.capabilities ?? {};
    const c = clusterCapabilities({
      ...spec,
      ...(withImplicit ? { implicitlyEnabled: this.implicit } : {}),
      enabledFeatureGates: this.o.gates()?.enabledGates ?? [],
    });
    return { known: [...c.known], enabled: [...c.enabled] };
  }

  /** The facts of `cv`; capabilities enabled before (status) or always enabled become implicitly enabled. */
  clusterFacts(cv: ClusterVersion): ClusterFacts {
    const prevEnabled: string[] = cv.status?.capabilities?.enabledCapabilities ?? [];
    const base = this.caps(cv, false);
    const implicit = new Set([
      ...this.implicit,
      ...[...prevEnabled, ...(this.o.alwaysEnableCapabilities ?? [])].filter((c) => !base.enabled.includes(c)),
    ]);
    this.implicit = [...implicit].sort();
    return {
      profile: this.o.clusterProfile,
      capabilities: this.caps(cv, true),
      overrides: (cv.spec.overrides ?? []).map((o) => ({
        group: o.group,
        kind: o.kind,
        namespace: o.namespace,
        name: o.name,
        unmanaged: o.unmanaged,
      })),
    };
  }

  /** The facts a pass applies with (capabilities, overrides, enabled gates). */
  applyFacts(cv: ClusterVersion): ClusterFacts {
    const f = this.clusterFacts(cv);
    return {
      ...(f.capabilities ? { capabilities: f.capabilities } : {}),
      ...(f.overrides ? { overrides: f.overrides } : {}),
      enabledFeatureGates: this.o.gates()?.enabledGates ?? [],
    };
  }

  /** The manifests to apply from a payload with the load-time filters (upstream pkg/payload/payload.go LoadUpdate). */
  includedManifests(cv: ClusterVersion, payload: ReleasePayload): { manifests: Manifest[]; versionHash: string } {
    const f = this.clusterFacts(cv);
    const gates = this.o.gates();
    const known = f.capabilities ? { known: f.capabilities.known, enabled: f.capabilities.known } : undefined;
    const r = filterManifests(payload, {
      ...(f.profile ? { profile: f.profile } : {}),
      ...(this.o.excludeIdentifier ? { excludeIdentifier: this.o.excludeIdentifier } : {}),
      featureSet: gates?.featureSet ?? '',
      enabledFeatureGates: gates?.enabledGates ?? [],
      ...(known ? { capabilities: known } : {}),
    });
    return { manifests: r.included, versionHash: r.versionHash };
  }

  /**
   * upstream `GetImplicitlyEnabledCapabilities` when a payload loads: a resource the current payload manages under
   * enabled capabilities that the new payload puts under a disabled one keeps being managed (that capability becomes
   * implicitly enabled).
   */
  implicitlyEnable(cv: ClusterVersion, update: readonly Manifest[], current: () => readonly Manifest[]): void {
    const caps = this.clusterFacts(cv).capabilities;
    const now = current();
    if (!caps) return;
    const next = implicitlyEnabledCapabilities(update, [...now], { ...caps, implicitlyEnabled: this.implicit });
    const added = next.filter((c) => !this.implicit.includes(c));
    if (added.length > 0)
      this.o.log.info('capabilities implicitly enabled by the new payload', { capabilities: added });
    this.implicit = next;
  }
}
