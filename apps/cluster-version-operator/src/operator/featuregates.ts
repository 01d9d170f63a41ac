/**
 * The cluster's FeatureGate `cluster` as the CVO reads it (upstream openshift/cluster-version-operator
 * `pkg/start/start.go` `processInitialFeatureGate`, `pkg/featuregates/featuregates.go` `ExtractEnabledGates`,
 * `pkg/featuregates/featurechangestopper.go` `ChangeStopper`, `pkg/cvo/cvo.go` `featureGateEventHandler`): the feature
 * set is fixed at start and a change of it stops the operator (the kubelet restarts it with the new set); the gates
 * enabled for the current version filter manifests, and a change of them reloads the payload.
 */
import { defineResource, Informer, isNotFound, type KubeClient, type KubeObject, type Logger } from '@keelson/kube';
import {
  extractEnabledGates,
  featureGateState,
  type FeatureGateObject,
  type FeatureGateState,
} from '@keelson/release-payload';

/** `config.openshift.io/v1` FeatureGate. */
export type FeatureGate = FeatureGateObject & KubeObject;

/** The FeatureGate resource. */
export const FeatureGates = defineResource<FeatureGate>({
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'FeatureGate',
  plural: 'featuregates',
  namespaced: false,
});

export { extractEnabledGates, featureGateState, type FeatureGateState };

/**
 * upstream `processInitialFeatureGate`: reads FeatureGate `cluster`. Not found (or the FeatureGate API not served, as
 * on a cluster without the config CRDs) → the Default feature set with every gate disabled.
 */
export async function readInitialFeatureGate(
  client: KubeClient,
  version: string,
  log: Logger,
  signal?: AbortSignal,
): Promise<FeatureGateState> {
  try {
    const fg = await client.resource(FeatureGates).get('cluster', undefined, signal);
    const state = featureGateState(fg, version);
    log.info(`FeatureGate found in cluster, using its feature set ${JSON.stringify(state.featureSet)} at startup`, {
      enabledGates: state.enabledGates.length,
    });
    return state;
  } catch (e) {
    if (!isNotFound(e)) throw e;
    log.info(
      'FeatureGate not found in cluster, will assume default feature set "" at startup, all feature gates will be disabled',
    );
    return { featureSet: '', enabledGates: [] };
  }
}

/** Callbacks of the {@link FeatureGateWatcher}. */
export interface FeatureGateWatcherOptions {
  client: KubeClient;
  log: Logger;
  starting: FeatureGateState;
  /** The version whose gates apply (the current payload's). */
  version: () => string;
  /** The feature set differs from the starting one (upstream ChangeStopper: requesting shutdown). */
  onFeatureSetChange: (from: string, to: string) => void;
  /** The enabled gates changed (upstream `updateEnabledFeatureGates` → payload refresh). */
  onGatesChange: (gates: string[]) => void;
}

/** Watches FeatureGate `cluster` (informer, no polling). */
export class FeatureGateWatcher {
  private readonly informer: Informer<FeatureGate>;
  private gates: string[];
  private stopped = false;

  constructor(private readonly o: FeatureGateWatcherOptions) {
    this.gates = o.starting.enabledGates;
    this.informer = new Informer(o.client, FeatureGates, {
      logger: o.log,
      backoff: { initialMs: 1000, maxMs: 60_000 },
    });
    const check = (fg: FeatureGate): void => {
      if (fg.metadata.name === 'cluster') this.observe(fg);
    };
    this.informer.addHandlers({
      add: check,
      update: (_old, fg) => {
        check(fg);
      },
      delete: () => {
        this.observe(undefined);
      },
    });
  }

  start(): void {
    this.informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
  }

  /** The currently enabled gates. */
  enabledGates(): string[] {
    return [...this.gates];
  }

  /** Recomputes the gates for the current version (the payload version changed). */
  refresh(): void {
    this.observe(this.informer.store.getByKey('cluster'));
  }

  private observe(fg: FeatureGate | undefined): void {
    if (this.stopped) return;
    const state = featureGateState(fg, this.o.version());
    if (state.featureSet !== this.o.starting.featureSet) {
      this.o.log.info(
        `FeatureSet was ${JSON.stringify(this.o.starting.featureSet)}, but the current feature set is ${JSON.stringify(state.featureSet)}; requesting shutdown.`,
      );
      this.stopped = true;
      this.o.onFeatureSetChange(this.o.starting.featureSet, state.featureSet);
      return;
    }
    if (state.enabledGates.join(',') === this.gates.join(',')) return;
    this.o.log.info(
      `Cluster feature gates changed from [${this.gates.join(' ')}] to [${state.enabledGates.join(' ')}]`,
    );
    this.gates = state.enabledGates;
    this.o.onGatesChange(state.enabledGates);
  }
}

/** How {@link readFeatureGateRetrying} reads. */
export interface FeatureGateReadOptions {
  client: KubeClient;
  log: Logger;
  /** The version whose gates apply. */
  version: () => string;
  /** Delay before attempt `attempt + 1`. */
  backoffMs: (attempt: number) => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  signal: AbortSignal;
}

/** {@link readInitialFeatureGate}, retrying API errors until it succeeds; undefined once `signal` aborts. */
export async function readFeatureGateRetrying(o: FeatureGateReadOptions): Promise<FeatureGateState | undefined> {
  for (let attempt = 1; !o.signal.aborted; attempt++) {
    try {
      return await readInitialFeatureGate(o.client, o.version(), o.log, o.signal);
    } catch (e) {
      if (o.signal.aborted) return undefined;
      o.log.warn('reading FeatureGate cluster failed; retrying', { error: (e as Error).message });
      await o.sleep(o.backoffMs(attempt), o.signal);
    }
  }
  return undefined;
}
