import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import {
  OstreeError,
  OstreeSysroot,
  RpmOstree,
  RpmOstreeError,
  SimulatedRpmOstree,
  applyOsChanges,
  applyOsChangesOnHost,
  formatPlan,
  osConfigSpecFrom,
  osImageUrlOf,
  parseRpmOstreeStatus,
  statusToJson,
  type OsConfigSpec,
  type OsPlanOptions,
  type RpmOstreeStatus,
} from '@keelson/ostree';
import { CliError } from '../errors.js';

interface BackendOptions {
  sysroot?: string;
  osname?: string;
  simulate?: string;
  binary?: string;
}

function driverFor(o: BackendOptions): { driver: RpmOstree; sim?: SimulatedRpmOstree } {
  if (o.simulate !== undefined) {
    const sim = new SimulatedRpmOstree({ statePath: o.simulate });
    return { driver: new RpmOstree({ runner: sim, clientId: 'keelson' }), sim };
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
  if (o.sysroot !== undefined) {
    const sys = new OstreeSysroot({ path: o.sysroot, ...(o.osname ? { osname: o.osname } : {}) });
    if (!sys.exists()) throw new CliError(`${o.sysroot}: not an ostree sysroot (no ostree/repo/config); create one with "ostree admin init-fs"`);
    try {
      return parseRpmOstreeStatus(await sys.toStatusJson(), o.sysroot);
    } catch (e) {
      return notAnRpmOstreeHost(e);
    }
  }
  try {
    return await driverFor(o).driver.status();
  } catch (e) {
    return notAnRpmOstreeHost(e);
  }
}

function renderStatus(s: RpmOstreeStatus): string {
  const lines: string[] = [];
  if (s.updateDriver) lines.push(`AutomaticUpdatesDriver: ${s.updateDriver.driverName} (${s.updateDriver.driverSdUnit})`);
  if (s.transaction) lines.push(`Transaction: ${s.transaction.join(' ')}`);
  lines.push('Deployments:');
  for (const d of s.deployments) {
    const mark = d.booted ? '●' : ' ';
    const tags = [d.staged ? 'staged' : '', d.pending && !d.staged ? 'pending' : '', d.rollback ? 'rollback' : '', d.finalizationLocked ? 'finalization locked' : '']
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

function readMachineConfig(path: string, flag: string): OsConfigSpec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError(`${flag} ${path}: cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 2);
  }
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new CliError(`${path}: not valid YAML/JSON: ${(e as Error).message}`);
  }
  try {
    return osConfigSpecFrom(value, path);
  } catch (e) {
    throw new CliError((e as Error).message);
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
  const os = program.command('os').description('rpm-ostree / ostree: OS deployments, and the OS commands a MachineConfig update runs');

  os.command('status')
    .description('show OS deployments (rpm-ostree status); --sysroot reads an ostree sysroot, --simulate a simulated host')
    .option('--json', 'print the rpm-ostree status --json document')
    .option('--sysroot <dir>', 'read deployments of an ostree sysroot directory (Debian ostree) instead of rpm-ostree')
    .option('--osname <name>', 'stateroot of --sysroot (default fedora-coreos)')
    .option('--simulate <state.json>', 'use a simulated rpm-ostree host kept in this file (created when missing)')
    .option('--binary <path>', 'rpm-ostree binary to run', 'rpm-ostree')
    .action(async (o: BackendOptions & { json?: boolean }) => {
      const s = await loadStatus(o);
      process.stdout.write(o.json ? JSON.stringify(statusToJson(s), null, 2) + '\n' : renderStatus(s));
    });

  os.command('plan')
    .description('print the exact rpm-ostree commands a node runs to move from one MachineConfig to another')
    .requiredOption('--from <mc.yaml>', 'current (old) MachineConfig, YAML or JSON')
    .requiredOption('--to <mc.yaml>', 'target (new) MachineConfig, YAML or JSON')
    .option('--json', 'print the plan as JSON (steps, rollback, diff, notes)')
    .option('--arch <goarch>', 'node architecture (amd64, arm64); 64k-pages needs arm64')
    .option('--no-el', 'node is not RHEL-family (FCOS): no kernel type or extensions steps')
    .option('--local-image <repoDigest>', 'rebase from local container storage with this repo digest')
    .action((o: PlanCliOptions) => {
      const from = readMachineConfig(o.from, '--from');
      const to = readMachineConfig(o.to, '--to');
      let plan;
      try {
        plan = applyOsChanges(from, to, planOptions(o));
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      if (o.json) {
        process.stdout.write(JSON.stringify({ diff: plan.diff, steps: plan.steps, rollback: plan.rollback, notes: plan.notes, commands: formatPlan(plan) }, null, 2) + '\n');
        return;
      }
      for (const n of plan.notes) process.stdout.write(`# ${n}\n`);
      for (const line of formatPlan(plan)) process.stdout.write(`${line}\n`);
      if (plan.rollback.length > 0) process.stdout.write(`# on failure: ${formatPlan({ ...plan, steps: plan.rollback }).join('; ')}\n`);
    });

  os.command('apply')
    .description('run the OS update plan on this host (or a --simulate host); --dry-run only prints it')
    .requiredOption('--from <mc.yaml>', 'current (old) MachineConfig')
    .requiredOption('--to <mc.yaml>', 'target (new) MachineConfig')
    .option('--simulate <state.json>', 'apply to a simulated rpm-ostree host kept in this file')
    .option('--binary <path>', 'rpm-ostree binary to run', 'rpm-ostree')
    .option('--dry-run', 'plan against the live booted deployment, run nothing')
    .option('--arch <goarch>', 'node architecture (amd64, arm64)')
    .option('--no-el', 'node is not RHEL-family (FCOS)')
    .action(async (o: PlanCliOptions & BackendOptions & { dryRun?: boolean }) => {
      const from = readMachineConfig(o.from, '--from');
      const to = readMachineConfig(o.to, '--to');
      const { driver } = driverFor(o);
      try {
        const { plan, execution } = await applyOsChangesOnHost(driver, from, to, { ...planOptions(o), ...(o.dryRun ? { dryRun: true } : {}) });
        for (const n of plan.notes) process.stdout.write(`# ${n}\n`);
        const lines = formatPlan(plan);
        for (const line of lines) process.stdout.write(`${execution.dryRun || line.startsWith('#') ? '' : 'ran: '}${line}\n`);
        if (!execution.dryRun && lines.length > 0) process.stdout.write('staged; reboot to finish the update\n');
      } catch (e) {
        notAnRpmOstreeHost(e);
      }
    });

  os.command('sim-init')
    .description('create (or reset) a simulated rpm-ostree host booted exactly at a MachineConfig')
    .requiredOption('--simulate <state.json>', 'simulated host state file to write')
    .requiredOption('--config <mc.yaml>', 'MachineConfig the host runs')
    .option('--osname <name>', 'stateroot name', 'rhcos')
    .action((o: { simulate: string; config: string; osname: string }) => {
      const spec = readMachineConfig(o.config, '--config');
      try {
        SimulatedRpmOstree.atConfig(spec, { statePath: o.simulate, osname: o.osname });
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      process.stdout.write(`simulated host written to ${o.simulate}\n`);
    });

  os.command('reboot')
    .description('simulated reboot of a --simulate host: the staged deployment becomes booted')
    .requiredOption('--simulate <state.json>', 'simulated host state file')
    .action((o: { simulate: string }) => {
      const sim = new SimulatedRpmOstree({ statePath: o.simulate });
      process.stdout.write(`booted ${sim.reboot()}\n`);
    });
}
