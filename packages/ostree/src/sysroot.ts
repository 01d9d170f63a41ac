import { mkdirSync, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OstreeError, RpmOstreeError } from './errors.js';
import { ChildProcessRunner, type CommandRunner } from './runner.js';
import { parseKernelCommandLine } from './kargs.js';
import type { JsonObject } from './status.js';

/** One deployment of an ostree sysroot as listed by `ostree admin status` plus its BLS entry and origin. */
export interface SysrootDeployment {
  /** Position in boot order (0 = default). */
  readonly index: number;
  readonly osname: string;
  readonly checksum: string;
  readonly serial: number;
  readonly version: string | undefined;
  readonly pinned: boolean;
  readonly booted: boolean;
  readonly staged: boolean;
  /** `origin refspec:` value (or undefined for custom origins). */
  readonly refspec: string | undefined;
  /** Kernel arguments from the BLS entry, without the `ostree=` argument. */
  readonly kargs: readonly string[];
  /** Deployment root directory. */
  readonly path: string;
  /** Raw `.origin` keyfile text. */
  readonly originText: string;
}

/** Options of {@link OstreeSysroot}. */
export interface OstreeSysrootOptions {
  /** Sysroot directory. */
  readonly path: string;
  /** OS name (stateroot), default `fedora-coreos`. */
  readonly osname?: string;
  readonly runner?: CommandRunner;
  /** `ostree` binary (default `ostree`). */
  readonly binary?: string;
  /**
   * Set `OSTREE_SYSROOT_DEBUG=mutable-deployments` so deployment roots stay deletable (default true; keep it for
   * temp dirs, turn it off only on a real host).
   */
  readonly mutableDeployments?: boolean;
  /** Per-command timeout in ms (default 120000). */
  readonly timeoutMs?: number;
}

/** Options of {@link OstreeSysroot.deploy}. */
export interface SysrootDeployOptions {
  /** `--karg=` each: sets an argument, overriding a same-name argument of the merge deployment. */
  readonly kargs?: readonly string[];
  /** Exact kernel argument list: `--karg-none` then `--karg-append=` each (order and duplicates kept). */
  readonly kargsExact?: readonly string[];
  /** `--karg-delete=` each: removes the argument when present. */
  readonly kargsDelete?: readonly string[];
  /** `--karg-append=` each: keeps the merge deployment's arguments and appends. */
  readonly kargsAppend?: readonly string[];
  /** `--retain`: keep all older deployments. */
  readonly retain?: boolean;
  /** `--origin-file=` a keyfile for a custom origin. */
  readonly originFile?: string;
}

/** Result of {@link OstreeSysroot.configDiff}: paths relative to /etc. */
export interface EtcDiff {
  readonly modified: readonly string[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * A real ostree sysroot driven through Debian's `ostree` CLI: commit a directory as an OS version, deploy with
 * kernel arguments, list/pin/undeploy deployments, check the 3-way /etc merge, clean up. Never touches the host's
 * boot: everything lives under `path`.
 */
export class OstreeSysroot {
  readonly path: string;
  readonly osname: string;
  readonly runner: CommandRunner;
  readonly binary: string;
  readonly #env: Record<string, string>;
  readonly #timeoutMs: number;

  constructor(options: OstreeSysrootOptions) {
    this.path = options.path;
    this.osname = options.osname ?? 'fedora-coreos';
    if (!/^[A-Za-z0-9_.-]+$/.test(this.osname))
      throw new OstreeError(
        'INVALID_ARGUMENT',
        `osname ${JSON.stringify(this.osname)}: use letters, digits, "_", "." and "-"`,
      );
    this.runner = options.runner ?? new ChildProcessRunner();
    this.binary = options.binary ?? 'ostree';
    this.#env = options.mutableDeployments === false ? {} : { OSTREE_SYSROOT_DEBUG: 'mutable-deployments' };
    this.#timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** The repository inside the sysroot. */
  get repo(): string {
    return join(this.path, 'ostree', 'repo');
  }

  /** Runs `ostree <args>`; throws {@link RpmOstreeError} (`OSTREE_COMMAND_FAILED`) on failure. */
  async ostree(args: readonly string[]): Promise<string> {
    let r;
    try {
      r = await this.runner.run(this.binary, args, { env: this.#env, timeoutMs: this.#timeoutMs });
    } catch (e) {
      if (e instanceof RpmOstreeError && e.code === 'RPMOSTREE_NOT_FOUND') {
        throw new OstreeError(
          'OSTREE_NOT_FOUND',
          `${this.binary} not found; install it (Debian: apt-get install -y ostree)`,
          { cause: e },
        );
      }
      throw e;
    }
    if (r.exitCode !== 0) {
      throw new RpmOstreeError(
        r.timedOut ? 'RPMOSTREE_TIMEOUT' : 'OSTREE_COMMAND_FAILED',
        [this.binary, ...args],
        r.exitCode,
        r.stderr,
      );
    }
    return r.stdout;
  }

  /** Creates the sysroot (`admin init-fs --modern`, `admin os-init`); the directory may exist. */
  async init(): Promise<this> {
    mkdirSync(this.path, { recursive: true });
    await this.ostree(['admin', 'init-fs', '--modern', this.path]);
    await this.ostree(['admin', `--sysroot=${this.path}`, 'os-init', this.osname]);
    return this;
  }

  /**
   * Waits until no ostree process holds the sysroot lock (`ostree/lock`, the file `ostree_sysroot_lock` flocks), e.g.
   * an `ostree admin deploy` left running by a process that was SIGKILLed: what it writes must land before the
   * deployments are read and judged. Takes and drops the lock at once (`flock LOCKFILE true`, util-linux).
   */
  async waitForLock(): Promise<void> {
    const lock = join(this.path, 'ostree', 'lock');
    if (!existsSync(join(this.path, 'ostree'))) return;
    const r = await this.runner.run('flock', [lock, 'true'], { timeoutMs: this.#timeoutMs });
    if (r.exitCode !== 0)
      throw new RpmOstreeError(
        r.timedOut ? 'RPMOSTREE_TIMEOUT' : 'OSTREE_COMMAND_FAILED',
        ['flock', lock, 'true'],
        r.exitCode,
        r.stderr,
      );
  }

  /** True when the sysroot has been initialised. */
  exists(): boolean {
    return existsSync(join(this.repo, 'config'));
  }

  /**
   * Commits `treeDir` (a bootable tree: usr/lib/modules/<kver>/vmlinuz, usr/etc, …) to `branch` with a `version`
   * metadata string; resolves with the commit checksum.
   */
  async commit(treeDir: string, o: { branch: string; version?: string; subject?: string }): Promise<string> {
    const args = ['--repo=' + this.repo, 'commit', '-b', o.branch, `--tree=dir=${treeDir}`];
    if (o.version !== undefined) args.push(`--add-metadata-string=version=${o.version}`);
    args.push('-s', o.subject ?? (o.version !== undefined ? `version ${o.version}` : 'commit'));
    const out = (await this.ostree(args)).trim();
    if (!/^[0-9a-f]{64}$/.test(out))
      throw new OstreeError('SYSROOT', `ostree commit printed ${JSON.stringify(out)} instead of a checksum`);
    return out;
  }

  /** `ostree rev-parse <ref>`. */
  async revParse(ref: string): Promise<string> {
    return (await this.ostree(['--repo=' + this.repo, 'rev-parse', ref])).trim();
  }

  /** The `version` metadata of a commit/ref, or undefined. */
  async commitVersion(ref: string): Promise<string | undefined> {
    try {
      const out = (await this.ostree(['--repo=' + this.repo, 'show', '--print-metadata-key=version', ref])).trim();
      const m = /^'(.*)'$/s.exec(out);
      return m ? m[1] : out;
    } catch {
      return undefined;
    }
  }

  /** Deploys a ref or checksum; resolves with the new default deployment. */
  async deploy(refOrChecksum: string, o: SysrootDeployOptions = {}): Promise<SysrootDeployment> {
    const args = ['admin', `--sysroot=${this.path}`, 'deploy', `--os=${this.osname}`];
    if (o.retain) args.push('--retain');
    if (o.originFile !== undefined) args.push(`--origin-file=${o.originFile}`);
    if (o.kargsExact !== undefined) {
      args.push('--karg-none');
      for (const k of o.kargsExact) args.push(`--karg-append=${k}`);
    }
    for (const k of o.kargs ?? []) args.push(`--karg=${k}`);
    for (const k of o.kargsDelete ?? []) args.push(`--karg-delete=${k}`);
    for (const k of o.kargsAppend ?? []) args.push(`--karg-append=${k}`);
    args.push(refOrChecksum);
    await this.ostree(args);
    const first = (await this.deployments())[0];
    if (!first) throw new OstreeError('SYSROOT', `deploy of ${refOrChecksum} left no deployment in ${this.path}`);
    return first;
  }

  /** Lists deployments in boot order, with kernel arguments from the BLS entries. */
  async deployments(): Promise<SysrootDeployment[]> {
    const text = await this.ostree(['admin', `--sysroot=${this.path}`, 'status']);
    const entries = this.#blsEntries();
    const out: SysrootDeployment[] = [];
    let cur:
      | {
          osname: string;
          checksum: string;
          serial: number;
          booted: boolean;
          staged: boolean;
          version?: string;
          pinned: boolean;
          refspec?: string;
        }
      | undefined;
    const flush = (): void => {
      if (!cur) return;
      const index = out.length;
      const path = join(this.path, 'ostree', 'deploy', cur.osname, 'deploy', `${cur.checksum}.${cur.serial}`);
      const originPath = `${path}.origin`;
      out.push({
        index,
        osname: cur.osname,
        checksum: cur.checksum,
        serial: cur.serial,
        version: cur.version,
        pinned: cur.pinned,
        booted: cur.booted,
        staged: cur.staged,
        refspec: cur.refspec,
        kargs: entries.get(index) ?? [],
        path,
        originText: existsSync(originPath) ? readFileSync(originPath, 'utf8') : '',
      });
    };
    for (const line of text.split('\n')) {
      const head = /^([* ]) (\S+) ([0-9a-f]{64})\.(\d+)(?: \((\w+)\))?\s*$/.exec(line);
      if (head) {
        flush();
        cur = {
          osname: head[2] as string,
          checksum: head[3] as string,
          serial: Number(head[4]),
          booted: head[1] === '*',
          staged: head[5] === 'staged',
          pinned: false,
        };
        continue;
      }
      if (!cur) continue;
      const kv = /^\s+([^:]+):\s*(.*)$/.exec(line);
      if (!kv) continue;
      const key = (kv[1] as string).trim();
      const val = (kv[2] as string).trim();
      if (key === 'Version') cur.version = val;
      else if (key === 'Pinned') cur.pinned = val === 'yes';
      else if (key === 'origin refspec') cur.refspec = val;
    }
    flush();
    return out;
  }

  #blsEntries(): Map<number, string[]> {
    const dir = join(this.path, 'boot', 'loader', 'entries');
    const map = new Map<number, string[]>();
    if (!existsSync(dir)) return map;
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.conf')) continue;
      const text = readFileSync(join(dir, f), 'utf8');
      const title = /^title .*\(ostree:(\d+)(?::[^)]*)?\)\s*$/m.exec(text);
      const options = /^options (.*)$/m.exec(text);
      if (!title) continue;
      map.set(
        Number(title[1]),
        parseKernelCommandLine(options?.[1] ?? '').filter((a) => !a.startsWith('ostree=')),
      );
    }
    return map;
  }

  /** Pins (or unpins) the deployment at `index` so it is never garbage-collected. */
  async pin(index: number, unpin = false): Promise<void> {
    await this.ostree(['admin', `--sysroot=${this.path}`, 'pin', ...(unpin ? ['--unpin'] : []), String(index)]);
  }

  /** Removes the deployment at `index`. */
  async undeploy(index: number): Promise<void> {
    await this.ostree(['admin', `--sysroot=${this.path}`, 'undeploy', String(index)]);
  }

  /** `ostree admin cleanup`: deletes unreferenced deployment directories and prunes the repo. */
  async cleanup(): Promise<void> {
    await this.ostree(['admin', `--sysroot=${this.path}`, 'cleanup']);
  }

  /** Appends kernel arguments (if missing) to every deployment's BLS entry. */
  async appendKargsIfMissing(kargs: readonly string[]): Promise<void> {
    if (kargs.length === 0) return;
    await this.ostree([
      'admin',
      `--sysroot=${this.path}`,
      'kargs',
      'edit-in-place',
      ...kargs.map((k) => `--append-if-missing=${k}`),
    ]);
  }

  /** `/etc` changes of the merge (default) deployment against its `/usr/etc` defaults (`ostree admin config-diff`). */
  async configDiff(): Promise<EtcDiff> {
    const out = await this.ostree(['admin', `--sysroot=${this.path}`, 'config-diff', `--os=${this.osname}`]);
    const modified: string[] = [];
    const added: string[] = [];
    const removed: string[] = [];
    for (const line of out.split('\n')) {
      const m = /^([MAD])\s+(.+)$/.exec(line);
      if (!m) continue;
      (m[1] === 'M' ? modified : m[1] === 'A' ? added : removed).push(m[2] as string);
    }
    return { modified, added, removed };
  }

  /** Reads a file of a deployment's /etc (null when absent). */
  readEtc(d: SysrootDeployment, relPath: string): string | null {
    if (relPath.split('/').includes('..'))
      throw new OstreeError('INVALID_ARGUMENT', `etc path ${JSON.stringify(relPath)} must not contain ".."`);
    const p = join(d.path, 'etc', relPath);
    return existsSync(p) ? readFileSync(p, 'utf8') : null;
  }

  /** Writes a file into a deployment's /etc (a local admin change, to exercise the 3-way merge). */
  writeEtc(d: SysrootDeployment, relPath: string, content: string): void {
    if (relPath.split('/').includes('..'))
      throw new OstreeError('INVALID_ARGUMENT', `etc path ${JSON.stringify(relPath)} must not contain ".."`);
    writeFileSync(join(d.path, 'etc', relPath), content);
  }

  /**
   * The sysroot as an `rpm-ostree status --json`-shaped document (ostree origins, no layering). Nothing is booted
   * in a temp sysroot; pass `bootedIndex` to mark one as booted for simulations.
   */
  async toStatusJson(bootedIndex?: number): Promise<JsonObject> {
    const deps = await this.deployments();
    return {
      deployments: deps.map((d) => {
        const o: JsonObject = {
          id: `${d.osname}-${d.checksum}.${d.serial}`,
          osname: d.osname,
          serial: d.serial,
          checksum: d.checksum,
          booted: bootedIndex === d.index || d.booted,
          staged: d.staged,
          pinned: d.pinned,
          unlocked: 'none',
          packages: [],
          'requested-packages': [],
          'requested-local-packages': [],
          'requested-base-removals': [],
          'base-removals': [],
          'requested-base-local-replacements': [],
          'base-local-replacements': [],
        };
        if (d.version !== undefined) o['version'] = d.version;
        if (d.refspec !== undefined) o['origin'] = d.refspec;
        return o;
      }),
      transaction: null,
      'cached-update': null,
    };
  }
}
