/**
 * `keelson upgrade` — the `oc adm upgrade` counterpart against any cluster (`--kubeconfig` or KUBECONFIG):
 * the status block, update requests (`--to`, `--to-image`, `--to-latest`, ...), `upgrade channel` and the
 * `upgrade status` diagnosis. The logic lives in src/upgrade/; this file maps flags to it.
 */
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { parseDuration } from '../duration.js';
import { CliError } from '../errors.js';
import {
  clientFromKubeconfig,
  getClusterVersion,
  readOcStatus,
  readUpgradeStatus,
  requestRollback,
  requestUpgrade,
  setChannel,
} from '../upgrade/cluster.js';
import { ROLLBACK_GATE } from '../upgrade/rollback.js';
import { formatUpgradeOverview, upgradeOverview } from '../upgrade/overview.js';
import { UpgradeRequestError, type UpgradeRequestOptions } from '../upgrade/request.js';
import { AlertsFetchError, fetchAlerts } from '../upgrade/alerts-fetch.js';
import {
  recommend,
  RecommendUsageError,
  validateRecommendOptions,
  type AcceptableCondition,
  type RecommendOptions,
} from '../upgrade/recommend.js';
import { alertConditions, AlertsParseError } from '../upgrade/recommend-alerts.js';
import { DETAILS, formatOcStatus, type Details, type OcStatus } from '../upgrade/status-oc.js';
import type { UpgradeStatusSummary } from '../upgrade/status-summary.js';
import type { KubeClient } from '@keelson/kube';

type OutputFormat = 'text' | 'json' | 'yaml';

function outputFormat(v: string | undefined): OutputFormat {
  if (v === undefined || v === 'text') return 'text';
  if (v === 'json' || v === 'yaml') return v;
  throw new CliError(`-o/--output must be json or yaml, got "${v}"`, 2);
}

function printData(format: 'json' | 'yaml', data: unknown): void {
  process.stdout.write(format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : stringify(data));
}

function lines(stream: NodeJS.WriteStream, ls: readonly string[]): void {
  for (const l of ls) stream.write(`${l}\n`);
}

/** Maps the upgrade errors onto the CLI's exit codes (usage 2, refused 1). */
async function run(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof UpgradeRequestError) throw new CliError(e.message, e.usage ? 2 : 1);
    throw e;
  }
}

interface UpgradeFlags extends UpgradeRequestOptions {
  kubeconfig?: string;
  output?: string;
  includeNotRecommended?: boolean;
}

function requestOptions(o: UpgradeFlags): UpgradeRequestOptions {
  const r: UpgradeRequestOptions = {};
  if (o.to !== undefined) r.to = o.to;
  if (o.toImage !== undefined) r.toImage = o.toImage;
  for (const k of [
    'toLatest',
    'toMultiArch',
    'clear',
    'force',
    'allowExplicitUpgrade',
    'allowUpgradeWithWarnings',
    'allowNotRecommended',
  ] as const)
    if (o[k] === true) r[k] = true;
  return r;
}

async function upgradeAction(o: UpgradeFlags): Promise<void> {
  const format = outputFormat(o.output);
  const req = requestOptions(o);
  const writes =
    req.clear === true ||
    req.toMultiArch === true ||
    req.toLatest === true ||
    (req.to ?? '') !== '' ||
    (req.toImage ?? '') !== '';
  const client = await clientFromKubeconfig(o.kubeconfig);
  try {
    if (writes) {
      const r = await requestUpgrade(client, req);
      lines(process.stderr, r.err);
      if (format === 'text') lines(process.stdout, r.out);
      else
        printData(format, {
          messages: r.out,
          warnings: r.err,
          patch: r.patch ?? null,
          desiredUpdate: r.clusterVersion.spec.desiredUpdate ?? null,
        });
      return;
    }
    const cv = await getClusterVersion(client);
    const include = o.includeNotRecommended === true;
    if (format !== 'text') {
      printData(format, upgradeOverview(cv, include));
      return;
    }
    const rendered = formatUpgradeOverview(cv, include);
    process.stderr.write(rendered.err);
    process.stdout.write(rendered.out);
  } finally {
    await client.close();
  }
}

/** Registers `keelson upgrade`, `upgrade channel` and `upgrade status`. */
export function registerUpgradeCommands(program: Command): Command {
  const upgrade = program
    .command('upgrade')
    .description(
      'Check on or request a cluster update (the `oc adm upgrade` counterpart); without flags prints the update status and the recommended updates',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('-o, --output <format>', 'json or yaml instead of text (read-only use)')
    .option('--to <version>', 'the version to update to; must be one of the available updates')
    .option('--to-image <pullspec>', 'a release image to update to (by digest)')
    .option('--to-latest', 'update to the latest (highest SemVer) available version')
    .option('--to-multi-arch', 'migrate the current version to the multi-architecture payload')
    .option('--clear', 'cancel a requested update that has not started')
    .option('--force', 'set desiredUpdate.force: waive cluster-side guards (signature verification, preconditions)')
    .option('--allow-explicit-upgrade', 'update even if the target is not among the available updates')
    .option('--allow-upgrade-with-warnings', 'update despite client-side guards (update in progress, Failing, Invalid)')
    .option('--allow-not-recommended', 'allow a supported but not recommended (conditional) update')
    .option('--include-not-recommended', 'also list updates that are not recommended for this cluster')
    .action((o: UpgradeFlags) => run(() => upgradeAction(o)));

  upgrade
    .command('channel')
    .argument('[channel]', 'the channel to set; empty clears it', '')
    .description('Set or clear the update channel (`oc adm upgrade channel`)')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--allow-explicit-channel', 'set a channel that is not among the channels of the current release')
    .action((channel: string, o: { kubeconfig?: string; allowExplicitChannel?: boolean }) =>
      run(async () => {
        const client = await clientFromKubeconfig(o.kubeconfig);
        try {
          const r = await setChannel(client, channel, o.allowExplicitChannel === true);
          lines(process.stderr, r.err);
          lines(process.stdout, r.out);
        } finally {
          await client.close();
        }
      }),
    );

  upgrade
    .command('status')
    .description(
      'Display the status of the current update as `oc adm upgrade status`: control plane (completion, duration, estimated time remaining, operator health), control-plane and worker-pool node tables, update health',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .option('--details <what>', `show detailed output in selected section; one of: ${DETAILS.join(', ')}`, 'none')
    .option(
      '-o, --output <format>',
      'json or yaml: the assessment as data plus the per-operator diagnosis (with --watch: one JSON document per line)',
    )
    .option(
      '--watch <interval>',
      'print again every interval (e.g. 10s) until interrupted; the completion never goes backwards',
    )
    .action((o: { kubeconfig?: string; output?: string; watch?: string; details: string }) =>
      run(async () => {
        const format = outputFormat(o.output);
        if (!(DETAILS as readonly string[]).includes(o.details))
          throw new CliError(`invalid value for --details: ${o.details} (must be one of ${DETAILS.join(', ')})`, 2);
        const interval = o.watch === undefined ? undefined : parseDuration(o.watch, '--watch');
        const client = await clientFromKubeconfig(o.kubeconfig);
        try {
          await statusLoop(client, { format, details: o.details as Details }, interval);
        } finally {
          await client.close();
        }
      }),
    );
  registerRecommend(upgrade);
  registerRollback(upgrade);
  return upgrade;
}

/**
 * `keelson upgrade rollback`, registered as oc registers `oc adm upgrade rollback`: only when
 * `OC_ENABLE_CMD_UPGRADE_ROLLBACK=true`, and hidden from the help.
 */
function registerRollback(upgrade: Command): void {
  if (process.env[ROLLBACK_GATE] !== 'true') return;
  upgrade
    .command('rollback', { hidden: true })
    .description(
      'Rollback the cluster to the previous release: only a patch-level step back within the same major.minor, to the release the cluster was on before its current target, and not while an update is in progress',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .action((o: { kubeconfig?: string }) =>
      run(async () => {
        const client = await clientFromKubeconfig(o.kubeconfig);
        try {
          const r = await requestRollback(client);
          process.stdout.write(`${r.out}\n`);
        } finally {
          await client.close();
        }
      }),
    );
}

/** The alerts precheck: its conditions, or why it could not complete. */
async function precheck(client: KubeClient): Promise<{ conditions: AcceptableCondition[]; error?: string }> {
  try {
    return { conditions: alertConditions(await fetchAlerts(client)) };
  } catch (e) {
    if (e instanceof AlertsFetchError || e instanceof AlertsParseError) return { conditions: [], error: e.message };
    throw e;
  }
}

function registerRecommend(upgrade: Command): void {
  upgrade
    .command('recommend')
    .description(
      'Display cluster update recommendations (`oc adm upgrade recommend`): recent targets by minor with their known issues, or one target with --version',
    )
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: KUBECONFIG, ~/.kube/config or in-cluster)')
    .option(
      '--show-outdated-releases',
      'display additional older releases; they may be exposed to known issues fixed in more recent releases',
    )
    .option('--version <version>', 'select a particular target release to display by version')
    .option('--quiet', 'when --version is set, only print unaccepted issue names')
    .option(
      '--accept <names>',
      'comma-delimited names of issues you find acceptable; with --version, any unaccepted issue gives a non-zero exit',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), ...v.split(',').filter((x) => x !== '')],
    )
    .action(
      (o: {
        kubeconfig?: string;
        showOutdatedReleases?: boolean;
        version?: string;
        quiet?: boolean;
        accept?: string[];
      }) =>
        run(async () => {
          const opts: RecommendOptions = {};
          if (o.showOutdatedReleases === true) opts.showOutdatedReleases = true;
          if (o.version !== undefined) opts.version = o.version;
          if (o.quiet === true) opts.quiet = true;
          if (o.accept !== undefined) opts.accept = o.accept;
          try {
            validateRecommendOptions(opts);
          } catch (e) {
            if (e instanceof RecommendUsageError) throw new CliError(e.message, 2);
            throw e;
          }
          const client = await clientFromKubeconfig(o.kubeconfig);
          try {
            const cv = await getClusterVersion(client);
            const r = recommend(cv, opts, await precheck(client));
            for (const c of r.chunks) (c.stream === 'out' ? process.stdout : process.stderr).write(c.text);
            if (r.error !== undefined) throw new CliError(r.error, 1);
          } finally {
            await client.close();
          }
        }),
    );
}

/** One round of `upgrade status`: the text, or the data (oc's assessment plus Keelson's per-operator diagnosis). */
async function statusRound(
  client: KubeClient,
  opts: { format: OutputFormat; details: Details; watching: boolean },
  now: number,
  previous: { oc?: OcStatus; summary?: UpgradeStatusSummary },
): Promise<{ oc: OcStatus; summary?: UpgradeStatusSummary }> {
  const oc = await readOcStatus(client, now, previous.oc);
  if (opts.format === 'text') {
    const stamp = opts.watching ? `--- ${new Date(now).toISOString()}\n` : '';
    const notes = oc.notes.map((n) => `${n}\n`).join('');
    process.stdout.write(`${stamp}${notes}${formatOcStatus(oc, opts.details)}`);
    return { oc };
  }
  const summary = await readUpgradeStatus(client, now, previous.summary);
  const data = {
    ...summary,
    controlPlaneStatus: oc.controlPlane,
    controlPlaneNodes: oc.controlPlanePool ?? null,
    workerPools: oc.workerPools,
    updateHealth: oc.health.insights,
    updating: oc.updating,
    notes: oc.notes,
  };
  if (opts.watching && opts.format === 'json') process.stdout.write(`${JSON.stringify(data)}\n`);
  else printData(opts.format, data);
  return { oc, summary };
}

/** Prints the status once, or every `intervalMs` until SIGINT/SIGTERM (each round knows the previous one). */
async function statusLoop(
  client: KubeClient,
  opts: { format: OutputFormat; details: Details },
  intervalMs: number | undefined,
): Promise<void> {
  let stop = false;
  let wake: (() => void) | undefined;
  const onSignal = (): void => {
    stop = true;
    wake?.();
  };
  if (intervalMs !== undefined) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    let previous: { oc?: OcStatus; summary?: UpgradeStatusSummary } = {};
    for (;;) {
      previous = await statusRound(client, { ...opts, watching: intervalMs !== undefined }, Date.now(), previous);
      if (intervalMs === undefined || stop) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (stop) return;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
