import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import {
  OstreeError,
  OstreeSysroot,
  RpmOstree,
  RpmOstreeError,
  SimulatedRpmOstree,
  SysrootRpmOstree,
  applyOsChanges,
  applyOsChangesOnHost,
  formatPlan,
  osConfigSpecFrom,
  osImageUrlOf,
  parseKernelArguments,
  parseRpmOstreeStatus,
  statusToJson,
  type OsConfigSpec,
  type OsPlanOptions,
  type RpmOstreeStatus,
} from '@keelson/ostree';
import {
  addOutputOption,
  CliError,
  formatTable,
  outputFormat,
  printResult,
  usageError,
  type OutputFlags,
} from '../output.js';

interface BackendOptions {
  sysroot?: string;
  osname?: string;
  simulate?: string;
  binary?: string;
}

function isSysrootHost(dir: string): boolean {
  return existsSync(join(dir, 'keelson-host.json'));
}

function driverFor(o: BackendOptions): {
  driver: RpmOstree;
  reboot?: () => Promise<string> | string;
  host?: SysrootRpmOstree;
} {
  if (o.simulate !== undefined && o.sysroot !== undefined)
    throw usageError('give either --simulate or --sysroot, not both');
  if (o.simulate !== undefined) {
    const sim = new SimulatedRpmOstree({ statePath: o.simulate });
    return { driver: new RpmOstree({ runner: sim, clientId: 'keelson' }), reboot: () => sim.reboot() };
  }
  if (o.sysroot !== undefined) {
    if (!isSysrootHost(o.sysroot)) {
      throw new CliError(
        `${o.sysroot}: not a keelson node sysroot (no keelson-host.json); create one with "keelson os sim-init --sysroot ${o.sysroot} --config <mc.yaml>"`,
      );
    }
    const host = SysrootRpmOstree.open(o.sysroot, o.osname);
    return { driver: new RpmOstree({ runner: host, clientId: 'keelson' }), reboot: () => host.reboot(), host };
  }
  return { driver: new RpmOstree({ binary: o.binary ?? 'rpm-ostree', clientId: 'keelson' }) };
}

function notAnRpmOstreeHost(err: unknown): never {
  if (err instanceof RpmOstreeError && err.code === 'RPMOSTREE_NOT_FOUND') {
    throw new CliError(
      'rpm-ostree is not available on this machine (not an rpm-ostree host). ' +
        'Use --sysroot <dir> to read an ostree sysroot, or --simulate <state.json> for a simulated host.',
    );
  }
  throw err instanceof OstreeError ? new CliError(err.message) : err;
}

async function loadStatus(o: BackendOptions): Promise<RpmOstreeStatus> {
  if (o.sysroot !== undefined && !isSysrootHost(o.sysroot)) {
    const sys = new OstreeSysroot({ path: o.sysroot, ...(o.osname ? { osname: o.osname } : {}) });
    if (!sys.exists())
      throw new CliError(
        `${o.sysroot}: not an ostree sysroot (no ostree/repo/config); create one with "ostree admin init-fs"`,
      );
    try {
      return parseRpmOstreeStatus(await sys.toStatusJson(), o.sysroot);
    } catch (e) {
      return notAnRpmOstreeHost(e);
    }
  }
  try {
    const { driver, host } = driverFor(o);
    if (host) await recoverHost(host);
    return await driver.status();
  } catch (e) {
    return notAnRpmOstreeHost(e);
  }
}

/** Recovery of a sysroot node after a crash (an interrupted apply, a superseded staged deployment), said on stderr. */
async function recoverHost(host: SysrootRpmOstree): Promise<void> {
  for (const line of await host.recover()) process.stderr.write(`recovered: ${line}\n`);
}

/**
 * Runs an apply on a sysroot node as one unit: a crash in the middle leaves a staged deployment that the next
 * command discards, and a failure discards it at once, so a reboot only ever boots a complete apply.
 */
async function asOneApply<T>(host: SysrootRpmOstree | undefined, run: () => Promise<T>): Promise<T> {
  if (!host) return run();
  await recoverHost(host);
  host.beginApply();
  let result: T;
  try {
    result = await run();
  } catch (e) {
    for (const line of await host.abortApply()) process.stderr.write(`apply failed: ${line}\n`);
    throw e;
  }
  host.finishApply();
  return result;
}

function renderStatus(s: RpmOstreeStatus): string {
  const lines: string[] = [];
  if (s.updateDriver)
    lines.push(`AutomaticUpdatesDriver: ${s.updateDriver.driverName} (${s.updateDriver.driverSdUnit})`);
  if (s.transaction) lines.push(`Transaction: ${s.transaction.join(' ')}`);
  lines.push('Deployments:');
  for (const d of s.deployments) {
    const mark = d.booted ? '●' : ' ';
    const tags = [
      d.staged ? 'staged' : '',
      d.pending && !d.staged ? 'pending' : '',
      d.rollback ? 'rollback' : '',
      d.finalizationLocked ? 'finalization locked' : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`${mark} ${d.containerImageReference ?? d.origin ?? d.checksum}${tags ? ` (${tags})` : ''}`);
    const row = (k: string, v: string | undefined): void => {
      if (v !== undefined && v !== '') lines.push(`    ${k.padStart(20)}: ${v}`);
    };
    if (d.containerImageReference !== undefined) row('Image', osImageUrlOf(d));
    row('Digest', d.containerImageReferenceDigest);
    row('Version', d.version);
    row('BaseCommit', d.baseChecksum);
    row('Commit', d.checksum);
    row('OS', d.osname);
    if (d.pinned) row('Pinned', 'yes');
    row('RemovedBasePackages', d.requestedBaseRemovals.join(' '));
    row('LayeredPackages', d.requestedPackages.join(' '));
  }
  return lines.join('\n') + '\n';
}

/** `os status -o wide`: one row per deployment with every identifying column. */
function renderStatusWide(s: RpmOstreeStatus): string {
  const rows = s.deployments.map((d) => [
    d.booted ? '*' : '',
    d.staged ? 'staged' : d.pending ? 'pending' : d.rollback ? 'rollback' : d.booted ? 'booted' : '',
    d.osname,
    d.version ?? '',
    d.checksum,
    (d.containerImageReference !== undefined ? osImageUrlOf(d) : d.origin) ?? '',
  ]);
  return `${formatTable([['BOOTED', 'STATE', 'OS', 'VERSION', 'COMMIT', 'IMAGE'], ...rows])}\n`;
}

function readMachineConfig(path: string, flag: string): OsConfigSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw usageError(
      `${flag} ${path}: cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new CliError(`${path}: not valid YAML/JSON: ${(e as Error).message}`);
  }
  assertMachineConfig(value, path);
  try {
    return osConfigSpecFrom(value, path);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

/** The fields of a MachineConfig's spec (openshift/api machineconfiguration/v1 MachineConfigSpec). */
const MC_SPEC_FIELDS = new Set([
  'osImageURL',
  'baseOSExtensionsContainerImage',
  'config',
  'kernelArguments',
  'extensions',
  'fips',
  'kernelType',
]);

/**
 * Only a MachineConfig is planned: a Butane file, an Ignition config or anything else would plan "no OS changes" and
 * hide the mistake. Says what the file is and how to get a MachineConfig from it.
 */
function assertMachineConfig(value: unknown, path: string): void {
  const o =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  if (o === undefined)
    throw new CliError(
      `${path}: not a MachineConfig: expected a YAML/JSON object with kind: MachineConfig, got ${Array.isArray(value) ? 'a list' : value === null ? 'nothing' : typeof value}`,
    );
  if (typeof o['variant'] === 'string' && typeof o['version'] === 'string' && o['kind'] === undefined) {
    throw new CliError(
      `${path}: a Butane config (variant ${o['variant']}, version ${o['version']}), not a MachineConfig: translate it first with "keelson butane ${path} > mc.yaml" (variant openshift gives a MachineConfig), then plan that`,
    );
  }
  const ign = o['ignition'];
  if (typeof ign === 'object' && ign !== null && o['kind'] === undefined) {
    throw new CliError(
      `${path}: an Ignition config, not a MachineConfig: a MachineConfig carries it in spec.config (write it as a Butane config with variant openshift and "keelson butane" it, or wrap it yourself)`,
    );
  }
  if (o['kind'] !== 'MachineConfig') {
    const got = o['kind'] === undefined ? 'has no kind' : `kind is ${JSON.stringify(o['kind'])}`;
    throw new CliError(
      `${path}: not a MachineConfig: ${got}; give a MachineConfig (apiVersion machineconfiguration.openshift.io/v1, kind MachineConfig), e.g. oc get mc rendered-worker-… -o yaml`,
    );
  }
  if (o['apiVersion'] !== undefined && o['apiVersion'] !== 'machineconfiguration.openshift.io/v1')
    throw new CliError(
      `${path}: apiVersion is ${JSON.stringify(o['apiVersion'])}, expected machineconfiguration.openshift.io/v1`,
    );
  const spec = o['spec'];
  if (typeof spec === 'object' && spec !== null && !Array.isArray(spec)) {
    const unknown = Object.keys(spec).filter((k) => !MC_SPEC_FIELDS.has(k));
    if (unknown.length > 0)
      throw new CliError(
        `${path}: spec.${unknown[0] ?? ''}: unknown field of a MachineConfig spec (known: ${[...MC_SPEC_FIELDS].join(', ')})`,
      );
  }
}

interface PlanCliOptions {
  from: string;
  to: string;
  json?: boolean;
  arch?: string;
  el?: boolean;
  bootedImage?: string;
  localImage?: string;
}

function planOptions(o: PlanCliOptions): OsPlanOptions {
  return {
    ...(o.arch !== undefined ? { arch: o.arch } : {}),
    ...(o.el === false ? { isEL: false } : {}),
    ...(o.localImage !== undefined ? { localImageRepoDigest: o.localImage } : {}),
  };
}

/** Registers `keelson os status|plan|apply|reboot`. */
export function registerOsCommands(program: Command): void {
  const os = program
    .command('os')
    .description('rpm-ostree / ostree: OS deployments, and the OS commands a MachineConfig update runs');

  registerOsStatus(os);
  registerOsPlan(os);
  registerOsApply(os);
  registerOsSimInit(os);
  registerOsReboot(os);
}

/** `keelson os status`: the OS deployments (rpm-ostree status). */
function registerOsStatus(os: Command): void {
  const status = os
    .command('status')
    .description(
      'show OS deployments (rpm-ostree status); --sysroot reads an ostree sysroot, --simulate a simulated host',
    )
    .option('--sysroot <dir>', 'read deployments of an ostree sysroot directory (Debian ostree) instead of rpm-ostree')
    .option('--osname <name>', 'stateroot of --sysroot (default fedora-coreos)')
    .option('--simulate <state.json>', 'use a simulated rpm-ostree host kept in this file (created when missing)')
    .option('--binary <path>', 'rpm-ostree binary to run', 'rpm-ostree');
  // -o json is the rpm-ostree status --json document
  addOutputOption(status, { formats: ['table', 'wide', 'json', 'yaml'], aliases: ['json'] }).action(
    async (o: BackendOptions & OutputFlags) => {
      const format = outputFormat(o, status);
      const s = await loadStatus(o);
      await printResult(format, {
        data: () => statusToJson(s),
        table: () => renderStatus(s),
        wide: () => renderStatusWide(s),
      });
    },
  );
}

/** `keelson os plan`: the rpm-ostree commands between two MachineConfigs. */
function registerOsPlan(os: Command): void {
  const planCmd = os
    .command('plan')
    .description('print the exact rpm-ostree commands a node runs to move from one MachineConfig to another')
    .requiredOption('--from <mc.yaml>', 'current (old) MachineConfig, YAML or JSON')
    .requiredOption('--to <mc.yaml>', 'target (new) MachineConfig, YAML or JSON')
    .option('--arch <goarch>', 'node architecture (amd64, arm64); 64k-pages needs arm64')
    .option('--no-el', 'node is not RHEL-family (FCOS): no kernel type or extensions steps')
    .option('--local-image <repoDigest>', 'rebase from local container storage with this repo digest');
  // -o json|yaml: the plan as data (steps, rollback, diff, notes, commands)
  addOutputOption(planCmd, { formats: ['table', 'wide', 'json', 'yaml'], aliases: ['json'] }).action(
    async (o: PlanCliOptions & OutputFlags) => {
      const format = outputFormat(o, planCmd);
      const from = readMachineConfig(o.from, '--from');
      const to = readMachineConfig(o.to, '--to');
      let plan;
      try {
        plan = applyOsChanges(from, to, planOptions(o));
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      const found = plan;
      const text = (): string => {
        const lines = [...found.notes.map((n) => `# ${n}`), ...formatPlan(found)];
        if (found.rollback.length > 0)
          lines.push(`# on failure: ${formatPlan({ ...found, steps: found.rollback }).join('; ')}`);
        return lines.map((l) => `${l}\n`).join('');
      };
      await printResult(format, {
        data: () => ({
          diff: found.diff,
          steps: found.steps,
          rollback: found.rollback,
          notes: found.notes,
          commands: formatPlan(found),
        }),
        table: text,
      });
    },
  );
}

/** `keelson os apply`: the OS update plan run on this host or a simulated one. */
function registerOsApply(os: Command): void {
  os.command('apply')
    .description('run the OS update plan on this host (or a --simulate host); --dry-run only prints it')
    .requiredOption('--from <mc.yaml>', 'current (old) MachineConfig')
    .requiredOption('--to <mc.yaml>', 'target (new) MachineConfig')
    .option('--simulate <state.json>', 'apply to a simulated rpm-ostree host kept in this file')
    .option('--sysroot <dir>', 'apply to a node sysroot created by sim-init --sysroot (real ostree)')
    .option('--binary <path>', 'rpm-ostree binary to run', 'rpm-ostree')
    .option('--dry-run', 'plan against the live booted deployment, run nothing')
    .option('--arch <goarch>', 'node architecture (amd64, arm64)')
    .option('--no-el', 'node is not RHEL-family (FCOS)')
    .action(async (o: PlanCliOptions & BackendOptions & { dryRun?: boolean }) => {
      const from = readMachineConfig(o.from, '--from');
      const to = readMachineConfig(o.to, '--to');
      const { driver, host } = driverFor(o);
      try {
        const { plan, execution } = await asOneApply(o.dryRun ? undefined : host, () =>
          applyOsChangesOnHost(driver, from, to, { ...planOptions(o), ...(o.dryRun ? { dryRun: true } : {}) }),
        );
        for (const n of plan.notes) process.stdout.write(`# ${n}\n`);
        const lines = formatPlan(plan);
        for (const line of lines)
          process.stdout.write(`${execution.dryRun || line.startsWith('#') ? '' : 'ran: '}${line}\n`);
        if (!execution.dryRun && lines.length > 0) process.stdout.write('staged; reboot to finish the update\n');
      } catch (e) {
        notAnRpmOstreeHost(e);
      }
    });
}

/** `keelson os sim-init`: a simulated node booted at a MachineConfig. */
function registerOsSimInit(os: Command): void {
  os.command('sim-init')
    .description(
      'create (or reset) a simulated node booted exactly at a MachineConfig: --simulate (JSON state) or --sysroot (real ostree)',
    )
    .requiredOption('--config <mc.yaml>', 'MachineConfig the host runs')
    .option('--simulate <state.json>', 'simulated rpm-ostree host state file to write')
    .option('--sysroot <dir>', 'create a real ostree sysroot node here (needs Debian ostree)')
    .option('--osname <name>', 'stateroot name', 'rhcos')
    .action(async (o: { simulate?: string; sysroot?: string; config: string; osname: string }) => {
      const spec = readMachineConfig(o.config, '--config');
      if ((o.simulate === undefined) === (o.sysroot === undefined))
        throw usageError('give exactly one of --simulate <state.json> or --sysroot <dir>');
      try {
        if (o.simulate !== undefined) {
          SimulatedRpmOstree.atConfig(spec, { statePath: o.simulate, osname: o.osname });
          process.stdout.write(`simulated host written to ${o.simulate}\n`);
          return;
        }
        const dir = o.sysroot as string;
        if (!spec.osImageURL) throw new CliError(`${o.config}: spec.osImageURL is required to create a node`);
        if (existsSync(dir)) throw new CliError(`${dir} already exists; choose a new directory`);
        const host = await SysrootRpmOstree.create({
          path: dir,
          osname: o.osname,
          osImageURL: spec.osImageURL,
          kargs: ['rw', 'root=LABEL=root', ...parseKernelArguments(spec.kernelArguments)],
        });
        const driver = new RpmOstree({ runner: host, clientId: 'keelson' });
        const { plan } = await asOneApply(host, () =>
          applyOsChangesOnHost(
            driver,
            { osImageURL: spec.osImageURL, kernelArguments: spec.kernelArguments ?? null },
            spec,
          ),
        );
        if (plan.steps.length > 0) await host.reboot();
        process.stdout.write(`ostree node created in ${dir}\n`);
      } catch (e) {
        if (e instanceof CliError) throw e;
        notAnRpmOstreeHost(e);
      }
    });
}

/** `keelson os reboot`: the staged deployment of a simulated node booted. */
function registerOsReboot(os: Command): void {
  os.command('reboot')
    .description('reboot a --simulate or --sysroot node: the staged deployment becomes booted')
    .option('--simulate <state.json>', 'simulated host state file')
    .option('--sysroot <dir>', 'node sysroot created by sim-init --sysroot')
    .action(async (o: BackendOptions) => {
      if (o.simulate === undefined && o.sysroot === undefined)
        throw usageError('give --simulate <state.json> or --sysroot <dir>');
      const { reboot } = driverFor(o);
      if (!reboot) throw new CliError('this backend cannot be rebooted by keelson');
      try {
        process.stdout.write(`booted ${await reboot()}\n`);
      } catch (e) {
        notAnRpmOstreeHost(e);
      }
    });
}
