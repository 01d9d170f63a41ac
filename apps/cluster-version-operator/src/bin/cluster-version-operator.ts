#!/usr/bin/env node
// cluster-version-operator entry point: flags -> options -> startClusterVersionOperator (wiring only).
import { isUsageError, onShutdown, processLogger } from '@keelson/kube';
import { parseCommandLine, USAGE } from '../cli.js';
import { CvoError } from '../errors.js';
import { startClusterVersionOperator } from '../operator/start.js';
import { renderBootstrap } from '../render.js';

const COMPONENT = 'cluster-version-operator';

async function main(): Promise<void> {
  const cmd = parseCommandLine(process.argv.slice(2));
  if (cmd.command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (cmd.command === 'render') {
    const files = await renderBootstrap({
      payloadDir: cmd.payloadDir,
      outputDir: cmd.outputDir,
      releaseImage: cmd.releaseImage,
      ...(process.env['CLUSTER_PROFILE'] ? { clusterProfile: process.env['CLUSTER_PROFILE'] } : {}),
      ...(cmd.featureGateManifestPath !== undefined ? { featureGateManifestPath: cmd.featureGateManifestPath } : {}),
      ...(cmd.clusterVersionManifestPath !== undefined
        ? { clusterVersionManifestPath: cmd.clusterVersionManifestPath }
        : {}),
    });
    process.stdout.write(`rendered ${files.length} files into ${cmd.outputDir}\n`);
    return;
  }
  const logger = processLogger(COMPONENT, String(cmd.verbosity));
  const holder: { stop?: () => Promise<void> } = {};
  const cvo = await startClusterVersionOperator({
    ...cmd.options,
    logger,
    onEvent: (e) => {
      // as upstream (klog.Fatalf "leaderelection lost"): a CVO that lost its Lease exits, and its pod is restarted
      if (e.type === 'leadershipLost') process.exit(1);
      // as upstream's feature-change stopper: a new feature set stops the operator; the pod restarts with it
      if (e.type === 'featureSetChanged') void holder.stop?.().then(() => process.exit(0));
    },
  });
  holder.stop = () => cvo.stop();
  logger.info('started', { metrics: cvo.metricsUrl });
  onShutdown(() => cvo.stop(), { logger });
}

main().catch((e: unknown) => {
  // a bad command line: its message and the usage text as they are, exit 2 (as every Keelson binary)
  if ((e instanceof CvoError && e.code === 'InvalidFlag') || isUsageError(e)) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  processLogger(COMPONENT).error('cluster-version-operator failed', { err: e });
  process.exitCode = 1;
});
