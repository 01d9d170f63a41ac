/** Progress events of a daemon, for logs, the virtual-node harness and the rehearsal's live view. */

/** What a node is doing. */
export type DaemonPhase =
  'updating' | 'draining' | 'applying' | 'rebooting' | 'booted' | 'done' | 'degraded' | 'unreconcilable';

/** One progress event. */
export interface DaemonEvent {
  /** Node name. */
  readonly node: string;
  readonly phase: DaemonPhase;
  /** Target rendered config, when known. */
  readonly config?: string;
  /** Details (error text, actions). */
  readonly message?: string;
  /** Milliseconds since the epoch. */
  readonly time: number;
}

/** Receives progress events. */
export type DaemonEventHandler = (e: DaemonEvent) => void;
