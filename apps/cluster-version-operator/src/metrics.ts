/** Prometheus metrics named as upstream (openshift/cluster-version-operator pkg/cvo/metrics.go), computed at scrape time from the operator's latest view. */
import { Counter, Gauge } from 'prom-client';
import type { Registry } from '@keelson/kube';
import type { ClusterOperator, ClusterVersion } from './api-types.js';

/** What the metrics read at scrape time. */
export interface MetricsView {
  cv(): ClusterVersion | undefined;
  operators(): readonly ClusterOperator[];
  /** Release of the running operator and its creation time. */
  current(): { version: string; image: string; created: number };
  payload(): { version: string; applied: number; pending: number } | undefined;
  capabilities(): { enabled: readonly string[]; known: readonly string[] };
  updateRetrievalTimestamp(): number | undefined;
}

const seconds = (t: string | null | undefined): number => (t ? Date.parse(t) / 1000 : 0);

/** Registers the CVO metrics; returns the payload-error counter the sync loop increments. */
export function registerMetrics(registry: Registry, view: MetricsView): { payloadErrors: Counter } {
  new Gauge({
    name: 'cluster_version',
    help: 'Reports the version of the cluster in terms of seconds since the epoch. Type current is the version being applied, desired the version requested, completed the last completed update, cluster the creation of the ClusterVersion, updating the start of the current update, initial the oldest history entry.',
    labelNames: ['type', 'version', 'image', 'from_version'],
    registers: [registry],
    collect() {
      this.reset();
      const cur = view.current();
      const cv = view.cv();
      const history = cv?.status?.history ?? [];
      const completed = history.find((h) => h.state === 'Completed');
      const from = completed?.version ?? '';
      this.set({ type: 'current', version: cur.version, image: cur.image, from_version: '' }, cur.created / 1000);
      if (!cv) return;
      const desired = cv.status?.desired;
      if (desired?.version !== undefined)
        this.set(
          { type: 'desired', version: desired.version, image: desired.image ?? '', from_version: from },
          Date.now() / 1000,
        );
      this.set({ type: 'cluster', version: '', image: '', from_version: '' }, seconds(cv.metadata.creationTimestamp));
      if (completed)
        this.set(
          { type: 'completed', version: completed.version ?? '', image: completed.image, from_version: '' },
          seconds(completed.completionTime),
        );
      const top = history[0];
      if (top?.state === 'Partial')
        this.set(
          { type: 'updating', version: top.version ?? '', image: top.image, from_version: from },
          seconds(top.startedTime),
        );
      const initial = history[history.length - 1];
      if (initial)
        this.set(
          { type: 'initial', version: initial.version ?? '', image: initial.image, from_version: '' },
          seconds(initial.startedTime),
        );
      const failing = (cv.status?.conditions ?? []).find((c) => c.type === 'Failing');
      if (failing?.status === 'True' && desired?.version !== undefined)
        this.set(
          { type: 'failure', version: desired.version, image: desired.image ?? '', from_version: from },
          seconds(failing.lastTransitionTime),
        );
    },
  });
  new Gauge({
    name: 'cluster_version_available_updates',
    help: 'Report the count of available versions for an upstream and channel.',
    labelNames: ['upstream', 'channel'],
    registers: [registry],
    collect() {
      this.reset();
      const cv = view.cv();
      if (!cv) return;
      this.set(
        { upstream: cv.spec.upstream ?? '', channel: cv.spec.channel ?? '' },
        (cv.status?.availableUpdates ?? []).length,
      );
    },
  });
  new Gauge({
    name: 'cluster_version_capability',
    help: 'Report currently enabled cluster capabilities. 0 is disabled, and 1 is enabled.',
    labelNames: ['name'],
    registers: [registry],
    collect() {
      this.reset();
      const c = view.capabilities();
      const enabled = new Set(c.enabled);
      for (const n of c.known) this.set({ name: n }, enabled.has(n) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'cluster_operator_up',
    help: '1 if a cluster operator is Available=True. 0 otherwise, including if a cluster operator sets no Available condition.',
    labelNames: ['name', 'version', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const co of view.operators()) {
        const av = (co.status?.conditions ?? []).find((c) => c.type === 'Available');
        const version = (co.status?.versions ?? []).find((v) => v.name === 'operator')?.version ?? '';
        this.set(
          { name: co.metadata.name ?? '', version, reason: av ? (av.reason ?? '') : 'NoAvailableCondition' },
          av?.status === 'True' ? 1 : 0,
        );
      }
      const cv = view.cv();
      const av = (cv?.status?.conditions ?? []).find((c) => c.type === 'Available');
      if (cv)
        this.set(
          {
            name: 'version',
            version: cv.status?.desired.version ?? '',
            reason: av ? (av.reason ?? '') : 'NoAvailableCondition',
          },
          av?.status === 'True' ? 1 : 0,
        );
    },
  });
  new Gauge({
    name: 'cluster_operator_conditions',
    help: 'Report the conditions for active cluster operators. 0 is False and 1 is True.',
    labelNames: ['name', 'condition', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      const emit = (name: string, conds: readonly { type: string; status: string; reason?: string }[]): void => {
        for (const c of conds)
          if (c.status === 'True' || c.status === 'False')
            this.set({ name, condition: c.type, reason: c.reason ?? '' }, c.status === 'True' ? 1 : 0);
      };
      for (const co of view.operators()) emit(co.metadata.name ?? '', co.status?.conditions ?? []);
      const cv = view.cv();
      if (cv) emit('version', cv.status?.conditions ?? []);
    },
  });
  new Gauge({
    name: 'cluster_version_payload',
    help: 'Report the number of entries in the payload.',
    labelNames: ['version', 'type'],
    registers: [registry],
    collect() {
      this.reset();
      const p = view.payload();
      if (!p) return;
      this.set({ version: p.version, type: 'applied' }, p.applied);
      this.set({ version: p.version, type: 'pending' }, p.pending);
    },
  });
  new Gauge({
    name: 'cluster_version_operator_update_retrieval_timestamp_seconds',
    help: 'Reports when updates were last successfully retrieved.',
    labelNames: ['name'],
    registers: [registry],
    collect() {
      this.reset();
      const t = view.updateRetrievalTimestamp();
      if (t !== undefined) this.set({ name: '' }, t / 1000);
    },
  });
  const payloadErrors = new Counter({
    name: 'cluster_operator_payload_errors',
    help: 'Report the number of errors encountered applying the payload.',
    labelNames: ['version'],
    registers: [registry],
  });
  return { payloadErrors };
}
