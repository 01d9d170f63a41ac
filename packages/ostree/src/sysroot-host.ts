import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { OstreeError } from './errors.js';
import { parseOstreeImageReference } from './imageref.js';
import { applyKargsEdits, applyPackageCommand } from './host-ops.js';
import type { CommandResult, CommandRunner, RunOptions } from './runner.js';
import type { JsonObject } from './status.js';
import { OstreeSysroot, type SysrootDeployment } from './sysroot.js';

/** rpm-ostree facts a plain ostree sysroot cannot hold, kept per deployment (`<checksum>.<serial>`). */
interface DeploymentMeta {
  containerImageReference: string;
  baseChecksum: string;
  requestedPackages: string[];
  requestedBaseRemovals: string[];
}
interface HostState {
  osname?: string;
  /** `<checksum>.<serial>` of the booted deployment: the only fact ostree cannot hold for a sysroot that never boots. */
  booted: string;
  /** Metadata of sysroots written before it moved into the deployments' origin files (read only). */
  meta?: Record<string, DeploymentMeta>;
  /**
   * Set while `os apply` runs a multi-command plan: a staged deployment found with this set belongs to an apply that
   * did not finish (the process was killed), so it is incomplete and is discarded, never booted.
   */
  applying?: boolean;
}

/** Writes a file atomically and durably: temp file, fsync, rename, fsync of the directory. */
function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dfd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/**
 * The deployment's rpm-ostree facts as an origin keyfile, rpm-ostree's own keys (`container-image-reference`,
 * `[packages] requested`, `[overrides] remove`) plus the base commit. `ostree admin deploy --origin-file` writes it
 * with the deployment, so the metadata exists exactly when the deployment does.
 */
function originKeyfile(m: DeploymentMeta): string {
  const list = (xs: readonly string[]): string => xs.map((x) => `${x};`).join('');
  return [
    '[origin]',
    `container-image-reference=${m.containerImageReference}`,
    '',
    '[packages]',
    `requested=${list(m.requestedPackages)}`,
    '',
    '[overrides]',
    `remove=${list(m.requestedBaseRemovals)}`,
    '',
    '[keelson]',
    `base-checksum=${m.baseChecksum}`,
    '',
  ].join('\n');
}

/** Reads {@link originKeyfile}; undefined when the origin does not hold it (a deployment made by another tool). */
function parseOrigin(text: string): DeploymentMeta | undefined {
  const groups = new Map<string, Map<string, string>>();
  let cur: Map<string, string> | undefined;
  for (const line of text.split('\n')) {
    const g = /^\[(.+)\]\s*$/.exec(line);
    if (g) {
      cur = new Map();
      groups.set(g[1] as string, cur);
      continue;
    }
    const kv = /^([^=#]+)=(.*)$/.exec(line);
    if (kv && cur) cur.set((kv[1] as string).trim(), kv[2] as string);
  }
  const ref = groups.get('origin')?.get('container-image-reference');
  const base = groups.get('keelson')?.get('base-checksum');
  if (ref === undefined || base === undefined) return undefined;
  const list = (v: string | undefined): string[] => (v ?? '').split(';').filter((x) => x !== '');
  return {
    containerImageReference: ref,
    baseChecksum: base,
    requestedPackages: list(groups.get('packages')?.get('requested')),
    requestedBaseRemovals: list(groups.get('overrides')?.get('remove')),
  };
}

/** Options of {@link SysrootRpmOstree.create}. */
export interface SysrootHostOptions {
  /** Sysroot directory (created). */
  readonly path: string;
  readonly osname?: string;
  /** OS image the node boots first. */
  readonly osImageURL: string;
  /** Kernel arguments of the first deployment. */
  readonly kargs?: readonly string[];
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const ok = (stdout = ''): CommandResult => ({ exitCode: 0, signal: null, stdout, stderr: '', timedOut: false });
const failed = (stderr: string, exitCode = 1): CommandResult => ({
  exitCode,
  signal: null,
  stdout: '',
  stderr: `error: ${stderr}\n`,
  timedOut: false,
});
const keyOf = (d: SysrootDeployment): string => `${d.checksum}.${d.serial}`;

/**
 * An rpm-ostree host backed by a REAL ostree sysroot (Debian `ostree`): every OS image becomes a real commit, every
 * rebase / kargs / package change a real deployment (with its BLS entry, origin and 3-way /etc merge), `cleanup`
 * real undeploys. Implements {@link CommandRunner}, so the {@link RpmOstree} driver and the plan run against it
 * unchanged; {@link SysrootRpmOstree.reboot} moves the "booted" pointer (a temp sysroot cannot really boot).
 * Layered packages are recorded as a file in a derived commit (`/usr/share/keelson/layered-packages`), not installed.
 */
export class SysrootRpmOstree implements CommandRunner {
  readonly sysroot: OstreeSysroot;
  /** Every command line received. */
  readonly log: string[][] = [];
  readonly #statePath: string;
  #state: HostState;
  /** This process is running an apply (its own staged deployment must not be discarded as a leftover). */
  #inApply = false;

  private constructor(sysroot: OstreeSysroot, state: HostState) {
    this.sysroot = sysroot;
    this.#statePath = join(sysroot.path, 'keelson-host.json');
    this.#state = state;
  }

  /** Creates the sysroot, commits and deploys the first image, marks it booted. */
  static async create(o: SysrootHostOptions): Promise<SysrootRpmOstree> {
    const sysroot = await new OstreeSysroot({ path: o.path, ...(o.osname ? { osname: o.osname } : {}) }).init();
    const host = new SysrootRpmOstree(sysroot, { osname: sysroot.osname, booted: '' });
    const checksum = await host.#commitImage(o.osImageURL);
    const meta = {
      containerImageReference: `ostree-unverified-registry:${o.osImageURL}`,
      baseChecksum: checksum,
      requestedPackages: [],
      requestedBaseRemovals: [],
    };
    const d = await host.#deployWithMeta(checksum, meta, { kargsExact: o.kargs ?? ['rw', 'root=LABEL=root'] });
    host.#state.booted = keyOf(d);
    host.#save();
    return host;
  }

  /** Opens a sysroot created by {@link SysrootRpmOstree.create}. */
  static open(path: string, osname?: string): SysrootRpmOstree {
    const statePath = join(path, 'keelson-host.json');
    if (!existsSync(statePath))
      throw new OstreeError('SYSROOT', `${path}: no keelson-host.json; create the host with SysrootRpmOstree.create`);
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as HostState;
    const name = osname ?? state.osname;
    return new SysrootRpmOstree(new OstreeSysroot({ path, ...(name ? { osname: name } : {}) }), state);
  }

  #save(): void {
    writeFileAtomic(this.#statePath, JSON.stringify(this.#state, null, 2));
  }

  /** `ostree admin deploy` with the rpm-ostree facts in the new deployment's origin (written by ostree with it). */
  async #deployWithMeta(
    checksum: string,
    meta: DeploymentMeta,
    o: { kargsExact: readonly string[]; retain?: boolean },
  ): Promise<SysrootDeployment> {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-origin-'));
    try {
      const originFile = join(dir, 'origin');
      writeFileSync(originFile, originKeyfile(meta));
      return await this.sysroot.deploy(checksum, {
        kargsExact: o.kargsExact,
        originFile,
        ...(o.retain ? { retain: true } : {}),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * Starts a multi-command apply (`keelson os apply`): until {@link finishApply}, a staged deployment belongs to an
   * unfinished apply. If the process dies in between, the next command of any process discards it
   * ({@link recover}), so a reboot never boots a half-applied deployment.
   */
  beginApply(): void {
    this.#inApply = true;
    this.#state.applying = true;
    this.#save();
  }

  /** An apply failed (without a crash): its staged deployment is discarded now; returns what {@link recover} did. */
  async abortApply(): Promise<string[]> {
    this.#inApply = false;
    return this.recover();
  }

  /** Marks the apply complete: its staged deployment may now be booted. */
  finishApply(): void {
    this.#inApply = false;
    delete this.#state.applying;
    this.#save();
  }

  /**
   * Brings the sysroot back to a consistent state after a crash (run by every command; cheap when nothing is wrong):
   * - an apply that did not finish: its staged deployment is incomplete and is undeployed (the node stays on the
   *   booted deployment, the "old" state), then unreferenced deployment directories are cleaned up;
   * - a command killed between deploying a new staged deployment and removing the one it replaced: only the newest
   *   pending deployment (each is complete: `ostree admin deploy` swaps the boot entries atomically) is kept.
   * Returns what was done, one line each.
   */
  async recover(): Promise<string[]> {
    return (await this.#recover()).done;
  }

  /** {@link recover}, also returning the deployment list afterwards (read once when nothing had to be done). */
  async #recover(): Promise<{ done: string[]; list: SysrootDeployment[] }> {
    const done: string[] = [];
    // an ostree command of a killed apply may still be running (SIGKILL does not reach the children): let it finish
    if (!this.#inApply) await this.sysroot.waitForLock();
    const list = await this.sysroot.deployments();
    if (this.#inApply) return { done, list };
    const bootedAt = list.findIndex((d) => keyOf(d) === this.#state.booted);
    if (bootedAt < 0)
      throw new OstreeError(
        'SYSROOT',
        `booted deployment ${this.#state.booted} is gone from ${this.sysroot.path}; the sysroot was changed by another tool`,
      );
    const discardAll = this.#state.applying === true;
    // pending deployments sit before the booted one; undeploy from the highest index so indexes stay valid
    for (let i = bootedAt - 1; i >= (discardAll ? 0 : 1); i--) {
      const d = list[i] as SysrootDeployment;
      await this.sysroot.undeploy(i);
      done.push(
        `discarded ${discardAll ? 'the incomplete staged deployment of an interrupted apply' : 'a superseded staged deployment'} ${keyOf(d)}`,
      );
    }
    if (discardAll) {
      delete this.#state.applying;
      this.#save();
      await this.sysroot.cleanup();
    }
    return { done, list: done.length > 0 ? await this.sysroot.deployments() : list };
  }

  /** Builds a small bootable tree for an image and commits it (idempotent per image). */
  async #commitImage(image: string): Promise<string> {
    const tag = sha(image).slice(0, 16);
    const branch = `keelson/image/${tag}`;
    try {
      return await this.sysroot.revParse(branch);
    } catch {
      /* not committed yet */
    }
    const dir = mkdtempSync(join(tmpdir(), 'keelson-image-'));
    try {
      mkdirSync(join(dir, 'usr/lib/modules/6.5.0-1'), { recursive: true });
      mkdirSync(join(dir, 'usr/etc'), { recursive: true });
      writeFileSync(join(dir, 'usr/lib/modules/6.5.0-1/vmlinuz'), `kernel for ${image}\n`);
      writeFileSync(join(dir, 'usr/lib/modules/6.5.0-1/initramfs.img'), `initramfs for ${image}\n`);
      writeFileSync(join(dir, 'usr/lib/os-release'), `NAME="Keelson Node OS"\nID=keelson\nVERSION_ID=${tag}\n`);
      writeFileSync(join(dir, 'usr/etc/keelson-image'), `${image}\n`);
      return await this.sysroot.commit(dir, { branch, version: `image-${tag}`, subject: image });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** A derived commit recording layered packages / removals (as a file), on top of `base`. */
  async #commitLayer(base: string, pkgs: readonly string[], removals: readonly string[]): Promise<string> {
    if (pkgs.length === 0 && removals.length === 0) return base;
    const dir = mkdtempSync(join(tmpdir(), 'keelson-layer-'));
    try {
      mkdirSync(join(dir, 'usr/share/keelson'), { recursive: true });
      writeFileSync(
        join(dir, 'usr/share/keelson/layered-packages'),
        `install: ${[...pkgs].sort().join(' ')}\nremove: ${[...removals].sort().join(' ')}\n`,
      );
      const branch = `keelson/layer/${sha(`${base}:${[...pkgs].sort().join(',')}:${[...removals].sort().join(',')}`).slice(0, 16)}`;
      const version = (await this.sysroot.commitVersion(base)) ?? 'layered';
      await this.sysroot.ostree([
        '--repo=' + this.sysroot.repo,
        'commit',
        '-b',
        branch,
        `--tree=ref=${base}`,
        `--tree=dir=${dir}`,
        `--add-metadata-string=version=${version}`,
        '-s',
        'layered packages',
      ]);
      return await this.sysroot.revParse(branch);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async #list(): Promise<{
    list: SysrootDeployment[];
    booted: SysrootDeployment;
    staged: SysrootDeployment | undefined;
  }> {
    const { list } = await this.#recover();
    const booted = list.find((d) => keyOf(d) === this.#state.booted);
    if (!booted)
      throw new OstreeError('SYSROOT', `booted deployment ${this.#state.booted} is gone from ${this.sysroot.path}`);
    const first = list[0];
    const staged = first && first !== booted && list.indexOf(booted) > 0 ? first : undefined;
    return { list, booted, staged };
  }

  #meta(d: SysrootDeployment): DeploymentMeta {
    const m = parseOrigin(d.originText) ?? this.#state.meta?.[keyOf(d)];
    if (!m)
      throw new OstreeError(
        'SYSROOT',
        `deployment ${keyOf(d)} has no rpm-ostree origin (container-image-reference); it was not deployed by keelson`,
      );
    return m;
  }

  /** Deploys a new pending deployment from the merge deployment with changes, replacing an existing one. */
  async #stage(change: {
    image?: string;
    kargs?: string[];
    packages?: { requestedPackages: readonly string[]; requestedBaseRemovals: readonly string[] };
  }): Promise<void> {
    const { booted, staged } = await this.#list();
    const merge = staged ?? booted;
    const meta = this.#meta(merge);
    let baseChecksum = meta.baseChecksum;
    let ref = meta.containerImageReference;
    if (change.image !== undefined) {
      ref = change.image;
      baseChecksum = await this.#commitImage(parseOstreeImageReference(ref).imgref.name);
    }
    const pkgs = change.packages ?? meta;
    const checksum = await this.#commitLayer(baseChecksum, pkgs.requestedPackages, pkgs.requestedBaseRemovals);
    const next = {
      containerImageReference: ref,
      baseChecksum,
      requestedPackages: [...pkgs.requestedPackages],
      requestedBaseRemovals: [...pkgs.requestedBaseRemovals],
    };
    // the new deployment carries its metadata from the moment it exists; the one it replaces goes afterwards
    await this.#deployWithMeta(checksum, next, { retain: true, kargsExact: change.kargs ?? [...merge.kargs] });
    if (staged) {
      const idx = (await this.sysroot.deployments()).findIndex((x) => keyOf(x) === keyOf(staged));
      if (idx >= 0) await this.sysroot.undeploy(idx);
    }
  }

  /** Boots the pending deployment: it becomes booted, the old one the rollback, older unpinned ones are removed. */
  async reboot(): Promise<string> {
    if (this.#inApply)
      throw new OstreeError('SYSROOT', 'an apply is running in this process; finish it before rebooting');
    const { list, booted, staged } = await this.#list();
    const next = staged ?? booted;
    // the commit point: the booted pointer moves atomically; older deployments are removed afterwards
    this.#state.booted = keyOf(next);
    this.#save();
    const keep = new Set([keyOf(next), keyOf(booted)]);
    for (let i = list.length - 1; i >= 0; i--) {
      const d = list[i] as SysrootDeployment;
      if (!keep.has(keyOf(d)) && !d.pinned) await this.sysroot.undeploy(i);
    }
    return keyOf(next);
  }

  /** The `status --json` document. */
  async statusJson(): Promise<JsonObject> {
    const { list, booted, staged } = await this.#list();
    return {
      deployments: list.map((d) => {
        const m = this.#meta(d);
        const layered = m.requestedPackages.length > 0 || m.requestedBaseRemovals.length > 0;
        const image = parseOstreeImageReference(m.containerImageReference).imgref.name;
        const o: JsonObject = {
          id: `${d.osname}-${d.checksum}.${d.serial}`,
          osname: d.osname,
          serial: d.serial,
          checksum: d.checksum,
          ...(layered ? { 'base-checksum': m.baseChecksum } : {}),
          version: d.version ?? '',
          booted: d === booted,
          staged: d === staged,
          pinned: d.pinned,
          unlocked: 'none',
          'container-image-reference': m.containerImageReference,
          'container-image-reference-digest': `sha256:${sha(`digest:${image}`)}`,
          packages: [],
          'requested-packages': [...m.requestedPackages],
          'requested-local-packages': [],
          'requested-base-removals': [...m.requestedBaseRemovals],
          'base-removals': [],
          'requested-base-local-replacements': [],
          'base-local-replacements': [],
        };
        return o;
      }),
      transaction: null,
      'cached-update': null,
    };
  }

  async run(command: string, args: readonly string[], _options?: RunOptions): Promise<CommandResult> {
    this.log.push([command, ...args]);
    try {
      return await this.#dispatch(args);
    } catch (e) {
      if (e instanceof OstreeError) return failed(e.message);
      throw e;
    }
  }

  async #dispatch(args: readonly string[]): Promise<CommandResult> {
    const [sub, ...rest] = args;
    switch (sub) {
      case '--version':
        return ok("rpm-ostree:\n Version: '2024.3'\n Git: keelson-sysroot\n Features:\n  - rust\n  - container\n");
      case 'status':
        return ok(JSON.stringify(await this.statusJson(), null, 2) + '\n');
      case 'kargs': {
        const { booted, staged } = await this.#list();
        const current = [...(staged ?? booted).kargs];
        if (rest.length === 0) return ok(current.join(' ') + '\n');
        const { next, changed } = applyKargsEdits(current, rest);
        if (!changed) return rest.includes('--unchanged-exit-77') ? { ...ok(), exitCode: 77 } : ok();
        await this.#stage({ kargs: next });
        return ok();
      }
      case 'rebase': {
        const ref = rest.find((a) => !a.startsWith('--'));
        if (ref === undefined) return failed('rebase: missing reference');
        parseOstreeImageReference(ref);
        await this.#stage({ image: ref });
        return ok();
      }
      case 'override':
      case 'update': {
        const { booted, staged } = await this.#list();
        await this.#stage({ packages: applyPackageCommand(args, this.#meta(staged ?? booted)) });
        return ok();
      }
      case 'cleanup': {
        if (rest.length === 0) return failed('cleanup: at least one of -p -r -b -m is required');
        if (rest.includes('-p')) {
          const { staged } = await this.#list();
          if (staged) await this.sysroot.undeploy(0);
        }
        if (rest.includes('-r')) {
          const { list, booted } = await this.#list();
          const i = list.indexOf(booted) + 1;
          const rb = list[i];
          if (rb && !rb.pinned) await this.sysroot.undeploy(i);
        }
        return ok();
      }
      default:
        return failed(`${JSON.stringify(sub)} is not supported by the ostree-sysroot backend`);
    }
  }
}
