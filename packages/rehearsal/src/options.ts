/** The options and result of a rehearsal (see ./run.ts), and the releases it works with. */
import type { ReleasePayload } from '@keelson/release-payload';
import type { UpgradeRequester } from './components.js';
import type { PoolDiagnoser } from './diagnosis.js';
import type { FaultPlan } from './faults.js';
import type { IntOrPercent } from './max-unavailable.js';
import type { ReleaseMirror } from './release/index.js';
import type { ApiCounts, RehearsalReport } from './report.js';
import type { TimelineEvent } from './timeline.js';

/** Options of {@link rehearse}. */
export interface RehearseOptions {
  /** Current release (DIR or IMAGE); default: generated release A. */
  from?: string;
  /** Target release; default: generated release B. */
  to?: string;
  /** Request the update with force (`oc adm upgrade --force`): the CVO accepts a target it cannot verify. */
  force?: boolean;
  /**
   * `--release-mirror`: the generated B is published only under a mirror repository of the rehearsal registry; an
   * ImageDigestMirrorSet is created and rolled out to every node (see ./release-mirror.ts) before `upgrade --to`.
   */
  releaseMirror?: boolean;
  masters: number;
  workers: number;
  /** Extra pools: name → node count (nodes labelled worker and <name>, as custom pools are). */
  pools: Record<string, number>;
  /**
   * `spec.maxUnavailable` per pool (`--max-unavailable`): set on master/worker once A is installed, before the update
   * (an admin's `oc patch mcp worker --type merge -p '{"spec":{"maxUnavailable":"10%"}}'`), and in the custom pools'
   * definitions when they are created.
   */
  maxUnavailable?: Record<string, IntOrPercent>;
  timeScale: number;
  faults: FaultPlan;
  /** Give up (Stalled) after this many wall-clock seconds per phase. */
  timeoutSeconds: number;
  workDir: string;
  /** Receives every timeline event as it happens. */
  onEvent?: (e: TimelineEvent) => void;
  /** Component logs (default: dropped). */
  onLog?: (component: string, line: string) => void;
  /**
   * `--hold`: called with the report once the verdict is in, while every component still runs; the cluster is stopped
   * when the returned promise settles (the CLI waits for Ctrl-C).
   */
  hold?: (report: RehearsalReport, kubeconfigPath: string) => Promise<void>;
  /**
   * `--kubeconfig`: rehearse against this existing API server instead of an embedded one (see ./target.ts): refused
   * before anything is written when it lacks the rights or holds OpenShift objects.
   */
  kubeconfig?: string;
  /** With {@link RehearseOptions.kubeconfig}: leave what the rehearsal created in the cluster (`--keep`). */
  keepCluster?: boolean;
  /** Lines for the user outside the report (the cleanup of a `--kubeconfig` cluster). */
  onNotice?: (line: string) => void;
  /**
   * How B is requested once A is installed (the CLI passes its `keelson upgrade --to` code path); default
   * {@link requestUpgradeByPatch}, the `spec.desiredUpdate` merge patch `oc adm upgrade --to` writes.
   */
  requestUpgrade?: UpgradeRequester;
  /**
   * Explains the MachineConfigPools that are not done when the update fails or stalls (the CLI passes `keelson mcp why`);
   * default: pools are not explained (operators, admin acks and workloads are).
   */
  diagnosePools?: PoolDiagnoser;
}

/** Result of {@link rehearse}. */
export interface RehearsalResult {
  report: RehearsalReport;
  events: TimelineEvent[];
}

export const EMPTY_API: ApiCounts = { total: 0, byVerb: {}, evictions: 0, pdbRefusals: 0, injectedErrors: 0 };

/** A release the rehearsal can hand to the CVO. */
export interface Release {
  version: string;
  pullSpec: string;
  payload: ReleasePayload;
  dir: string;
  /** `--release-mirror`: the only repository holding this release, and the source its pull spec names. */
  mirror?: ReleaseMirror;
}
