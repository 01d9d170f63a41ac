#!/usr/bin/env node
// machine-config-operator entry point (wiring only; see src/operator/operator.ts).
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  addCommonFlags,
  cliLogger,
  processOptions,
  readJsonStrings,
  runCommandLine,
  runUntilSignal,
  UsageError,
  type CommonFlags,
} from '../common/cli.js';
import { startMachineConfigOperator } from '../operator/operator.js';

/** `--flag`, `--flag=true`, `--flag=false`; anything else is refused. */
function parseBool(v: string): boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new InvalidArgumentError(`expected true or false, got ${JSON.stringify(v)}`);
}

const program = new Command('machine-config-operator').description(
  'Machine Config Operator: ControllerConfig, pools and ClusterOperator machine-config',
);
addCommonFlags(
  program
    .command('start')
    .description('Run the operator (leader-elected on Lease machine-config); needs RELEASE_VERSION'),
  '127.0.0.1:9002',
)
  .option('--images-json <file>', 'JSON object of component images (ControllerConfig spec.images)')
  .option('--release-version <v>', 'release version (default: env RELEASE_VERSION)')
  .option('--release-image <image>', 'release image pull spec (default: env RELEASE_IMAGE)')
  .option(
    '--operator-image <image>',
    'operator image, reported as version operator-image (default: env OPERATOR_IMAGE)',
  )
  .option('--cluster-dns-ip <ip>', 'cluster DNS service IP', '172.30.0.10')
  .addOption(
    new Option(
      '--manage-operands [bool]',
      'deploy the daemon DaemonSet, controller Deployment and server DaemonSet in upstream order and wait for their rollouts (the release ships none of them); false: they are run by someone else (processes started by hand)',
    )
      .default(true)
      .argParser(parseBool),
  )
  .option('--operands-dir <dir>', 'directory of the operand manifests (default: the package operands/)')
  .option(
    '--mcs-cert-rotation <mode>',
    'machine-config-server CA/serving certificate rotation and user-data CA updates: auto (only when MachineSets exist in openshift-machine-api, as upstream), always or never',
    'auto',
  )
  .action(
    async (
      f: CommonFlags & {
        imagesJson?: string;
        releaseVersion?: string;
        releaseImage?: string;
        operatorImage?: string;
        clusterDnsIp: string;
        manageOperands: boolean;
        operandsDir?: string;
        mcsCertRotation: string;
      },
    ) => {
      const logger = cliLogger('machine-config-operator', f.v);
      await runUntilSignal(logger, () => {
        const releaseVersion = f.releaseVersion ?? process.env['RELEASE_VERSION'] ?? '';
        if (releaseVersion === '')
          throw new UsageError('the release version is unknown: set RELEASE_VERSION or pass --release-version');
        const releaseImage = f.releaseImage ?? process.env['RELEASE_IMAGE'];
        const operatorImage = f.operatorImage ?? process.env['OPERATOR_IMAGE'];
        if (!f.manageOperands && f.operandsDir !== undefined)
          throw new UsageError('--operands-dir: the operator does not deploy its operands (--manage-operands=false)');
        const modes: Record<string, boolean | undefined> = { auto: undefined, always: true, never: false };
        const rotation = modes[f.mcsCertRotation];
        if (!Object.hasOwn(modes, f.mcsCertRotation))
          throw new UsageError(
            `--mcs-cert-rotation: expected auto, always or never, got ${JSON.stringify(f.mcsCertRotation)}`,
          );
        return startMachineConfigOperator({
          ...processOptions(f, logger),
          releaseVersion,
          clusterDNSIP: f.clusterDnsIp,
          ...(releaseImage !== undefined ? { releaseImage } : {}),
          ...(operatorImage !== undefined ? { operatorImage } : {}),
          ...(rotation !== undefined ? { mcsCertRotation: rotation } : {}),
          ...(f.imagesJson !== undefined ? { images: readJsonStrings('images-json', f.imagesJson) } : {}),
          operands: f.manageOperands ? (f.operandsDir !== undefined ? { dir: f.operandsDir } : {}) : false,
        });
      });
    },
  );
await runCommandLine(program);
