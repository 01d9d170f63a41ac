#!/usr/bin/env node
// cluster-version-operator entry point: flags -> options -> startClusterVersionOperator (wiring only).
import { createLogger, onShutdown } from '@keelson/kube';
import { parseCommandLine, USAGE } from '../cli.js';
import { startClusterVersionOperator } from '../operator/start.js';
import { renderBootstrap } from '../render.js';

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
  const logger = createLogger({
    level: cmd.verbosity >= 4 ? 'debug' : 'info',
    fields: { component: 'cluster-version-operator' },
  });
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
  const err = e as Error & { code?: string };
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: err.message, code: err.code })}\n`);
  process.exitCode = 1;
});
