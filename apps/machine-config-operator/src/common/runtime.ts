/**
 * Process plumbing shared by the operator and the controller: API client from a kubeconfig, JSON logger, metrics
 * registry, /healthz /readyz /metrics server and Lease leader election around a "lead" function.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  createLogger,
  errorSafeLogger,
  KubeClient,
  KubeConfig,
  levelFromVerbosity,
  Manager,
  Registry,
  runnableFromStarter,
  scaledLeaderElection,
  type KubeClientOptions,
  type Logger,
  type LogLevel,
  type ManagerLeaderElection,
  type StopReason,
} from '@keelson/kube';

/** Options common to {@link startMachineConfigOperator} and {@link startMachineConfigController}. */
export interface ProcessOptions {
  /** Kubeconfig: a file path, a loaded KubeConfig, or absent for the default (KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeconfig?: string | KubeConfig;
  /** Logger to use (JSON lines); or give `logSink` to receive each JSON line. Default: JSON lines on stderr. */
  logger?: Logger;
  /** Receives every log line (JSON text ending in "\n") when no `logger` is given. */
  logSink?: (line: string) => void;
  /** Log level when the logger is created here (upstream `--v`: 0–1 info, ≥4 debug). */
  logLevel?: LogLevel;
  /** Metrics registry (default: a new one). */
  registry?: Registry;
  /** Health/metrics server; `false` to not serve. Default port 0 (any) on 127.0.0.1. */
  health?: false | { port?: number; host?: string };
  /** Lease leader election; `false` to run without (single replica, tests). */
  leaderElection?: false | LeaderElectionSettings;
  /**
   * Clock compression (rehearsals; default 1): upstream durations are divided by this. Leader election keeps whole
   * seconds (the Lease API's unit) and retry < renew < lease: see {@link scaledLeaderElection}.
   */
  timeScale?: number;
}

/**
 * Upstream's lease / renew / retry (137 s / 107 s / 26 s) on a clock `timeScale` times faster: `@keelson/kube`'s, in
 * whole seconds and never below 15 s / 10 s / 2 s of wall time. Scaled at all because a process started before its
 * namespace exists (the CVO creates `openshift-machine-config-operator` at run level 80) would wait an unscaled 26 s
 * between attempts to create its Lease; floored because a 1 s retry period renewed each leader's Lease every second
 * of wall time (half the Lease traffic of a rehearsed update) and a 2 s renew deadline is too short on a loaded machine.
 */
export { scaledLeaderElection };

/** Leader-election settings (upstream defaults: lease 137 s, renew 107 s, retry 26 s for OpenShift components). */
export interface LeaderElectionSettings {
  namespace?: string;
  name?: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** A started process component. */
export interface Running {
  /** Stops: controllers end, the lease is released, the health server closes. */
  stop(): Promise<void>;
  /** URL of the health/metrics server, when serving. */
  readonly healthUrl: string | undefined;
  /** True while this process leads (always true without leader election once started). */
  isLeader(): boolean;
  /** Settles when the process's manager stopped: `stopped` after stop(), `leaderLost` when the Lease was lost. */
  readonly done?: Promise<StopReason>;
}

/** Builds the API client from the kubeconfig option. */
export function clientFrom(kubeconfig: string | KubeConfig | undefined, options: KubeClientOptions = {}): KubeClient {
  if (kubeconfig instanceof KubeConfig) return new KubeClient(kubeconfig, options);
  return KubeClient.fromKubeconfigFile(kubeconfig, options);
}

/** The logger from the options; a supplied logger is wrapped so Error fields log their message and code. */
export function loggerFrom(o: ProcessOptions, component: string): Logger {
  if (o.logger) return errorSafeLogger(o.logger.child({ component }));
  const sink = o.logSink;
  return createLogger({
    ...(o.logLevel !== undefined ? { level: o.logLevel } : {}),
    fields: { component },
    ...(sink
      ? {
          stream: {
            write: (l: string) => {
              sink(l);
            },
          },
        }
      : {}),
  });
}

/** Maps upstream's klog `--v` to a level (`@keelson/kube` flags). */
export { levelFromVerbosity };

/**
 * Runs `lead()` while holding the Lease (or at once without leader election), with health and metrics: a
 * `@keelson/kube` {@link Manager} with `lead` as its one leader runnable. `lead` returns its own stop function; it is
 * called when leadership ends or on stop(), before the Lease is handed back. A Lease lost without stop() stops the
 * process's manager and settles {@link Running.done} with `leaderLost` (the bin then exits 1, as upstream's
 * `klog.Fatalf("leaderelection lost")`).
 */
export async function runLeading(
  o: ProcessOptions,
  defaults: { namespace: string; name: string },
  client: KubeClient,
  logger: Logger,
  registry: Registry,
  lead: (mgr: Manager) => Promise<() => Promise<void>>,
): Promise<Running> {
  let leading = false;
  const mgr = new Manager({
    client,
    logger,
    registry,
    health: o.health === false ? false : { port: o.health?.port ?? 0, host: o.health?.host ?? '127.0.0.1' },
    leaderElection: o.leaderElection === false ? false : leaderElectionFor(o, defaults),
  });
  // without leader election, a failing lead() fails the start, as before the Manager (its informers, taken from
  // the Manager's cache, are started by lead() itself and stopped by the Manager)
  let first: (() => Promise<void>) | undefined;
  if (o.leaderElection === false) {
    try {
      first = await lead(mgr);
    } catch (e) {
      await mgr.stop();
      throw e;
    }
  }
  let starter: (() => Promise<() => Promise<void>>) | undefined = first ? () => Promise.resolve(first) : undefined;
  mgr.add({
    name: defaults.name,
    start: runnableFromStarter(async () => {
      const stopLead = await (starter ?? (() => lead(mgr)))();
      starter = undefined;
      leading = true;
      return async () => {
        leading = false;
        await stopLead();
      };
    }),
  });
  try {
    await mgr.start();
  } catch (e) {
    await first?.();
    await mgr.stop();
    throw e;
  }
  return {
    healthUrl: mgr.healthUrl,
    isLeader: () => leading,
    done: mgr.done,
    stop: () => mgr.stop(),
  };
}

/** The Manager's leader election from the options: explicit values, else upstream's scaled by `timeScale`. */
function leaderElectionFor(o: ProcessOptions, defaults: { namespace: string; name: string }): ManagerLeaderElection {
  const le = o.leaderElection === false ? {} : (o.leaderElection ?? {});
  const scaled = scaledLeaderElection(o.timeScale ?? 1);
  return {
    namespace: le.namespace ?? defaults.namespace,
    name: le.name ?? defaults.name,
    identity: le.identity ?? `${hostname()}_${randomUUID()}`,
    leaseDurationMs: le.leaseDurationMs ?? scaled.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs ?? scaled.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs ?? scaled.retryPeriodMs,
  };
}
