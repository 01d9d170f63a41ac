/**
 * The RHCOS extensions repository of an OS update (openshift/machine-config-operator pkg/daemon/update.go,
 * `applyLayeredOSChanges`, `ExtractExtensionsImage`, `pullExtensionsImage`, `podmanCopy`, `addExtensionsRepo`): when
 * the new config names `baseOSExtensionsContainerImage` and either config has extensions or a non-default kernel type,
 * the extensions image is pulled with podman (unless already present), its content copied out of a created container
 * into `/run/mco-extensions/os-extensions-content-*` (SELinux type `var_run_t`), and the `coreos-extensions` yum repo
 * pointed at it, so that `rpm-ostree update --install …` and the kernel-rt / 64k swaps find their packages. Both are
 * removed once the OS changes are staged (or failed). Every command runs on the host through the daemon's
 * `HostExec` runner; every path is the host's, under the daemon's root.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { CommandRunner } from '@keelson/ostree';
import { canonicalizeKernelType } from '@keelson/ostree';
import type { MachineConfig } from '@keelson/api';
import type { HostRoot } from './root.js';
import { atomicWrite } from './writer.js';

/** upstream update.go `extensionsRepo`. */
export const EXTENSIONS_REPO_PATH = '/etc/yum.repos.d/coreos-extensions.repo';
/** upstream update.go `osExtensionsContentBaseDir`. */
export const EXTENSIONS_CONTENT_BASE = '/run/mco-extensions';
/** upstream daemon.go `kubeletAuthFile`: podman pulls with the kubelet's pull secret. */
export const KUBELET_AUTH_FILE = '/var/lib/kubelet/config.json';
/** upstream pivot/types `PivotNamePrefix`. */
export const PIVOT_NAME_PREFIX = 'ostree-container-pivot-';
/** upstream image_manager_helper.go `numRetriesNetCommands`. */
export const NET_COMMAND_RETRIES = 5;

/** The `coreos-extensions` repo file upstream writes (addExtensionsRepo). */
export function extensionsRepoContent(contentDir: string): string {
  return (
    '[coreos-extensions]\nenabled=1\nmetadata_expire=1m\n' +
    `baseurl=${contentDir}/usr/share/rpm-ostree/extensions/\ngpgcheck=0\nskip_if_unavailable=False\n`
  );
}

/** Whether an OS update from `oldMc` to `newMc` needs the extensions repo (applyLayeredOSChanges). */
export function needsExtensionsRepo(oldMc: MachineConfig, newMc: MachineConfig): boolean {
  const o = oldMc.spec ?? {};
  const n = newMc.spec ?? {};
  const haveExtensions = (o.extensions ?? []).length > 0 || (n.extensions ?? []).length > 0;
  const haveKernelType =
    canonicalizeKernelType(o.kernelType) !== 'default' || canonicalizeKernelType(n.kernelType) !== 'default';
  return (n.baseOSExtensionsContainerImage ?? '') !== '' && (haveExtensions || haveKernelType);
}

/** A host command of the extraction failed. */
export class ExtensionsImageError extends Error {
  readonly code = 'MCD_EXTENSIONS_IMAGE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExtensionsImageError';
  }
}

/** Options of {@link ExtensionsImage}. */
export interface ExtensionsImageOptions {
  readonly root: HostRoot;
  /** Runs host commands (the daemon's `HostExec.runner`). */
  readonly runner: CommandRunner;
  /** Sleep between retries (upstream: 5 s doubling); tests pass a fast one. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Container name suffix (default a random UUID, as upstream's `uuid.NewUUID`). */
  readonly uuid?: () => string;
  /** Called with every command line run (logs, tests). */
  readonly onCommand?: (argv: readonly string[]) => void;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Pulls and extracts the extensions image and maintains the `coreos-extensions` repo. */
export class ExtensionsImage {
  readonly #o: ExtensionsImageOptions;
  constructor(o: ExtensionsImageOptions) {
    this.#o = o;
  }

  async #run(argv: readonly string[]): Promise<string> {
    this.#o.onCommand?.(argv);
    const [cmd = 'true', ...args] = argv;
    const r = await this.#o.runner.run(cmd, args, {});
    if (r.exitCode !== 0)
      throw new ExtensionsImageError(
        `running ${argv.join(' ')} failed: ${(r.stdout + r.stderr).trim()}: exit status ${String(r.exitCode)}`,
      );
    return r.stdout;
  }

  /** upstream pivotutils.RunExtBackground: `nice -- ionice -c 3 <cmd>`, retried with a 5 s doubling backoff. */
  async #runBackground(retries: number, command: readonly string[]): Promise<string> {
    const argv = ['nice', '--', 'ionice', '-c', '3', ...command];
    let delay = 5_000;
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        await (this.#o.sleep ?? realSleep)(delay);
        delay *= 2;
      }
      try {
        return (await this.#run(argv)).trim();
      } catch (e) {
        last = e;
      }
    }
    throw new ExtensionsImageError(
      `failed to run command nice (${retries + 1} tries): [timed out waiting for the condition, ${(last as Error).message}]`,
      { cause: last },
    );
  }

  /** upstream pullExtensionsImage: `podman images --filter reference=IMG`, then `podman pull -q` when absent. */
  async #pull(image: string): Promise<void> {
    const out = await this.#run(['podman', 'images', '--format=json', '--filter', `reference=${image}`]);
    let infos: unknown;
    try {
      infos = JSON.parse(out);
    } catch (e) {
      throw new ExtensionsImageError(`failed to decode podman image ls output: ${(e as Error).message}`);
    }
    if (Array.isArray(infos) && infos.length > 0) return;
    const auth = (await exists(this.#o.root.resolve(KUBELET_AUTH_FILE))) ? ['--authfile', KUBELET_AUTH_FILE] : [];
    await this.#runBackground(NET_COMMAND_RETRIES, ['podman', 'pull', '-q', ...auth, image]);
  }

  /** upstream podmanCopy: a created (never started) container's `/` copied to `dir`, relabelled `var_run_t`. */
  async #copy(image: string, dir: string): Promise<void> {
    await fs.rm(this.#o.root.resolve(dir), { recursive: true, force: true });
    const name = `${PIVOT_NAME_PREFIX}${(this.#o.uuid ?? randomUUID)()}`;
    const cid = (
      await this.#run([
        'podman',
        'create',
        '--net=none',
        '--annotation=org.openshift.machineconfigoperator.pivot=true',
        '--name',
        name,
        image,
      ])
    ).trim();
    try {
      await this.#runBackground(NET_COMMAND_RETRIES, ['podman', 'cp', `${cid}:/`, dir]);
      await this.#run(['chcon', '-R', '-t', 'var_run_t', dir]).catch((e: unknown) => {
        throw new ExtensionsImageError(`changing selinux context on path ${dir}: ${(e as Error).message}`, {
          cause: e,
        });
      });
    } finally {
      // upstream podmanRemove: errors ignored
      await this.#run(['podman', 'kill', name]).catch(() => undefined);
      await this.#run(['podman', 'rm', '-f', name]).catch(() => undefined);
    }
  }

  /**
   * Extracts `image` into a fresh `/run/mco-extensions/os-extensions-content-*` and writes the repo file. Returns a
   * function removing both (call it when the OS changes are done, successful or not).
   */
  async prepare(image: string): Promise<() => Promise<void>> {
    const base = this.#o.root.resolve(EXTENSIONS_CONTENT_BASE);
    await fs.mkdir(base, { recursive: true, mode: 0o755 });
    const real = await fs.mkdtemp(`${base}/os-extensions-content-`);
    const dir = `${EXTENSIONS_CONTENT_BASE}/${real.slice(base.length + 1)}`;
    const repo = this.#o.root.resolve(EXTENSIONS_REPO_PATH);
    const cleanup = async (): Promise<void> => {
      await fs.rm(real, { recursive: true, force: true });
      await fs.rm(repo, { force: true });
    };
    try {
      await this.#pull(image).catch((e: unknown) => {
        throw new ExtensionsImageError(`error pulling extensions image ${image}: ${(e as Error).message}`, {
          cause: e,
        });
      });
      await this.#copy(image, dir);
      await atomicWrite(repo, extensionsRepoContent(dir), { mode: 0o644, killPoint: false });
    } catch (e) {
      await cleanup();
      throw e;
    }
    return cleanup;
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}
