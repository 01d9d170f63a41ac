import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  booted: string;
  meta: Record<string, DeploymentMeta>;
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
const failed = (stderr: string, exitCode = 1): CommandResult => ({ exitCode, signal: null, stdout: '', stderr: `error: ${stderr}\n`, timedOut: false });
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

  private constructor(sysroot: OstreeSysroot, state: HostState) {
    this.sysroot = sysroot;
    this.#statePath = join(sysroot.path, 'keelson-host.json');
    this.#state = state;
  }

  /** Creates the sysroot, commits and deploys the first image, marks it booted. */
  static async create(o: SysrootHostOptions): Promise<SysrootRpmOstree> {
    const sysroot = await new OstreeSysroot({ path: o.path, ...(o.osname ? { osname: o.osname } : {}) }).init();
    const host = new SysrootRpmOstree(sysroot, { osname: sysroot.osname, booted: '', meta: {} });
    const checksum = await host.#commitImage(o.osImageURL);
    const d = await sysroot.deploy(checksum, { kargsExact: o.kargs ?? ['rw', 'root=LABEL=root'] });
    host.#state.booted = keyOf(d);
    host.#state.meta[keyOf(d)] = { containerImageReference: `ostree-unverified-registry:${o.osImageURL}`, baseChecksum: checksum, requestedPackages: [], requestedBaseRemovals: [] };
    host.#save();
    return host;
  }

  /** Opens a sysroot created by {@link SysrootRpmOstree.create}. */
  static open(path: string, osname?: string): SysrootRpmOstree {
    const statePath = join(path, 'keelson-host.json');
    if (!existsSync(statePath)) throw new OstreeError('SYSROOT', `${path}: no keelson-host.json; create the host with SysrootRpmOstree.create`);
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as HostState;
    const name = osname ?? state.osname;
    return new SysrootRpmOstree(new OstreeSysroot({ path, ...(name ? { osname: name } : {}) }), state);
  }

  #save(): void {
    const tmp = `${this.#statePath}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#state, null, 2));
    renameSync(tmp, this.#statePath);
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
      writeFileSync(join(dir, 'usr/share/keelson/layered-packages'), `install: ${[...pkgs].sort().join(' ')}\nremove: ${[...removals].sort().join(' ')}\n`);
      const branch = `keelson/layer/${sha(`${base}:${[...pkgs].sort().join(',')}:${[...removals].sort().join(',')}`).slice(0, 16)}`;
      const version = (await this.sysroot.commitVersion(base)) ?? 'layered';
      await this.sysroot.ostree(['--repo=' + this.sysroot.repo, 'commit', '-b', branch, `--tree=ref=${base}`, `--tree=dir=${dir}`, `--add-metadata-string=version=${version}`, '-s', 'layered packages']);
      return await this.sysroot.revParse(branch);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async #list(): Promise<{ list: SysrootDeployment[]; booted: SysrootDeployment; staged: SysrootDeployment | undefined }> {
    const list = await this.sysroot.deployments();
    const booted = list.find((d) => keyOf(d) === this.#state.booted);
    if (!booted) throw new OstreeError('SYSROOT', `booted deployment ${this.#state.booted} is gone from ${this.sysroot.path}`);
    const first = list[0];
    const staged = first && first !== booted && list.indexOf(booted) > 0 ? first : undefined;
    return { list, booted, staged };
  }

  #dropMeta(key: string): void {
    this.#state.meta = Object.fromEntries(Object.entries(this.#state.meta).filter(([k]) => k !== key));
  }

  #meta(d: SysrootDeployment): DeploymentMeta {
    const m = this.#state.meta[keyOf(d)];
    if (!m) throw new OstreeError('SYSROOT', `no rpm-ostree metadata for deployment ${keyOf(d)}`);
    return m;
  }

  /** Deploys a new pending deployment from the merge deployment with changes, replacing an existing one. */
  async #stage(change: { image?: string; kargs?: string[]; packages?: { requestedPackages: readonly string[]; requestedBaseRemovals: readonly string[] } }): Promise<void> {
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
    const d = await this.sysroot.deploy(checksum, { retain: true, kargsExact: change.kargs ?? [...merge.kargs] });
    this.#state.meta[keyOf(d)] = { containerImageReference: ref, baseChecksum, requestedPackages: [...pkgs.requestedPackages], requestedBaseRemovals: [...pkgs.requestedBaseRemovals] };
    if (staged) {
      const idx = (await this.sysroot.deployments()).findIndex((x) => keyOf(x) === keyOf(staged));
      if (idx >= 0) await this.sysroot.undeploy(idx);
      this.#dropMeta(keyOf(staged));
    }
    this.#save();
  }

  /** Boots the pending deployment: it becomes booted, the old one the rollback, older unpinned ones are removed. */
  async reboot(): Promise<string> {
    const { list, booted, staged } = await this.#list();
    const next = staged ?? booted;
    this.#state.booted = keyOf(next);
    const keep = new Set([keyOf(next), keyOf(booted)]);
    for (let i = list.length - 1; i >= 0; i--) {
      const d = list[i] as SysrootDeployment;
      if (!keep.has(keyOf(d)) && !d.pinned) {
        await this.sysroot.undeploy(i);
        this.#dropMeta(keyOf(d));
      }
    }
    this.#save();
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
          if (staged) {
            await this.sysroot.undeploy(0);
            this.#dropMeta(keyOf(staged));
          }
        }
        if (rest.includes('-r')) {
          const { list, booted } = await this.#list();
          const i = list.indexOf(booted) + 1;
          const rb = list[i];
          if (rb && !rb.pinned) {
            await this.sysroot.undeploy(i);
            this.#dropMeta(keyOf(rb));
          }
        }
        this.#save();
        return ok();
      }
      default:
        return failed(`${JSON.stringify(sub)} is not supported by the ostree-sysroot backend`);
    }
  }
}
