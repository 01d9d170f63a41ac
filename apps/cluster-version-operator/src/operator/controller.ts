/**
 * The ClusterVersion controller and sync worker loop: watch ClusterVersion, resolve the desired release, retrieve and
 * accept it (verification, preconditions), apply it in task-graph order in the right mode, and report status.
 */
import {
  ClusterOperators,
  ClusterVersions,
  ConfigMaps,
  Informer,
  isNotFound,
  type ConfigMap,
  type Condition,
  type EventRecorder,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ResourceDescriptor,
} from '@keelson/kube';
import type { ReleasePayload } from '@keelson/release-payload';
import { FeatureGateWatcher, readFeatureGateRetrying, type FeatureGateState } from './featuregates.js';
import type { Counter } from 'prom-client';
import type { ClusterOperator, ClusterVersion, ClusterVersionStatus, Release } from '../api-types.js';
import type { PayloadRetriever } from '../payload/retrieve.js';
import { acceptTarget } from './acceptance.js';
import { newestCv, statusFor } from './status-input.js';
import { ClusterFactsState } from './cluster-facts.js';
import {
  autoUpdateTarget,
  decideMode,
  goArchName,
  keepTargetDuringInstall,
  pickTarget,
  releaseFor,
  type LoadedRelease,
  type Work,
} from './release-choice.js';

export type { Work } from './release-choice.js';
import { TRUSTED_CA_BUNDLE } from '../cluster/egress.js';
import {
  runSignaturePersister,
  SIGNATURES_CONFIG_MAP,
  type ConfigMapBody,
  type SignaturePersister,
} from '../payload/persist.js';
import {
  ADMIN_ACKS,
  ADMIN_GATES,
  failureBackoffMs,
  interpretError,
  resolveDesired,
  ResourceApplier,
  type Intervals,
  type OwnerRef,
  type WorkerState,
} from '@keelson/cluster-version';
import { clusterOperatorActivity, specChanged, WakeSignal } from './wake.js';
import { StatusWriter } from '../status/writer.js';
import { runPayload, type RunPayloadResult, type SyncMode } from '../sync/run-payload.js';
import type { UpdatesPoller, UpdatesResult } from '../updates/poll.js';
import type { CvoEvent } from './events.js';

/**
 * Where the controller's informers come from: the Manager's shared cache (`mgr.informer`, started and stopped by the
 * Manager, as upstream's shared informer factories serve its listers), or, without one, informers of its own.
 */
export type InformerSource = <T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  options?: { namespace?: string },
) => Informer<T>;

/** Dependencies of the controller. */
export interface ControllerDeps {
  client: KubeClient;
  /** Shared informers (the Manager's); absent: the controller makes, starts and stops its own. */
  informers?: InformerSource;
  /** Read applied objects from watches instead of a GET per manifest (default true). */
  liveObjectCache?: boolean;
  log: Logger;
  intervals: Intervals;
  localPayload: ReleasePayload;
  releaseImage: string;
  /** Gets target payloads (upstream `PayloadRetriever`: a Pod in cluster, or a direct pull). */
  retriever: PayloadRetriever;
  poller: UpdatesPoller;
  emit: (e: CvoEvent) => void;
  payloadErrors: Counter;
  clusterProfile: string;
  /** Sleep that wakes early when aborted. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Upstream `--enable-auto-update`. */
  enableAutoUpdate: boolean;
  /** Events about the ClusterVersion (namespace openshift-cluster-version, as upstream). */
  recorder: EventRecorder;
  /** Upstream `EXCLUDE_MANIFESTS`: manifests annotated `exclude.release.openshift.io/<id>: "true"` are not applied. */
  excludeIdentifier?: string;
  /** Upstream `--always-enable-capabilities`: capabilities always implicitly enabled. */
  alwaysEnableCapabilities?: readonly string[];
  /** The cluster's feature set changed (upstream ChangeStopper: the operator stops so it restarts with the new set). */
  onFeatureSetChange?: (from: string, to: string) => void;
  /** Verified signatures, written back to `openshift-config-managed/signatures-managed` while leading. */
  signatures?: SignaturePersister;
  /** Every ClusterOperator update the informer sees (the metrics' condition-transition counter). */
  onOperatorUpdate?: (oldCo: ClusterOperator, newCo: ClusterOperator) => void;
}

const CV_NAME = 'version';

/** The operator's control loop (run while leading). */
export class ClusterVersionController {
  readonly applier: ResourceApplier;
  readonly operators: Informer<ClusterOperator>;
  private readonly cvs: Informer<ClusterVersion>;
  /** ConfigMaps of the admin-ack gates (`openshift-config-managed`) and acknowledgements (`openshift-config`). */
  private readonly gateConfigMaps: Informer<ConfigMap>;
  private readonly ackConfigMaps: Informer<ConfigMap>;
  /** The informers are this controller's (no shared source): it starts and stops them. */
  private readonly ownsInformers: boolean;
  private work: Work | undefined;
  private worker: WorkerState | undefined;
  private releaseAccepted: Condition | undefined;
  private updates: UpdatesResult | undefined;
  private updatesAt = 0;
  /** When updates were last retrieved successfully (ms). */
  lastRetrieval: number | undefined;
  private consecutiveErrors = 0;
  private attempt = 0;
  private completedImage: string | undefined;
  private readonly operatorSince = new Map<string, number>();
  /** Wake-ups of the sync loop, kept while a pass runs (upstream `SyncWorker.notify`). */
  readonly wake = new WakeSignal();
  private status: StatusWriter | undefined;
  /** `spec` validation errors of the current pass (for the Invalid condition). */
  private invalid: string[] = [];
  /** Feature set (fixed at start) and enabled gates (upstream `processInitialFeatureGate`). */
  private gates: FeatureGateState | undefined;
  private gateWatcher: FeatureGateWatcher | undefined;
  /** The enabled gates changed since the payload's manifests were filtered. */
  private gatesChanged = false;
  private lastGeneration = -1;
  /** Capabilities and load-time filters. */
  private readonly facts: ClusterFactsState;
  /** Latest ClusterVersion seen. */
  cv: ClusterVersion | undefined;

  constructor(private readonly d: ControllerDeps) {
    this.facts = new ClusterFactsState({
      clusterProfile: d.clusterProfile,
      excludeIdentifier: d.excludeIdentifier,
      alwaysEnableCapabilities: d.alwaysEnableCapabilities,
      gates: () => this.gates,
      log: d.log,
    });
    this.applier = new ResourceApplier(d.client, d.log, {
      liveObjectCache: d.liveObjectCache !== false,
      // the ClusterOperator builder reads the informer's cache (upstream's lister) and reports its verdicts here
      clusterOperators: {
        get: (name) => this.operators.store.getByKey(name),
        done: (name) => {
          this.operatorSince.delete(name);
        },
        waiting: (name, reason) => {
          this.d.emit({ type: 'operatorWaiting', name, reason });
        },
      },
    });
    const informer: InformerSource =
      d.informers ?? ((resource, o) => new Informer(d.client, resource, { ...o, logger: d.log }));
    this.ownsInformers = d.informers === undefined;
    this.operators = informer(ClusterOperators);
    this.cvs = informer(ClusterVersions);
    this.gateConfigMaps = informer(ConfigMaps, { namespace: ADMIN_GATES.namespace });
    this.ackConfigMaps = informer(ConfigMaps, { namespace: ADMIN_ACKS.namespace });
    // upstream adminAcksEventHandler / adminGatesEventHandler: a change of either ConfigMap re-assesses Upgradeable
    for (const [inf, name] of [
      [this.gateConfigMaps, ADMIN_GATES.name],
      [this.ackConfigMaps, ADMIN_ACKS.name],
    ] as const) {
      const changed = (cm: ConfigMap): void => {
        if (cm.metadata.name === name) this.reportStatus(true);
      };
      inf.addHandlers({
        add: changed,
        update: (_o, cm) => {
          changed(cm);
        },
        delete: changed,
      });
    }
    // Upstream's sync worker restarts only when the desired work changed: our own status writes must not start a pass.
    this.cvs.addHandlers({
      add: () => {
        this.wake.notify('work');
      },
      update: (oldCv, newCv) => {
        if (specChanged(oldCv, newCv)) this.wake.notify('work');
      },
    });
    this.operators.addHandlers({
      update: (oldCo, newCo) => {
        this.d.onOperatorUpdate?.(oldCo, newCo);
        const msg = clusterOperatorActivity(oldCo, newCo);
        if (msg === undefined) return;
        this.d.log.debug('Notify the sync worker', { reason: msg });
        this.wake.notify('activity');
      },
    });
  }

  /** A ConfigMap of `openshift-config-managed` from the informer (the trusted CA bundle). */
  configManagedMap(name: string): ConfigMap | undefined {
    return this.gateConfigMaps.store.getByKey(`${ADMIN_GATES.namespace}/${name}`);
  }

  /** A ConfigMap of `openshift-config` from the informer (metrics: `cluster_installer`). */
  openshiftConfigMap(name: string): ConfigMap | undefined {
    return this.ackConfigMaps.store.getByKey(`${ADMIN_ACKS.namespace}/${name}`);
  }

  /** Progress of the current payload for metrics. */
  payloadProgress(): { version: string; applied: number; pending: number } | undefined {
    const w = this.worker;
    return w
      ? { version: w.desired.version ?? '', applied: w.done, pending: Math.max(0, w.total - w.done) }
      : undefined;
  }

  /** Capabilities for metrics/status. */
  capabilities(): { enabled: string[]; known: string[] } {
    const c = this.facts.caps(this.cv, true);
    return { enabled: [...c.enabled], known: [...c.known] };
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = [this.operators, this.cvs, this.gateConfigMaps, this.ackConfigMaps];
    if (this.ownsInformers) for (const i of informers) i.start();
    this.status = this.statusWriter(signal);
    let persisting: Promise<void> | undefined;
    try {
      await Promise.race([
        Promise.all(informers.map((i) => i.waitForSync(signal))),
        new Promise((r) => {
          signal.addEventListener('abort', r, { once: true });
        }),
      ]);
      await this.startFeatureGates(signal);
      const signatures = this.d.signatures;
      if (signatures)
        persisting = runSignaturePersister(signatures, {
          client: this.d.client,
          log: this.d.log,
          cached: () => this.configManagedMap(SIGNATURES_CONFIG_MAP.name) as ConfigMapBody | undefined,
          intervalMs: 2 * this.d.intervals.updateCheckIntervalMs,
          sleep: this.d.sleep,
          signal,
        });
      while (!signal.aborted) {
        const wait = await this.syncOnce(signal).catch((e: unknown) => {
          if (!signal.aborted) this.d.log.error('sync failed', { error: (e as Error).message });
          return failureBackoffMs(this.d.intervals.minimumReconcileIntervalMs, 1);
        });
        if (signal.aborted) break;
        // upstream SyncWorker.Start: a notification while waiting to reconcile (no change of work) does not start a pass
        const woke = await this.wake.wait(
          wait,
          signal,
          this.worker?.mode === 'reconciling' && this.worker.failure === undefined,
        );
        if (woke === 'activity' || woke === 'work') this.d.log.debug('sync worker woken', { reason: woke });
      }
    } finally {
      await persisting;
      await this.gateWatcher?.stop();
      this.status.stop();
      await this.status.settled();
      await this.applier.close();
      if (this.ownsInformers) await Promise.all(informers.map((i) => i.stop()));
    }
  }

  /** Reads FeatureGate `cluster` (retrying API errors) and watches it (upstream processInitialFeatureGate + ChangeStopper). */
  private async startFeatureGates(signal: AbortSignal): Promise<void> {
    const version = (): string => this.work?.version ?? this.d.localPayload.metadata.version;
    this.gates ??= await readFeatureGateRetrying({
      client: this.d.client,
      log: this.d.log,
      version,
      backoffMs: (attempt) => failureBackoffMs(this.d.intervals.minimumReconcileIntervalMs, Math.min(attempt, 4)),
      sleep: this.d.sleep,
      signal,
    });
    if (!this.gates) return;
    this.gateWatcher = new FeatureGateWatcher({
      client: this.d.client,
      log: this.d.log,
      starting: this.gates,
      version,
      onFeatureSetChange: (from, to) => {
        this.d.emit({ type: 'featureSetChanged', from, to });
        this.d.onFeatureSetChange?.(from, to);
      },
      onGatesChange: (enabledGates) => {
        if (this.gates) this.gates = { ...this.gates, enabledGates };
        this.gatesChanged = true;
        this.wake.notify('work');
      },
    });
    this.gateWatcher.start();
  }

  /** The status writer of one leadership term (upstream `Operator.sync` → `syncStatus`, apart from the sync worker). */
  private statusWriter(signal: AbortSignal): StatusWriter {
    return new StatusWriter({
      client: this.d.client,
      log: this.d.log,
      statusIntervalMs: this.d.intervals.statusIntervalMs,
      retryBaseMs: Math.max(1, Math.round(this.d.intervals.statusIntervalMs / 15)),
      current: () => this.cv,
      read: async (s) => {
        const cv = await this.getCv(s);
        if (cv) this.cv = cv;
        return cv;
      },
      compute: (cv) => this.computeStatusFor(cv),
      written: (cv, status) => {
        this.cv = cv;
        const conds: Record<string, string> = {};
        for (const c of cv.status?.conditions ?? []) conds[c.type] = c.status;
        this.d.emit({ type: 'statusWritten', version: status.desired.version ?? '', conditions: conds });
      },
      signal,
    });
  }

  private async getCv(signal: AbortSignal): Promise<ClusterVersion | undefined> {
    try {
      return await this.d.client.resource(ClusterVersions).get(CV_NAME, undefined, signal);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** The ClusterVersion of this pass, no GET: see {@link newestCv}. */
  private cachedCv(): ClusterVersion | undefined {
    return newestCv(this.cvs.store.getByKey(CV_NAME), this.cv);
  }

  /** One pass: resolve, maybe load, apply, report. Returns the delay before the next pass. */
  private async syncOnce(signal: AbortSignal): Promise<number> {
    const iv = this.d.intervals;
    // what this pass reads below covers every notification so far; only later ones start another pass
    this.wake.clear();
    const cv = this.cachedCv();
    this.cv = cv;
    if (!cv) {
      this.d.log.info('ClusterVersion "version" does not exist yet; waiting (the installer creates it)');
      return iv.statusIntervalMs;
    }
    const resolution = resolveDesired(cv, this.currentArchitecture());
    this.invalid = [...resolution.invalid];
    const own = { version: this.d.localPayload.metadata.version, image: this.d.releaseImage };
    const { target, force } = keepTargetDuringInstall(
      cv,
      pickTarget(cv, resolution.desired, own),
      resolution.force,
      this.work,
      (w) => this.decideMode(cv, w),
      this.d.log,
    );
    await this.ensureWork(cv, target, force, signal);
    await this.maybePollUpdates(cv, signal);
    if (await this.maybeAutoUpdate(cv, signal)) return 0;
    const work = this.work;
    if (!work) return iv.minimumReconcileIntervalMs;
    this.refreshForGates(cv, work);
    const mode = this.decideMode(cv, work);
    if (this.lastGeneration !== (cv.metadata.generation ?? 0) && mode !== 'reconciling') this.attempt = 0;
    this.lastGeneration = cv.metadata.generation ?? 0;
    this.beginPass(cv, work, mode);
    const writesBefore = this.writeCount();
    const result = await this.applyPayload(cv, work, mode, signal);
    if (signal.aborted) return 0;
    const writes = this.writeCount() - writesBefore;
    return result.error
      ? this.passFailed(work, mode, result, result.error, writes)
      : this.passSucceeded(work, mode, result, writes);
  }

  /** upstream SyncWorker.Update: "Enabled feature gates changed …, forcing a payload refresh". */
  private refreshForGates(cv: ClusterVersion, work: Work): void {
    if (!this.gatesChanged) return;
    this.gatesChanged = false;
    Object.assign(work, this.facts.includedManifests(cv, work.payload));
    this.d.log.info('Enabled feature gates changed, forcing a payload refresh', {
      version: work.version,
      manifests: work.manifests.length,
    });
  }

  private writeCount(): number {
    return this.applier.writes.creates + this.applier.writes.updates + this.applier.writes.deletes;
  }

  /** The worker state of a new pass, reported at once. */
  private beginPass(cv: ClusterVersion, work: Work, mode: SyncMode): void {
    // upstream statusWrapper.Report: after a failed attempt, progress reports of the next attempt that are earlier than
    // the failure ("Dropping status report from earlier in sync loop") are not shown; the status keeps the failed
    // attempt's progress until this attempt gets further, so retrying an unchanged failure writes no status
    const carried = this.worker?.failure && this.worker.desired.image === work.image ? this.worker : undefined;
    this.worker = {
      mode,
      desired: releaseFor(work, cv),
      verified: work.verified,
      acceptedRisks: work.acceptedRisks,
      local: work.local,
      done: carried?.total === work.manifests.length ? carried.done : 0,
      total: work.manifests.length,
      completed: mode === 'reconciling',
      ...(carried?.failure ? { failure: carried.failure } : {}),
      generation: cv.metadata.generation ?? 0,
      versionHash: work.versionHash,
    };
    this.reportStatus(true);
    const total = work.manifests.length;
    this.d.emit({ type: 'syncStarted', mode, version: work.version, total, attempt: this.attempt });
    this.d.log.info('Running sync', { mode, version: work.version, image: work.image, attempt: this.attempt, total });
  }

  /** Applies the work's manifests in task-graph order (upstream SyncWorker.apply). */
  private applyPayload(cv: ClusterVersion, work: Work, mode: SyncMode, signal: AbortSignal): Promise<RunPayloadResult> {
    const iv = this.d.intervals;
    const owner: OwnerRef | undefined = cv.metadata.uid
      ? { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: CV_NAME, uid: cv.metadata.uid }
      : undefined;
    return runPayload({
      manifests: work.manifests,
      mode,
      attempt: this.attempt,
      applier: this.applier,
      owner,
      facts: this.facts.applyFacts(cv),
      backoff: mode === 'initializing' ? iv.initializingTaskBackoff : iv.taskBackoff,
      operatorSince: this.operatorSince,
      signal,
      log: this.d.log,
      sleep: this.d.sleep,
      observer: {
        manifestApplied: (e) => {
          const w = this.worker;
          if (w && (w.failure === undefined || e.done > w.done)) w.done = e.done;
          this.d.emit({ type: 'manifestApplied', ...e });
          this.reportStatus(false);
        },
        runLevelStarted: (e) => {
          this.d.emit({ type: 'runLevelStarted', runLevel: e.runLevel, version: work.version });
        },
        runLevelFinished: (e) => {
          this.d.emit({ type: 'runLevelFinished', runLevel: e.runLevel, version: work.version });
        },
        taskFailed: () => {
          this.d.payloadErrors.inc({ version: work.version });
        },
      },
    });
  }

  /** A pass that failed: the failure as status reports it, and the backoff before the next attempt. */
  private passFailed(work: Work, mode: SyncMode, result: RunPayloadResult, error: Error, writes: number): number {
    const iv = this.d.intervals;
    const w = this.requireWorker();
    w.done = result.done;
    const interp = interpretError(error, mode === 'reconciling', Date.now(), this.operatorSince, iv);
    w.failure = interp;
    w.completed = mode === 'reconciling';
    this.consecutiveErrors++;
    this.attempt++;
    const counts = { mode, version: work.version, done: result.done, total: result.total };
    this.d.emit({ type: 'syncFinished', ...counts, error: error.message, reason: interp.reason, writes });
    this.d.log.info('Result of work', { ...counts, reason: interp.reason, error: error.message });
    this.reportStatus(true);
    return failureBackoffMs(iv.minimumReconcileIntervalMs, this.consecutiveErrors);
  }

  /** A pass that completed: Reconciling from now on, unused payloads cleaned, the next pass after the interval. */
  private async passSucceeded(work: Work, mode: SyncMode, result: RunPayloadResult, writes: number): Promise<number> {
    const w = this.requireWorker();
    w.done = result.done;
    delete w.failure;
    w.completed = true;
    w.mode = 'reconciling';
    this.completedImage = work.image;
    this.consecutiveErrors = 0;
    this.attempt = mode === 'reconciling' ? this.attempt + 1 : 0;
    this.operatorSince.clear();
    this.d.emit({ type: 'syncFinished', mode, version: work.version, done: result.done, total: result.total, writes });
    this.reportStatus(true);
    const keep = [work.payload.image?.digest, this.d.localPayload.image?.digest];
    await this.d.retriever.clean(new Set(keep.filter((x): x is string => x !== undefined)));
    return Math.round(this.d.intervals.minimumReconcileIntervalMs * (1 + Math.random()));
  }

  private requireWorker(): WorkerState {
    if (!this.worker) throw new Error('no sync pass is running');
    return this.worker;
  }

  private decideMode(cv: ClusterVersion, work: LoadedRelease): SyncMode {
    return decideMode(cv, work, this.completedImage);
  }

  /** Makes `this.work` the target release when it can be accepted (upstream pkg/cvo/sync_worker.go syncPayload). */
  private async ensureWork(cv: ClusterVersion, target: Release, force: boolean, signal: AbortSignal): Promise<void> {
    const image = target.image ?? '';
    if (this.work && this.work.image === image && this.work.force === force) return;
    if (image === this.d.releaseImage) {
      this.loadLocalWork(cv, force);
      return;
    }
    const v = target.version ?? '';
    this.releaseAccepted = {
      type: 'ReleaseAccepted',
      status: 'Unknown',
      reason: 'RetrievePayload',
      message: `Retrieving and verifying payload version="${v}" image="${image}"`,
    };
    this.reportStatus(true);
    const verdict = await acceptTarget({
      client: this.d.client,
      retriever: this.d.retriever,
      recorder: this.d.recorder,
      signatures: this.d.signatures,
      trustedCABundle: () => this.configManagedMap(TRUSTED_CA_BUNDLE.name),
      currentManifests: this.work?.payload.manifests ?? this.d.localPayload.manifests,
      cv,
      image,
      version: v,
      force,
      signal,
    });
    if (!verdict.accepted) {
      await this.rejectTarget(cv, image, verdict.reason, verdict.message, signal);
      return;
    }
    const { payload } = verdict;
    const inc = this.facts.includedManifests(cv, payload);
    this.facts.implicitlyEnable(
      cv,
      inc.manifests,
      () => this.work?.manifests ?? this.facts.includedManifests(cv, this.d.localPayload).manifests,
    );
    this.work = {
      image,
      version: payload.metadata.version,
      payload,
      ...inc,
      verified: verdict.verified,
      acceptedRisks: verdict.risks.join('\n'),
      local: false,
      force,
    };
    this.releaseAccepted = this.accepted(this.work);
    this.operatorSince.clear();
    this.attempt = 0;
    this.d.emit({
      type: 'payloadLoaded',
      version: this.work.version,
      image,
      verified: this.work.verified,
      local: false,
    });
    void this.d.recorder.normal(cv, 'PayloadLoaded', this.releaseAccepted.message ?? '');
  }

  /** The operator's own release as the work (verified and accepted risks as its history entry says). */
  private loadLocalWork(cv: ClusterVersion, force: boolean): void {
    const image = this.d.releaseImage;
    const hist = (cv.status?.history ?? []).find((h) => h.image === image);
    this.work = {
      image,
      version: this.d.localPayload.metadata.version,
      payload: this.d.localPayload,
      ...this.facts.includedManifests(cv, this.d.localPayload),
      verified: hist?.verified ?? false,
      acceptedRisks: hist?.acceptedRisks ?? '',
      local: true,
      force,
    };
    this.releaseAccepted = this.accepted(this.work);
    this.d.emit({
      type: 'payloadLoaded',
      version: this.work.version,
      image,
      verified: this.work.verified,
      local: true,
    });
  }

  /** A target that cannot be accepted: ReleaseAccepted=False, an Event, and the own release while nothing runs. */
  private async rejectTarget(
    cv: ClusterVersion,
    image: string,
    reason: string,
    message: string,
    signal: AbortSignal,
  ): Promise<void> {
    this.releaseAccepted = { type: 'ReleaseAccepted', status: 'False', reason, message };
    this.d.emit({ type: 'payloadRejected', image, reason, message });
    this.d.log.warn('payload not accepted', { image, reason, message });
    void this.d.recorder.warning(
      cv,
      reason === 'PreconditionChecks' ? 'PreconditionBlock' : 'RetrievePayloadFailed',
      message,
    );
    if (!this.work)
      await this.ensureWork(
        cv,
        { version: this.d.localPayload.metadata.version, image: this.d.releaseImage },
        false,
        signal,
      );
    this.reportStatus(true);
  }

  private accepted(w: Work): Condition {
    return {
      type: 'ReleaseAccepted',
      status: 'True',
      reason: 'PayloadLoaded',
      message: `Payload loaded version="${w.version}" image="${w.image}" architecture="${w.payload.image?.architecture ?? goArchName()}"`,
    };
  }

  /** The running release's architecture (upstream `optr.release.Architecture`): `Multi` or ''. */
  private currentArchitecture(): string {
    return this.d.localPayload.metadata.metadata?.['release.openshift.io/architecture'] === 'multi' ? 'Multi' : '';
  }

  private async maybePollUpdates(cv: ClusterVersion, signal: AbortSignal): Promise<void> {
    const now = Date.now();
    // upstream syncAvailableUpdates: a new desired architecture refetches at once
    const key = `${cv.spec.channel ?? ''}|${cv.spec.upstream ?? ''}|${cv.spec.desiredUpdate?.architecture ?? ''}`;
    if (this.updates && now - this.updatesAt < this.d.intervals.updateCheckIntervalMs && this.pollKey === key) return;
    const version = cv.status?.desired.version ?? this.work?.version ?? this.d.localPayload.metadata.version;
    this.updates = await this.d.poller.poll(cv, version, signal, this.currentArchitecture());
    this.updatesAt = now;
    this.pollKey = key;
    if (this.updates.retrievedUpdates.status === 'True') this.lastRetrieval = now;
  }
  private pollKey = '';

  /** Upstream autoupdate controller: sets `spec.desiredUpdate` to {@link autoUpdateTarget}; true when it wrote. */
  private async maybeAutoUpdate(cv: ClusterVersion, signal: AbortSignal): Promise<boolean> {
    if (!this.d.enableAutoUpdate) return false;
    const newest = autoUpdateTarget(cv, this.worker, this.updates?.availableUpdates, this.work?.image);
    if (!newest) return false;
    this.d.log.info('auto-update: setting desiredUpdate to the newest available update', newest);
    await this.d.client.request('PATCH', `/apis/config.openshift.io/v1/clusterversions/${CV_NAME}`, {
      body: { spec: { desiredUpdate: { ...newest, force: false } } },
      contentType: 'application/merge-patch+json',
      signal,
    });
    return true;
  }

  /** Asks the status writer for a write (never throws, never waits: status is written apart from the sync). */
  reportStatus(edge: boolean): void {
    this.status?.request(edge);
  }

  /** The status the worker's current state gives over `cv` (upstream `updateClusterVersionStatus`). */
  private computeStatusFor(cv: ClusterVersion): ClusterVersionStatus {
    return statusFor(cv, {
      worker: this.worker,
      releaseAccepted: this.releaseAccepted,
      updates: this.updates,
      caps: this.facts.caps(cv, true),
      baseEnabled: this.facts.caps(cv, false).enabled,
      invalid: this.invalid,
      operators: this.operators.store.list(),
      deletesInProgress: [...this.applier.deletesInProgress],
      adminGates: this.gateConfigMaps.store.getByKey(`${ADMIN_GATES.namespace}/${ADMIN_GATES.name}`),
      adminAcks: this.ackConfigMaps.store.getByKey(`${ADMIN_ACKS.namespace}/${ADMIN_ACKS.name}`),
    });
  }
}
