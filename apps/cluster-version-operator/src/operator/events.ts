/** Progress events of a running operator (for the programmatic API and rehearsals). */

/** One observable step of the operator. */
export type CvoEvent =
  | { type: 'leading'; identity: string }
  /** The Lease was lost while not stopping (upstream exits with "leaderelection lost"; the bin does too). */
  | { type: 'leadershipLost'; identity: string }
  | { type: 'payloadLoaded'; version: string; image: string; verified: boolean; local: boolean }
  | { type: 'payloadRejected'; image: string; reason: string; message: string }
  | {
      type: 'syncStarted';
      mode: 'initializing' | 'updating' | 'reconciling';
      version: string;
      total: number;
      attempt: number;
    }
  | { type: 'runLevelStarted'; runLevel: string; version: string }
  | { type: 'runLevelFinished'; runLevel: string; version: string }
  | { type: 'manifestApplied'; task: string; action: string; done: number; total: number }
  | { type: 'operatorWaiting'; name: string; reason: string }
  | {
      type: 'syncFinished';
      mode: 'initializing' | 'updating' | 'reconciling';
      version: string;
      done: number;
      total: number;
      error?: string;
      reason?: string;
      writes: number;
    }
  /** FeatureGate `cluster` has another feature set than at start (upstream ChangeStopper: the operator stops). */
  | { type: 'featureSetChanged'; from: string; to: string }
  | { type: 'statusWritten'; version: string; conditions: Record<string, string> };
