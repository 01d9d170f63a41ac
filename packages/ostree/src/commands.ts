import { OstreeError } from './errors.js';
import { kernelPackagesFor, type KernelType } from './packages.js';

/** Options of `rpm-ostree rebase`. */
export interface RebaseOptions {
  /** `--experimental` (the machine-config-daemon always passes it for container images). */
  readonly experimental?: boolean;
  /** `--lock-finalization`: stage but do not finalize on shutdown (Zincati). */
  readonly lockFinalization?: boolean;
  /** `--custom-origin-url`. */
  readonly customOriginUrl?: string;
  /** `--custom-origin-description`. */
  readonly customOriginDescription?: string;
  /** Optional revision/digest after the reference (Zincati: `rebase --lock-finalization <ref> <digest>`). */
  readonly revision?: string;
  /** `--disallow-downgrade` (appended last, as Zincati does). */
  readonly disallowDowngrade?: boolean;
}

/** Options of `rpm-ostree deploy`. */
export interface DeployOptions {
  readonly lockFinalization?: boolean;
  readonly skipBranchCheck?: boolean;
  readonly disallowDowngrade?: boolean;
  /** `--register-driver=<name>`. */
  readonly registerDriver?: string;
  readonly bypassDriver?: boolean;
}

/** Which deployments `rpm-ostree cleanup` removes. */
export interface CleanupOptions {
  /** `-p`: pending (staged) deployment. */
  readonly pending?: boolean;
  /** `-r`: rollback deployment. */
  readonly rollback?: boolean;
  /** `-b`: temporary files / base. */
  readonly base?: boolean;
  /** `-m`: cached rpm repodata. */
  readonly repomd?: boolean;
}

/** Kernel argument edits for `rpm-ostree kargs`, emitted in this field order. */
export interface KargsEdit {
  readonly deleteIfPresent?: readonly string[];
  readonly delete?: readonly string[];
  readonly replace?: readonly string[];
  readonly append?: readonly string[];
  readonly appendIfMissing?: readonly string[];
  /** `--unchanged-exit-77`. */
  readonly unchangedExit77?: boolean;
}

function checkArg(what: string, v: string): string {
  if (typeof v !== 'string' || v === '' || v.includes('\0') || /[\n\r]/.test(v)) {
    throw new OstreeError(
      'INVALID_ARGUMENT',
      `${what}: ${JSON.stringify(v)} is empty or contains a newline/NUL; fix the value`,
    );
  }
  return v;
}

/** Argument builders: each returns the exact argument list after `rpm-ostree`. */
export const rpmOstreeArgs = {
  /** `status --json`. */
  statusJson: (): string[] => ['status', '--json'],
  /** `--version` (YAML). */
  version: (): string[] => ['--version'],
  /** `kargs` (read current). */
  kargsRead: (): string[] => ['kargs'],
  /** `rebase [--experimental] [--lock-finalization] [--custom-origin-*] <ref> [revision]`. */
  rebase(ref: string, o: RebaseOptions = {}): string[] {
    const a = ['rebase'];
    if (o.experimental) a.push('--experimental');
    if (o.lockFinalization) a.push('--lock-finalization');
    a.push(checkArg('rebase reference', ref));
    if (o.revision !== undefined) a.push(checkArg('rebase revision', o.revision));
    if (o.customOriginUrl !== undefined)
      a.push('--custom-origin-url', checkArg('custom origin url', o.customOriginUrl));
    if (o.customOriginDescription !== undefined)
      a.push('--custom-origin-description', checkArg('custom origin description', o.customOriginDescription));
    if (o.disallowDowngrade) a.push('--disallow-downgrade');
    return a;
  },
  /** `kargs --delete-if-present=… --delete=… --replace=… --append=… --append-if-missing=…`. */
  kargs(e: KargsEdit): string[] {
    const a = ['kargs'];
    for (const k of e.deleteIfPresent ?? []) a.push(`--delete-if-present=${checkArg('karg', k)}`);
    for (const k of e.delete ?? []) a.push(`--delete=${checkArg('karg', k)}`);
    for (const k of e.replace ?? []) a.push(`--replace=${checkArg('karg', k)}`);
    for (const k of e.append ?? []) a.push(`--append=${checkArg('karg', k)}`);
    for (const k of e.appendIfMissing ?? []) a.push(`--append-if-missing=${checkArg('karg', k)}`);
    if (e.unchangedExit77) a.push('--unchanged-exit-77');
    return a;
  },
  /** `deploy [--lock-finalization] [--skip-branch-check] [--bypass-driver] <revision> [--register-driver=X] [--disallow-downgrade]` (revision `''` to only register). */
  deploy(revision: string, o: DeployOptions = {}): string[] {
    const a = ['deploy'];
    if (o.lockFinalization) a.push('--lock-finalization');
    if (o.skipBranchCheck) a.push('--skip-branch-check');
    if (o.bypassDriver) a.push('--bypass-driver');
    a.push(revision);
    if (o.registerDriver !== undefined) a.push(`--register-driver=${checkArg('driver name', o.registerDriver)}`);
    if (o.disallowDowngrade) a.push('--disallow-downgrade');
    return a;
  },
  /** `finalize-deployment [--allow-missing-checksum] <checksum>`. */
  finalizeDeployment(checksum: string, allowMissingChecksum = false): string[] {
    return allowMissingChecksum
      ? ['finalize-deployment', '--allow-missing-checksum', checkArg('checksum', checksum)]
      : ['finalize-deployment', checkArg('checksum', checksum)];
  },
  /** `cleanup -p -r -b -m` (at least one). */
  cleanup(o: CleanupOptions): string[] {
    const a = ['cleanup'];
    if (o.pending) a.push('-p');
    if (o.rollback) a.push('-r');
    if (o.base) a.push('-b');
    if (o.repomd) a.push('-m');
    if (a.length === 1)
      throw new OstreeError('INVALID_ARGUMENT', 'cleanup: choose at least one of pending, rollback, base, repomd');
    return a;
  },
  /** `override remove <pkgs…> --install <pkg> …`. */
  overrideRemove(remove: readonly string[], install: readonly string[] = []): string[] {
    const a = ['override', 'remove', ...remove.map((p) => checkArg('package', p))];
    for (const p of install) a.push('--install', checkArg('package', p));
    return a;
  },
  /** `override replace <pkgs or URLs…> [--remove <pkg> …]`. */
  overrideReplace(replace: readonly string[], remove: readonly string[] = []): string[] {
    const a = ['override', 'replace', ...replace.map((p) => checkArg('package', p))];
    for (const p of remove) a.push('--remove', checkArg('package', p));
    return a;
  },
  /** `override reset <pkgs…> --uninstall <pkg> …`. */
  overrideReset(reset: readonly string[], uninstall: readonly string[] = []): string[] {
    const a = ['override', 'reset', ...reset.map((p) => checkArg('package', p))];
    for (const p of uninstall) a.push('--uninstall', checkArg('package', p));
    return a;
  },
  /** `update --install <p> … --uninstall <q> …` from already built extension args. */
  update(extensionArgs: readonly string[]): string[] {
    return ['update', ...extensionArgs];
  },
  /** Kernel type switch: remove the default kernel packages and install the realtime / 64k set of the release. */
  switchKernel(kernelType: Exclude<KernelType, 'default'>, el10 = false): string[] {
    const packages = kernelPackagesFor(el10);
    return rpmOstreeArgs.overrideRemove(packages.default, packages[kernelType]);
  },
} as const;

/**
 * The kernel-swap revert the daemon runs before an OS update or kernel type change: when the deployment removed
 * base packages named `kernel`/`kernel-*` AND layered `kernel-rt-*`/`kernel-64k-*`, returns
 * `override reset <removals…> --uninstall <layers…>`; otherwise undefined.
 */
export function revertKernelSwapArgs(d: {
  readonly requestedBaseRemovals: readonly string[];
  readonly requestedPackages: readonly string[];
}): string[] | undefined {
  const overrides = d.requestedBaseRemovals.filter((r) => r === 'kernel' || r.startsWith('kernel-'));
  const layers = d.requestedPackages.filter((p) => p.startsWith('kernel-rt-') || p.startsWith('kernel-64k-'));
  if (overrides.length > 0 && layers.length > 0) return rpmOstreeArgs.overrideReset(overrides, layers);
  return undefined;
}

/** What Zincati stages: an ostree commit checksum or an OCI image digest (optionally rebasing from an ostree origin). */
export type ZincatiPayload = { readonly checksum: string } | { readonly digest: string; readonly rebaseTo?: string };

/**
 * The `rpm-ostree` arguments Zincati uses to stage an update: `deploy --lock-finalization --skip-branch-check
 * revision=<checksum>`, `deploy --lock-finalization <digest>` or `rebase --lock-finalization <image ref> <digest>`,
 * each followed by `--disallow-downgrade` unless downgrades are allowed.
 */
export function zincatiStageArgs(payload: ZincatiPayload, allowDowngrade = false): string[] {
  if ('checksum' in payload) {
    return rpmOstreeArgs.deploy(`revision=${checkArg('checksum', payload.checksum)}`, {
      lockFinalization: true,
      skipBranchCheck: true,
      disallowDowngrade: !allowDowngrade,
    });
  }
  if (payload.rebaseTo !== undefined) {
    return rpmOstreeArgs.rebase(payload.rebaseTo, {
      lockFinalization: true,
      revision: payload.digest,
      disallowDowngrade: !allowDowngrade,
    });
  }
  return rpmOstreeArgs.deploy(checkArg('digest', payload.digest), {
    lockFinalization: true,
    disallowDowngrade: !allowDowngrade,
  });
}

/**
 * The reboot the machine-config-daemon runs after staging: `systemd-run --unit machine-config-daemon-reboot
 * --description "machine-config-daemon: <rationale>" [-p Requires=ostree-finalize-staged.service -p
 * After=ostree-finalize-staged.service] /bin/sh -c "systemctl reboot"` (the two `-p` on CoreOS). Returns argv.
 */
export function mcoRebootCommand(rationale: string, coreOS = true): string[] {
  const argv = [
    'systemd-run',
    '--unit',
    'machine-config-daemon-reboot',
    '--description',
    `machine-config-daemon: ${checkArg('rationale', rationale)}`,
  ];
  if (coreOS) argv.push('-p', 'Requires=ostree-finalize-staged.service', '-p', 'After=ostree-finalize-staged.service');
  argv.push('/bin/sh', '-c', 'systemctl reboot');
  return argv;
}
