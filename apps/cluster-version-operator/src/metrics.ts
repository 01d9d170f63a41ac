/**
 * Prometheus metrics as upstream release-4.20 exports them (openshift/cluster-version-operator `pkg/cvo/metrics.go`
 * `operatorMetrics.Collect`, `clusterOperatorChanged`, `gaugeFromInstallConfigMap`; `pkg/cvo/sync_worker.go` for the
 * payload metrics), computed at scrape time from the operator's latest view.
 */
import { Counter, Gauge } from 'prom-client';
import type { ConfigMap, Registry } from '@keelson/kube';
import type { ClusterOperator, ClusterVersion } from './api-types.js';

/** What the metrics read at scrape time. */
export interface MetricsView {
  /** The ClusterVersion `version` (undefined: not found). */
  cv(): ClusterVersion | undefined;
  operators(): readonly ClusterOperator[];
  /** Release of the running operator and its creation time (ms; 0 unknown). */
  current(): { version: string; image: string; created: number };
  payload(): { version: string; applied: number; pending: number } | undefined;
  /** `--update-service` ('' when unset). */
  updateService(): string;
  /** A ConfigMap of `openshift-config` (upstream cmConfigLister), undefined when absent. */
  configMap(name: string): ConfigMap | undefined;
  updateRetrievalTimestamp(): number | undefined;
}

/** Upstream `internal.InstallerConfigMap` / `internal.ManifestsConfigMap` (namespace `openshift-config`). */
export const INSTALLER_CONFIG_MAP = 'openshift-install';
export const MANIFESTS_CONFIG_MAP = 'openshift-install-manifests';

const PROMETHEUS_ALLOWED = new Set(['True', 'False']);

const unix = (t: string | null | undefined): number => {
  const ms = t ? Date.parse(t) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
};

/**
 * Counts condition transitions of a ClusterOperator update (upstream `clusterOperatorChanged`): a condition type of
 * the old object that is gone or changed status counts once, a type only the new object has counts once.
 */
export function countConditionTransitions(
  counts: Map<string, number>,
  oldCo: ClusterOperator,
  newCo: ClusterOperator,
): void {
  const name = newCo.metadata.name ?? '';
  const bump = (type: string): void => {
    const k = JSON.stringify([name, type]);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  };
  const seen = new Set<string>();
  const newer = newCo.status?.conditions ?? [];
  for (const older of oldCo.status?.conditions ?? []) {
    if (seen.has(older.type)) continue;
    seen.add(older.type);
    const now = newer.find((c) => c.type === older.type);
    if (now === undefined || now.status !== older.status) bump(older.type);
  }
  for (const c of newer) {
    if (seen.has(c.type)) continue;
    seen.add(c.type);
    bump(c.type);
  }
}

/** Upstream `mostRecentTimestamp`: newest of history[0] start/completion, condition transitions and creation (s). */
export function mostRecentTimestamp(cv: ClusterVersion): number {
  const times: number[] = [];
  const top = cv.status?.history?.[0];
  if (top) times.push(unix(top.startedTime), unix(top.completionTime));
  for (const c of cv.status?.conditions ?? []) times.push(unix(c.lastTransitionTime));
  times.push(unix(cv.metadata.creationTimestamp));
  return Math.max(0, ...times);
}

type Labels = Record<string, string>;
type Emit = (labels: Labels, value: number) => void;

/** `cluster_version` series of a ClusterVersion; returns the last Completed version (upstream `completed`). */
function collectVersion(emit: Emit, cv: ClusterVersion, cur: { version: string; image: string }): string {
  const history = cv.status?.history ?? [];
  const initial = history[history.length - 1];
  const i = history.findIndex((h) => h.state === 'Completed');
  const completed = i >= 0 ? history[i] : undefined;
  if (completed) {
    const previous = history.slice(i + 1).find((h) => h.state === 'Completed');
    emit(
      {
        type: 'completed',
        version: completed.version ?? '',
        image: completed.image,
        from_version: previous?.version ?? '',
      },
      unix(completed.completionTime),
    );
  }
  const created = unix(cv.metadata.creationTimestamp);
  emit({ type: 'initial', version: initial?.version ?? '', image: initial?.image ?? '', from_version: '' }, created);
  // the initial version is cleared while the cluster never reached level (still installing)
  const initialVersion = completed ? (initial?.version ?? '') : '';
  emit({ type: 'cluster', version: cur.version, image: cur.image, from_version: initialVersion }, created);
  const from = completed?.version ?? '';
  const update = cv.spec.desiredUpdate;
  const pending = update != null && (update.image ?? '') !== cur.image;
  if (pending)
    emit(
      { type: 'desired', version: update.version ?? '', image: update.image ?? '', from_version: from },
      mostRecentTimestamp(cv),
    );
  const failing = (cv.status?.conditions ?? []).find((c) => c.type === 'Failing');
  if (failing?.status === 'True') {
    const [version, image] = pending ? [update.version ?? '', update.image ?? ''] : [cur.version, cur.image];
    emit({ type: 'failure', version, image, from_version: from }, unix(failing.lastTransitionTime));
  }
  const top = history[0];
  if (top?.state === 'Partial')
    emit({ type: 'updating', version: top.version ?? '', image: top.image, from_version: from }, unix(top.startedTime));
  return from;
}

function gauge(registry: Registry, name: string, help: string, labelNames: string[], collect: (emit: Emit) => void) {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      collect((labels, value) => {
        this.set(labels, value);
      });
    },
  });
}

/** Registers the CVO metrics; returns the payload-error counter the sync loop and the transition recorder. */
export function registerMetrics(
  registry: Registry,
  view: MetricsView,
): { payloadErrors: Counter; operatorChanged: (oldCo: ClusterOperator, newCo: ClusterOperator) => void } {
  // each Gauge's collect runs at scrape time; the `completed` version the others label with is computed per scrape
  const completedVersion = (): string => {
    const cv = view.cv();
    return cv ? ((cv.status?.history ?? []).find((h) => h.state === 'Completed')?.version ?? '') : '';
  };
  registerVersionGauges(registry, view);
  registerOperatorGauges(registry, view, completedVersion);
  const transitions = registerTransitions(registry);
  registerInstallerGauge(registry, view);
  registerUpdateGauges(registry, view);
  const payloadErrors = registerPayloadMetrics(registry, view);
  return {
    payloadErrors,
    operatorChanged: (oldCo, newCo) => {
      countConditionTransitions(transitions, oldCo, newCo);
    },
  };
}

/** The ClusterVersion's gauges: `cluster_version`, `cluster_version_available_updates`, `cluster_version_capability`. */
function registerVersionGauges(registry: Registry, view: MetricsView): void {
  gauge(
    registry,
    'cluster_version',
    "Reports the version of the cluster in terms of seconds since the epoch. Type 'current' is the version being applied and the value is the creation date of the payload. The type 'desired' is returned if spec.desiredUpdate is set but the operator has not yet updated and the value is the most recent status transition time. The type 'failure' is set if an error is preventing sync or upgrade with the last transition timestamp of the condition. The type 'completed' is the timestamp when the last image was successfully applied. The type 'cluster' is the creation date of the cluster version object and the current version. The type 'updating' is set when the cluster is transitioning to a new version but has not reached the completed state and is the time the update was started. The type 'initial' is set to the oldest entry in the history. The from_version label will be set to the last completed version for most types, the initial version for 'cluster', empty for 'initial', and the penultimate completed version for 'completed'.",
    ['type', 'version', 'image', 'from_version'],
    (emit) => {
      const cur = view.current();
      const cv = view.cv();
      const from = cv ? collectVersion(emit, cv, cur) : '';
      emit(
        { type: 'current', version: cur.version, image: cur.image, from_version: from },
        Math.floor(cur.created / 1000),
      );
    },
  );
  gauge(
    registry,
    'cluster_version_available_updates',
    'Report the count of available versions for an upstream and channel.',
    ['upstream', 'channel'],
    (emit) => {
      const cv = view.cv();
      if (!cv) return;
      const available = cv.status?.availableUpdates ?? [];
      const retrieved = (cv.status?.conditions ?? []).some((c) => c.type === 'RetrievedUpdates' && c.status === 'True');
      const specUpstream = cv.spec.upstream ?? '';
      if (specUpstream === '' && available.length === 0 && !retrieved) return;
      const upstream = view.updateService() || specUpstream || '<default>';
      emit({ upstream, channel: cv.spec.channel ?? '' }, available.length);
    },
  );
  gauge(
    registry,
    'cluster_version_capability',
    'Report currently enabled cluster capabilities.  0 is disabled, and 1 is enabled.',
    ['name'],
    (emit) => {
      const caps = view.cv()?.status?.capabilities;
      const enabled = new Set(caps?.enabledCapabilities ?? []);
      for (const n of enabled) emit({ name: n }, 1);
      for (const n of caps?.knownCapabilities ?? []) if (!enabled.has(n)) emit({ name: n }, 0);
    },
  );
}

/** `cluster_operator_condition_transitions`: the counts {@link countConditionTransitions} keeps (name, condition). */
function registerTransitions(registry: Registry): Map<string, number> {
  const transitions = new Map<string, number>();
  gauge(
    registry,
    'cluster_operator_condition_transitions',
    'Reports the number of times that a condition on a cluster operator changes status',
    ['name', 'condition'],
    (emit) => {
      for (const [k, n] of transitions) {
        const [name, condition] = JSON.parse(k) as [string, string];
        emit({ name, condition }, n);
      }
    },
  );
  return transitions;
}

/** `cluster_installer` from `openshift-config/openshift-install` (else `openshift-install-manifests`). */
function registerInstallerGauge(registry: Registry, view: MetricsView): void {
  gauge(
    registry,
    'cluster_installer',
    "Reports info about the installation process and, if applicable, the install tool. The type is either 'openshift-install', indicating that openshift-install was used to install the cluster, or 'other', indicating that an unknown process installed the cluster. The invoker is 'user' by default, but it may be overridden by a consuming tool. The version reported is that of the openshift-install that was used to generate the manifests and, if applicable, provision the infrastructure.",
    ['type', 'version', 'invoker'],
    (emit) => {
      const installer = view.configMap(INSTALLER_CONFIG_MAP);
      const manifests = installer ? undefined : view.configMap(MANIFESTS_CONFIG_MAP);
      const cm = installer ?? manifests;
      if (!cm) {
        emit({ type: '', version: '', invoker: '' }, 1);
        return;
      }
      const d = cm.data ?? {};
      emit(
        {
          type: installer ? 'openshift-install' : 'other',
          version: d['version'] ?? '<missing>',
          invoker: d['invoker'] ?? '<missing>',
        },
        1,
      );
    },
  );
}

/**
 * The update service's gauges: `cluster_version_operator_update_retrieval_timestamp_seconds` and
 * `cluster_version_conditional_update_condition_seconds`.
 */
function registerUpdateGauges(registry: Registry, view: MetricsView): void {
  gauge(
    registry,
    'cluster_version_operator_update_retrieval_timestamp_seconds',
    'Reports when updates were last successfully retrieved.',
    ['name'],
    (emit) => {
      const t = view.updateRetrievalTimestamp();
      if (t !== undefined) emit({ name: '' }, Math.floor(t / 1000));
    },
  );
  gauge(
    registry,
    'cluster_version_conditional_update_condition_seconds',
    'Reports when the Recommended condition status on a conditional update changed to its current state.',
    ['version', 'condition', 'status', 'reason'],
    (emit) => {
      for (const u of view.cv()?.status?.conditionalUpdates ?? [])
        for (const c of u.conditions ?? [])
          if (c.type === 'Recommended')
            emit(
              { version: u.release.version ?? '', condition: c.type, status: c.status, reason: c.reason ?? '' },
              unix(c.lastTransitionTime),
            );
    },
  );
}

/** `cluster_version_payload` (applied / pending) and the `cluster_operator_payload_errors` counter. */
function registerPayloadMetrics(registry: Registry, view: MetricsView): Counter {
  gauge(
    registry,
    'cluster_version_payload',
    'Report the number of entries in the payload.',
    ['version', 'type'],
    (emit) => {
      const p = view.payload();
      if (!p) return;
      emit({ version: p.version, type: 'applied' }, p.applied);
      emit({ version: p.version, type: 'pending' }, p.pending);
    },
  );
  return new Counter({
    name: 'cluster_operator_payload_errors',
    help: 'Report the number of errors encountered applying the payload.',
    labelNames: ['version'],
    registers: [registry],
  });
}

/** `cluster_operator_up` and `cluster_operator_conditions` (ClusterOperators, and the ClusterVersion as `version`). */
function registerOperatorGauges(registry: Registry, view: MetricsView, completedVersion: () => string): void {
  const bit = (s: string): number => (s === 'True' ? 1 : 0);
  gauge(
    registry,
    'cluster_operator_up',
    "1 if a cluster operator is Available=True.  0 otherwise, including if a cluster operator sets no Available condition.  The 'version' label tracks the 'operator' version.  The 'reason' label is passed through from the Available condition, unless the cluster operator sets no Available condition, in which case NoAvailableCondition is used.",
    ['name', 'version', 'reason'],
    (emit) => {
      const cv = view.cv();
      if (!cv) emit({ name: 'version', version: '', reason: 'ClusterVersionNotFound' }, 0);
      else {
        const av = (cv.status?.conditions ?? []).find((c) => c.type === 'Available');
        if (av && PROMETHEUS_ALLOWED.has(av.status))
          emit({ name: 'version', version: completedVersion(), reason: av.reason ?? '' }, bit(av.status));
      }
      for (const co of view.operators()) {
        const av = (co.status?.conditions ?? []).find((c) => c.type === 'Available');
        const version = (co.status?.versions ?? []).find((v) => v.name === 'operator')?.version ?? '';
        emit(
          { name: co.metadata.name ?? '', version, reason: av ? (av.reason ?? '') : 'NoAvailableCondition' },
          av ? bit(av.status) : 0,
        );
      }
    },
  );
  gauge(
    registry,
    'cluster_operator_conditions',
    'Report the conditions for active cluster operators. 0 is False and 1 is True.',
    ['name', 'condition', 'reason'],
    (emit) => {
      const each = (name: string, conds: readonly { type: string; status: string; reason?: string }[]): void => {
        for (const c of conds)
          if (PROMETHEUS_ALLOWED.has(c.status))
            emit({ name, condition: c.type, reason: c.reason ?? '' }, bit(c.status));
      };
      const cv = view.cv();
      if (!cv) emit({ name: 'version', condition: 'Available', reason: 'ClusterVersionNotFound' }, 0);
      else each('version', cv.status?.conditions ?? []);
      for (const co of view.operators()) each(co.metadata.name ?? '', co.status?.conditions ?? []);
    },
  );
}
