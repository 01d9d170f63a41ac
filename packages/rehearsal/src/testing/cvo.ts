/**
 * The real Keelson Cluster Version Operator (`@keelson/cluster-version-operator`, in process) against a
 * {@link OpenShiftSandbox}: it applies a release directory in run-level order and waits for each ClusterOperator, yours
 * included, exactly as it does in a cluster.
 */
import { join } from 'node:path';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '@keelson/cluster-version-operator';
import { nullLogger, type Logger } from '@keelson/kube';
import type { OpenShiftSandbox } from './sandbox.js';

/** Options of {@link startCvo}. */
export interface TestCvoOptions {
  /** The release directory (`release-manifests/`, `manifests/`), e.g. written by `writeTestRelease`. */
  payloadDir: string;
  /** The pull spec the CVO reports as its release image (default a digest of zeros). */
  releaseImage?: string;
  /** Multiplier of the CVO's intervals (default 0.01: a 3-minute resync takes under 2 s). */
  timeScale?: number;
  logger?: Logger;
  onEvent?: (e: CvoEvent) => void;
}

/** Starts the CVO with the sandbox's admin kubeconfig; `stop()` it before stopping the sandbox. */
export function startCvo(cluster: OpenShiftSandbox, o: TestCvoOptions): Promise<RunningCvo> {
  return startClusterVersionOperator({
    kubeconfig: cluster.kubeconfigPath,
    payloadDir: o.payloadDir,
    releaseImage: o.releaseImage ?? `quay.io/keelson/release@sha256:${'0'.repeat(64)}`,
    payloadCache: join(cluster.dir, 'cvo-payloads'),
    payloadRetrieval: 'direct',
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: o.timeScale ?? 0.01,
    intervals: { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 },
    logger: o.logger ?? nullLogger,
    ...(o.onEvent !== undefined ? { onEvent: o.onEvent } : {}),
  });
}
