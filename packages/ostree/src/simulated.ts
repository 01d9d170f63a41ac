import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, renameSync, existsSync, rmSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { OstreeError } from './errors.js';
import type { CommandResult, CommandRunner, RunOptions } from './runner.js';
import { parseOstreeImageReference } from './imageref.js';
import { parseKernelArguments } from './kargs.js';
import { applyKargsEdits, applyPackageCommand } from './host-ops.js';
import { KERNEL_PACKAGES, canonicalizeKernelType, packagesForExtensions } from './packages.js';
import type { JsonObject, JsonValue } from './status.js';
import type { OsConfigSpec } from './plan.js';

/** Persistent state of a {@link SimulatedRpmOstree}: deployments in the real `status --json` shape plus kargs. */
export interface SimulatedState {
  /** Deployment objects exactly as `status --json` prints them, boot order. */
  deployments: JsonObject[];
  /** Kernel arguments per deployment id. */
  kargs: Record<string, string[]>;
  /** Registered update driver, if any. */
  updateDriver: { 'driver-name': string; 'driver-sd-unit': string } | null;
}

/** Options to create a fresh simulated host. */
export interface SimulatedHostOptions {
  readonly osname?: string;
  /** Image the host booted (`ostree-unverified-registry:` reference is recorded). */
  readonly osImageURL?: string;
  readonly version?: string;
  readonly kargs?: readonly string[];
  /** Requested (layered) packages of the booted deployment. */
  readonly requestedPackages?: readonly string[];
  readonly requestedBaseRemovals?: readonly string[];
  /** Version string reported by `rpm-ostree --version` (default 2024.3). */
  readonly rpmOstreeVersion?: string;
  /** Features listed by `--version` (default includes `container`). */
  readonly features?: readonly string[];
  /** Persist state to this JSON file after every change (and load it if it exists). */
  readonly statePath?: string;
}

function sha(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

function ok(stdout = ''): CommandResult {
  return { exitCode: 0, signal: null, stdout, stderr: '', timedOut: false };
}
function failed(stderr: string, exitCode = 1): CommandResult {
  return { exitCode, signal: null, stdout: '', stderr: `error: ${stderr}\n`, timedOut: false };
}

const strs = (v: JsonValue | undefined): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/**
 * An in-memory (optionally on-disk) rpm-ostree host. It implements {@link CommandRunner} and answers the
 * `rpm-ostree` command lines the driver sends (status --json, --version, kargs, rebase, deploy, cleanup, override,
 * update, finalize-deployment) by changing deployments kept in the real JSON shape; {@link SimulatedRpmOstree.reboot}
 * models the reboot into the staged deployment. Used by the cluster simulator and `keelson rehearse`.
 */

/** A command the simulated rpm-ostree refuses: `run` turns it into a failed command with this message. */
function refuse(message: string): never {
  throw new OstreeError('SIMULATION', `simulated: ${message}`);
}

export class SimulatedRpmOstree implements CommandRunner {
  /** Current state (mutable; call {@link SimulatedRpmOstree.save} after editing by hand). */
  state: SimulatedState;
  /** Every command line received, for assertions. */
  readonly log: string[][] = [];
  readonly #statePath: string | undefined;
  readonly #version: string;
  readonly #features: readonly string[];
  #busy = 0;
  readonly #failures: { match: string; stderr: string; times: number }[] = [];
  #clock = 1_700_000_000;
  /** The last state write of a command, so that writes land in command order. */
  #writing: Promise<void> = Promise.resolve();

  constructor(options: SimulatedHostOptions = {}) {
    this.#statePath = options.statePath;
    this.#version = options.rpmOstreeVersion ?? '2024.3';
    this.#features = options.features ?? ['rust', 'compose', 'container', 'fedora-integration'];
    if (options.statePath !== undefined && existsSync(options.statePath)) {
      this.state = SimulatedRpmOstree.#load(options.statePath);
      return;
    }
    const osname = options.osname ?? 'rhcos';
    const image =
      options.osImageURL ?? 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + sha('initial').slice(0, 64);
    const base = sha(`image:${image}`);
    const reqPkgs = [...(options.requestedPackages ?? [])];
    const reqRem = [...(options.requestedBaseRemovals ?? [])];
    const layered = reqPkgs.length > 0 || reqRem.length > 0;
    const checksum = layered
      ? sha(`layer:${base}:${[...reqPkgs].sort().join(',')}:${[...reqRem].sort().join(',')}`)
      : base;
    const d: JsonObject = this.#newDeployment(osname, checksum, 0, {
      ...(layered ? { 'base-checksum': base } : {}),
      'container-image-reference': `ostree-unverified-registry:${image}`,
      'container-image-reference-digest': `sha256:${sha(`digest:${image}`)}`,
      version: options.version ?? '9.6.20250101-0',
      'requested-packages': reqPkgs,
      'requested-base-removals': reqRem,
      booted: true,
    });
    this.state = {
      deployments: [d],
      kargs: {
        [d['id'] as string]: [...(options.kargs ?? ['rw', 'root=LABEL=root', 'ostree=/ostree/boot.1/' + osname])],
      },
      updateDriver: null,
    };
    this.save();
  }

  /**
   * A simulated host booted exactly at a MachineConfig: its OS image, its kernel arguments (after `baseKargs`),
   * the packages of its extensions and, for a realtime/64k kernel, the kernel swap. Replaces an existing state file.
   */
  static atConfig(
    spec: OsConfigSpec,
    options: Omit<SimulatedHostOptions, 'osImageURL' | 'kargs' | 'requestedPackages' | 'requestedBaseRemovals'> & {
      baseKargs?: readonly string[];
    } = {},
  ): SimulatedRpmOstree {
    if (options.statePath !== undefined && existsSync(options.statePath)) rmSync(options.statePath);
    const kt = canonicalizeKernelType(spec.kernelType);
    const kernel = kt === 'default' ? [] : [...KERNEL_PACKAGES[kt]];
    const { baseKargs, ...rest } = options;
    return new SimulatedRpmOstree({
      ...rest,
      ...(spec.osImageURL ? { osImageURL: spec.osImageURL } : {}),
      kargs: [...(baseKargs ?? ['rw', 'root=LABEL=root']), ...parseKernelArguments(spec.kernelArguments)],
      requestedPackages: [...kernel, ...packagesForExtensions(spec.extensions)],
      requestedBaseRemovals: kt === 'default' ? [] : [...KERNEL_PACKAGES.default],
    });
  }

  static #load(path: string): SimulatedState {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new OstreeError(
        'SIMULATION',
        `${path}: cannot read simulated host state (${(e as Error).message}); delete it to start fresh`,
      );
    }
    const s = doc as Partial<SimulatedState>;
    if (
      typeof doc !== 'object' ||
      doc === null ||
      !Array.isArray(s.deployments) ||
      typeof s.kargs !== 'object' ||
      s.kargs === null
    ) {
      throw new OstreeError(
        'SIMULATION',
        `${path}: not a simulated host state (needs "deployments" and "kargs"); delete it to start fresh`,
      );
    }
    return { deployments: s.deployments, kargs: s.kargs, updateDriver: s.updateDriver ?? null };
  }

  /** Writes the state file (atomic rename) when a `statePath` was given. */
  save(): void {
    if (this.#statePath === undefined) return;
    const tmp = `${this.#statePath}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 2) + '\n');
    renameSync(tmp, this.#statePath);
  }

  /**
   * Writes the state file after a command without blocking the event loop (a rehearsal runs thousands of these
   * simulators on one loop): the snapshot is taken now, writes land in command order, and the command returns only
   * once its state is on disk (a process killed after a command finds that command's state).
   */
  async #persist(): Promise<void> {
    const path = this.#statePath;
    if (path === undefined) return;
    const text = JSON.stringify(this.state, null, 2) + '\n';
    const write = this.#writing.then(async () => {
      const tmp = `${path}.tmp-${process.pid}`;
      await writeFile(tmp, text);
      await rename(tmp, path);
    });
    this.#writing = write.catch(() => undefined);
    await write;
  }

  /** The next `n` mutating commands fail with a "Transaction in progress" error (another client holds the daemon). */
  holdTransaction(n: number): void {
    this.#busy = n;
  }
  /** The next `times` commands whose line contains `match` fail with `stderr`. */
  failNext(match: string, stderr: string, times = 1): void {
    this.#failures.push({ match, stderr, times });
  }

  #newDeployment(osname: string, checksum: string, serial: number, extra: JsonObject): JsonObject {
    this.#clock += 60;
    return {
      id: `${osname}-${checksum}.${serial}`,
      osname,
      serial,
      checksum,
      timestamp: this.#clock,
      booted: false,
      staged: false,
      pinned: false,
      unlocked: 'none',
      'regenerate-initramfs': false,
      packages: [],
      'requested-packages': [],
      'requested-local-packages': [],
      'requested-base-removals': [],
      'base-removals': [],
      'requested-base-local-replacements': [],
      'base-local-replacements': [],
      ...extra,
    };
  }

  /** Returns the status document (`rpm-ostree status --json` shape). */
  statusJson(): JsonObject {
    const out: JsonObject = {
      deployments: structuredClone(this.state.deployments),
      transaction: null,
      'cached-update': null,
    };
    if (this.state.updateDriver) out['update-driver'] = { ...this.state.updateDriver };
    return out;
  }

  #booted(): JsonObject {
    const b = this.state.deployments.find((d) => d['booted'] === true);
    if (!b) throw new OstreeError('SIMULATION', 'simulated host has no booted deployment');
    return b;
  }

  /** Base for a new change: the pending deployment if any (rpm-ostree stacks changes), else the booted one. */
  #mergeBase(): JsonObject {
    const first = this.state.deployments[0];
    return first && first['booted'] !== true && first['staged'] === true ? first : this.#booted();
  }

  /** Creates (or replaces) the staged deployment derived from the merge base with `change` applied. */
  #stage(change: (d: JsonObject) => void, kargsChange?: (k: string[]) => string[], lock = false): void {
    const base = this.#mergeBase();
    const next = structuredClone(base);
    change(next);
    const baseKargs = this.state.kargs[base['id'] as string] ?? [];
    const kargs = kargsChange ? kargsChange([...baseKargs]) : [...baseKargs];
    const layered = strs(next['requested-packages']).length > 0 || strs(next['requested-base-removals']).length > 0;
    const baseChecksum =
      (next['base-checksum'] as string | undefined) ??
      (base['base-checksum'] as string | undefined) ??
      (base['checksum'] as string);
    const imageBase =
      typeof next['container-image-reference'] === 'string'
        ? sha(`image:${parseOstreeImageReference(next['container-image-reference']).imgref.name}`)
        : baseChecksum;
    const pkgs = [...strs(next['requested-packages'])].sort().join(',');
    const rem = [...strs(next['requested-base-removals'])].sort().join(',');
    const checksum = layered ? sha(`layer:${imageBase}:${pkgs}:${rem}`) : imageBase;
    const osname = next['osname'] as string;
    this.state.deployments = this.state.deployments.filter((d) => d['staged'] !== true);
    const serial = this.state.deployments.filter((d) => d['checksum'] === checksum).length;
    const fresh = this.#newDeployment(osname, checksum, serial, {});
    for (const [k, v] of Object.entries(next))
      if (
        ![
          'id',
          'serial',
          'checksum',
          'timestamp',
          'booted',
          'staged',
          'pinned',
          'base-checksum',
          'finalization-locked',
        ].includes(k)
      )
        fresh[k] = v;
    if (layered) fresh['base-checksum'] = imageBase;
    fresh['staged'] = true;
    if (lock) fresh['finalization-locked'] = true;
    this.state.deployments.unshift(fresh);
    this.state.kargs[fresh['id'] as string] = kargs;
    this.#gcKargs();
  }

  #gcKargs(): void {
    const ids = new Set(this.state.deployments.map((d) => d['id'] as string));
    this.state.kargs = Object.fromEntries(Object.entries(this.state.kargs).filter(([id]) => ids.has(id)));
  }

  /**
   * Reboots: a staged, unlocked deployment becomes booted and the old booted one the rollback (older unpinned
   * ones are dropped, like ostree); a finalization-locked staged deployment is discarded. Returns the booted id.
   */
  reboot(): string {
    const staged = this.state.deployments.find((d) => d['staged'] === true);
    const booted = this.#booted();
    if (staged && staged['finalization-locked'] !== true) {
      const rest = this.state.deployments.filter((d) => d !== staged && d !== booted && d['pinned'] === true);
      staged['staged'] = false;
      delete staged['finalization-locked'];
      staged['booted'] = true;
      booted['booted'] = false;
      this.state.deployments = [staged, booted, ...rest];
    } else {
      this.state.deployments = this.state.deployments.filter((d) => d !== staged);
    }
    this.#gcKargs();
    this.save();
    return this.#booted()['id'] as string;
  }

  /** Kernel arguments of the booted deployment. */
  bootedKargs(): string[] {
    return [...(this.state.kargs[this.#booted()['id'] as string] ?? [])];
  }

  async run(command: string, args: readonly string[], _options?: RunOptions): Promise<CommandResult> {
    await Promise.resolve();
    this.log.push([command, ...args]);
    const line = args.join(' ');
    const f = this.#failures.find((x) => x.times > 0 && line.includes(x.match));
    if (f) {
      f.times--;
      return failed(f.stderr);
    }
    const sub = args[0] ?? '';
    const readOnly = sub === 'status' || sub === '--version' || (sub === 'kargs' && args.length === 1);
    if (!readOnly && this.#busy > 0) {
      this.#busy--;
      return failed(
        'Transaction in progress: deploy (simulated other client)\n You can cancel the current transaction with `rpm-ostree cancel`',
      );
    }
    try {
      const r = this.#dispatch(args);
      if (!readOnly) await this.#persist();
      return r;
    } catch (e) {
      if (e instanceof OstreeError && e.code === 'SIMULATION') return failed(e.message.replace(/^simulated: /, ''));
      throw e;
    }
  }

  #dispatch(args: readonly string[]): CommandResult {
    const [sub, ...rest] = args;
    switch (sub) {
      case '--version':
        return ok(
          `rpm-ostree:\n Version: '${this.#version}'\n Git: simulated\n Features:\n${this.#features.map((f) => `  - ${f}\n`).join('')}`,
        );
      case 'status':
        return this.#status(rest);
      case 'kargs':
        return this.#kargs(rest);
      case 'rebase':
        return this.#rebase(rest);
      case 'cleanup':
        return this.#cleanup(rest);
      case 'override':
      case 'update': {
        this.#stage((d) => {
          const next = applyPackageCommand(args, {
            requestedPackages: strs(d['requested-packages']),
            requestedBaseRemovals: strs(d['requested-base-removals']),
          });
          d['requested-packages'] = [...next.requestedPackages];
          d['requested-base-removals'] = [...next.requestedBaseRemovals];
        });
        return ok();
      }
      case 'deploy':
        return this.#deploy(rest);
      case 'finalize-deployment':
        return this.#finalizeDeployment(rest);
      default:
        return refuse(`unknown command ${JSON.stringify(sub)} (simulated rpm-ostree)`);
    }
  }

  #status(rest: readonly string[]): CommandResult {
    if (rest.includes('--json')) return ok(JSON.stringify(this.statusJson(), null, 2) + '\n');
    return ok(
      this.state.deployments
        .map(
          (d) =>
            `${d['booted'] === true ? '●' : ' '} ${(d['container-image-reference'] as string | undefined) ?? (d['origin'] as string | undefined) ?? ''}\n    Version: ${(d['version'] as string | undefined) ?? ''}${d['staged'] === true ? ' (staged)' : ''}\n`,
        )
        .join('\n'),
    );
  }

  #rebase(rest: readonly string[]): CommandResult {
    const flags = rest.filter((a) => a.startsWith('--'));
    const pos = rest.filter(
      (a, i) =>
        !a.startsWith('--') &&
        !(rest[i - 1] === '--custom-origin-url' || rest[i - 1] === '--custom-origin-description'),
    );
    const ref = pos[0] ?? refuse('rebase: missing reference');
    let image: string;
    try {
      const parsed = parseOstreeImageReference(ref);
      image = parsed.imgref.name;
    } catch (e) {
      return refuse(`rebase: ${(e as Error).message}`);
    }
    if (!flags.includes('--experimental') && !flags.includes('--lock-finalization'))
      refuse('rebase: container image references need --experimental');
    this.#stage(
      (d) => {
        d['container-image-reference'] = ref;
        d['container-image-reference-digest'] = pos[1]?.startsWith('sha256:')
          ? pos[1]
          : `sha256:${sha(`digest:${image}`)}`;
        delete d['origin'];
        d['version'] = `sim-${sha(image).slice(0, 8)}`;
        delete d['base-checksum'];
      },
      undefined,
      flags.includes('--lock-finalization'),
    );
    return ok(`Staging deployment...done\nRun "systemctl reboot" to start a reboot\n`);
  }

  #cleanup(rest: readonly string[]): CommandResult {
    if (rest.length === 0) refuse('cleanup: at least one of -p -r -b -m is required');
    const booted = this.#booted();
    const bi = this.state.deployments.indexOf(booted);
    if (rest.includes('-p'))
      this.state.deployments = this.state.deployments.filter((d, i) => !(i < bi && d['pinned'] !== true));
    if (rest.includes('-r')) {
      const nb = this.state.deployments.indexOf(booted);
      this.state.deployments = this.state.deployments.filter((d, i) => !(i > nb && d['pinned'] !== true));
    }
    this.#gcKargs();
    return ok();
  }

  #deploy(rest: readonly string[]): CommandResult {
    const reg = rest.find((a) => a.startsWith('--register-driver='));
    if (reg) {
      const name = reg.slice('--register-driver='.length);
      this.state.updateDriver = { 'driver-name': name, 'driver-sd-unit': `${name.toLowerCase()}.service` };
    }
    const rev = rest.find((a) => !a.startsWith('--'));
    if (rev !== undefined && rev !== '') {
      this.#stage(
        (d) => {
          if (rev.startsWith('sha256:')) d['container-image-reference-digest'] = rev;
          else d['version'] = rev.replace(/^revision=/, '');
        },
        undefined,
        rest.includes('--lock-finalization'),
      );
    }
    return ok();
  }

  #finalizeDeployment(rest: readonly string[]): CommandResult {
    const staged =
      this.state.deployments.find((d) => d['staged'] === true) ?? refuse('finalize-deployment: no staged deployment');
    const want = rest.filter((a) => !a.startsWith('--'))[0];
    if (
      !rest.includes('--allow-missing-checksum') &&
      want !== staged['checksum'] &&
      want !== staged['container-image-reference-digest']
    ) {
      refuse(
        `finalize-deployment: expected staged checksum ${JSON.stringify(staged['checksum'])}, got ${JSON.stringify(want ?? null)}`,
      );
    }
    delete staged['finalization-locked'];
    this.reboot();
    return ok();
  }

  #kargs(rest: readonly string[]): CommandResult {
    const mergeId = this.#mergeBase()['id'] as string;
    const current = this.state.kargs[mergeId] ?? [];
    if (rest.length === 0) return ok(current.join(' ') + '\n');
    const { next, changed } = applyKargsEdits(current, rest);
    if (!changed) return rest.includes('--unchanged-exit-77') ? { ...ok(), exitCode: 77 } : ok();
    this.#stage(
      () => undefined,
      () => next,
    );
    return ok();
  }
}
