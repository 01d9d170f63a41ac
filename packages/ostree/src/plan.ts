import { OstreeError, formatCommandLine } from './errors.js';
import { rpmOstreeArgs, revertKernelSwapArgs } from './commands.js';
import { generateKargs } from './kargs.js';
import { unverifiedRegistryReference, containersStorageReference } from './imageref.js';
import {
  kernelPackagesFor,
  SUPPORTED_EXTENSIONS,
  canonicalizeKernelType,
  type KernelType,
  generateExtensionsArgs,
  packagesForExtensions,
  validateExtensions,
} from './packages.js';
import { MCO_REBASE_RETRY, type RpmOstree } from './rpm-ostree.js';
import { bootedDeployment, osImageUrlOf, stagedDeployment } from './status.js';

/** The OS-relevant part of a MachineConfig (`spec`), structurally typed so any MachineConfig object fits. */
export interface OsConfigSpec {
  readonly osImageURL?: string | null | undefined;
  readonly kernelArguments?: readonly string[] | null | undefined;
  readonly extensions?: readonly string[] | null | undefined;
  readonly kernelType?: string | null | undefined;
}

/** A MachineConfig-like object: either `{spec: {...}}` (with optional metadata.name) or the spec fields directly. */
export type MachineConfigLike =
  | {
      readonly metadata?: { readonly name?: string | undefined } | undefined;
      readonly spec?: OsConfigSpec | null | undefined;
    }
  | OsConfigSpec;

/** What the node currently runs, as far as the plan needs it (a parsed booted {@link Deployment} fits). */
export interface BootedState {
  readonly requestedPackages: readonly string[];
  readonly requestedBaseRemovals: readonly string[];
  /** OS image URL the node booted (skips the rebase when equal to the target). */
  readonly osImageURL?: string | undefined;
}

/** Options of {@link applyOsChanges}. */
export interface OsPlanOptions {
  /** Booted deployment; default: derived from `old` (the node is assumed to be exactly at the old config). */
  readonly booted?: BootedState;
  /** RHEL-family host (kernel type and extensions apply; default true). */
  readonly isEL?: boolean;
  /** RHEL 10 based host (`isEL10` of its os-release): the realtime kernel set has no `kernel-rt-kvm`. Default false. */
  readonly el10?: boolean;
  /** CPU architecture in Go terms (`amd64`, `arm64`; default from the process). 64k-pages needs `arm64`. */
  readonly arch?: string;
  /** rpm-ostree has the `container` feature (default true); false is refused (the in-place path is out of scope). */
  readonly hasContainerFeature?: boolean;
  /** Rebase from local container storage with this repo digest instead of the registry. */
  readonly localImageRepoDigest?: string;
  /** The daemon's force file (`/run/machine-config-daemon-force`) exists: treat the OS image as changed. */
  readonly force?: boolean;
  /** Extension → packages map (default: the MCO's). */
  readonly extensionsMap?: Readonly<Record<string, readonly string[]>>;
}

/** The kind of a plan step. */
export type PlanStepKind =
  'cleanup-pending' | 'revert-kernel-swap' | 'rebase' | 'kargs' | 'kernel-type' | 'extensions' | 'verify-extensions';

/** One step of an OS update. `args` are the arguments after `rpm-ostree` (empty for checks). */
export interface PlanStep {
  readonly kind: PlanStepKind;
  readonly description: string;
  readonly args: readonly string[];
  /** Retry every failure like the daemon's rebase (7 tries, backoff). */
  readonly retryAnyFailure: boolean;
  /** For `verify-extensions`: packages that must be requested in the staged deployment. */
  readonly expectPackages?: readonly string[];
}

/** What changed between the two configs (as the daemon's diff sees it). */
export interface OsDiff {
  readonly osUpdate: boolean;
  readonly kargs: boolean;
  readonly kernelType: boolean;
  readonly extensions: boolean;
}

/** The ordered plan; `rollback` is run when a step fails. */
export interface OsUpdatePlan {
  readonly diff: OsDiff;
  readonly steps: readonly PlanStep[];
  readonly rollback: readonly PlanStep[];
  /** Why parts were skipped (e.g. "already in desired image"). */
  readonly notes: readonly string[];
}

function specOf(mc: MachineConfigLike | null | undefined): OsConfigSpec {
  if (mc == null) return {};
  if ('spec' in mc) return mc.spec ?? {};
  return mc as OsConfigSpec;
}

function sameList(a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function goArch(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch;
}

const CLEANUP_PENDING: PlanStep = Object.freeze({
  kind: 'cleanup-pending',
  description: 'remove any pending deployment',
  args: Object.freeze(rpmOstreeArgs.cleanup({ pending: true })),
  retryAnyFailure: false,
});

/**
 * Builds the ordered plan the machine-config-daemon runs to move a CoreOS node from `old` to `new`: cleanup of a
 * pending deployment, kernel-swap revert, rebase to the OS image, one kargs call, kernel type switch, extensions
 * update plus a staged-deployment check. Pure: the same inputs always give the same commands.
 */
export function applyOsChanges(
  oldConfig: MachineConfigLike | null | undefined,
  newConfig: MachineConfigLike | null | undefined,
  options: OsPlanOptions = {},
): OsUpdatePlan {
  const o = specOf(oldConfig);
  const n = specOf(newConfig);
  const map = options.extensionsMap ?? SUPPORTED_EXTENSIONS;
  const isEL = options.isEL ?? true;
  const oldK = canonicalizeKernelType(o.kernelType);
  const newK = canonicalizeKernelType(n.kernelType);
  const notes: string[] = [];
  let osUpdate = (o.osImageURL ?? '') !== (n.osImageURL ?? '') || options.force === true;
  const booted: BootedState = options.booted ?? assumedBooted(o, oldK, map, options.el10 === true);
  if (osUpdate && booted.osImageURL !== undefined && booted.osImageURL === (n.osImageURL ?? '')) {
    notes.push(`already in desired image ${n.osImageURL ?? ''}`);
    osUpdate = false;
  }
  const diff: OsDiff = {
    osUpdate,
    kargs: !sameList(o.kernelArguments, n.kernelArguments),
    kernelType: oldK !== newK,
    extensions: !sameList(o.extensions, n.extensions),
  };
  const steps: PlanStep[] = [];
  if (!(diff.osUpdate || diff.kargs || diff.kernelType || diff.extensions || newK !== 'default')) {
    notes.push('no OS changes');
    return { diff, steps, rollback: [], notes };
  }
  steps.push(CLEANUP_PENDING);
  if (diff.osUpdate || diff.kernelType) {
    const revert = revertKernelSwapArgs(booted);
    if (revert)
      steps.push({
        kind: 'revert-kernel-swap',
        description: 'undo the kernel-rt/64k swap before changing the OS or kernel',
        args: revert,
        retryAnyFailure: false,
      });
  }
  if (diff.osUpdate) steps.push(rebaseStep(n, options));
  else if (n.osImageURL) {
    notes.push(`OS image unchanged (${n.osImageURL})`);
  }
  if (diff.kargs) {
    const k = generateKargs(o.kernelArguments, n.kernelArguments);
    if (k.length > 0)
      steps.push({
        kind: 'kargs',
        description: 'delete the old config kernel arguments and append the new ones',
        args: ['kargs', ...k],
        retryAnyFailure: false,
      });
  }
  if (isEL && (diff.osUpdate || diff.kernelType) && newK !== 'default') {
    if (newK === '64k-pages' && (options.arch ?? goArch()) !== 'arm64') {
      throw new OstreeError(
        'UNSUPPORTED_KERNEL_TYPE',
        '64k-pages is only supported for aarch64 architecture (spec.kernelType)',
      );
    }
    steps.push({
      kind: 'kernel-type',
      description: `switch to the ${newK} kernel`,
      args: rpmOstreeArgs.switchKernel(newK, options.el10 === true),
      retryAnyFailure: false,
    });
  }
  steps.push(...extensionSteps(o, n, booted, { isEL, map }, notes));
  return { diff, steps, rollback: [CLEANUP_PENDING], notes };
}

/** What the node runs when no booted state is given: exactly the old config (its kernel and extension packages). */
function assumedBooted(
  o: OsConfigSpec,
  oldK: KernelType,
  map: Readonly<Record<string, readonly string[]>>,
  el10: boolean,
): BootedState {
  const kernel = kernelPackagesFor(el10);
  const layered = oldK === 'default' ? [] : [...kernel[oldK]];
  const ext = (o.extensions ?? []).filter((e) => Object.hasOwn(map, e)).flatMap((e) => map[e] ?? []);
  return {
    requestedPackages: [...layered, ...ext],
    requestedBaseRemovals: oldK === 'default' ? [] : [...kernel.default],
    osImageURL: o.osImageURL ?? undefined,
  };
}

/** The rebase onto the new OS image (from local containers-storage when its digest is given). */
function rebaseStep(n: OsConfigSpec, options: OsPlanOptions): PlanStep {
  const image = n.osImageURL ?? '';
  if (image === '')
    throw new OstreeError('INVALID_ARGUMENT', 'new config spec.osImageURL is empty; set it to the OS image pull spec');
  if (options.hasContainerFeature === false) {
    throw new OstreeError(
      'INVALID_ARGUMENT',
      'rpm-ostree on this host lacks the "container" feature (rpm-ostree --version); update it in place first, this driver only rebases to container images',
    );
  }
  const ref =
    options.localImageRepoDigest !== undefined
      ? containersStorageReference(options.localImageRepoDigest)
      : unverifiedRegistryReference(image);
  return {
    kind: 'rebase',
    description: `rebase to OS image ${image}`,
    args: rpmOstreeArgs.rebase(ref, { experimental: true }),
    retryAnyFailure: options.localImageRepoDigest === undefined,
  };
}

/** The extensions update and its staged-deployment check, when the extensions (or the image carrying them) change. */
function extensionSteps(
  o: OsConfigSpec,
  n: OsConfigSpec,
  booted: BootedState,
  host: { isEL: boolean; map: Readonly<Record<string, readonly string[]>> },
  notes: string[],
): PlanStep[] {
  const { isEL, map } = host;
  const steps: PlanStep[] = [];
  const extEmpty = (o.extensions ?? []).length === 0 && (n.extensions ?? []).length === 0;
  if (isEL && !extEmpty && !(sameList(o.extensions, n.extensions) && (o.osImageURL ?? '') === (n.osImageURL ?? ''))) {
    validateExtensions(n.extensions, map);
    const args = generateExtensionsArgs(booted.requestedPackages, n.extensions, map);
    if (args.length > 0) {
      steps.push({
        kind: 'extensions',
        description: 'install/uninstall extension packages',
        args: rpmOstreeArgs.update(args),
        retryAnyFailure: false,
      });
      const expect = packagesForExtensions(n.extensions, map);
      if (expect.length > 0) {
        steps.push({
          kind: 'verify-extensions',
          description: 'check the staged deployment requests every extension package',
          args: [],
          retryAnyFailure: false,
          expectPackages: expect,
        });
      }
    } else {
      notes.push('no extension updates required');
    }
  }
  return steps;
}

/** The plan as shell command lines (`rpm-ostree …`), checks shown as comments. */
export function formatPlan(plan: OsUpdatePlan, binary = 'rpm-ostree'): string[] {
  return plan.steps.map((s) =>
    s.args.length > 0 ? formatCommandLine(binary, s.args) : `# ${s.description}: ${(s.expectPackages ?? []).join(' ')}`,
  );
}

/** Result of {@link executePlan}. */
export interface PlanExecution {
  /** Steps that completed (in order). */
  readonly completed: readonly PlanStep[];
  /** True when nothing ran because of `dryRun`. */
  readonly dryRun: boolean;
}

/** Thrown when a step fails; the rollback steps have been run (see `rolledBack`). */
export class PlanExecutionError extends OstreeError {
  /** The failing step. */
  readonly step: PlanStep;
  /** Steps completed before the failure. */
  readonly completed: readonly PlanStep[];
  /** True when the rollback ran successfully. */
  readonly rolledBack: boolean;
  constructor(
    step: PlanStep,
    completed: readonly PlanStep[],
    cause: unknown,
    rolledBack: boolean,
    rollbackError?: unknown,
  ) {
    const msg = cause instanceof Error ? cause.message : String(cause);
    const rb = rolledBack
      ? 'staged changes were rolled back (rpm-ostree cleanup -p)'
      : `rolling back ALSO failed: ${rollbackError instanceof Error ? rollbackError.message : String(rollbackError)}`;
    super('PLAN_STEP_FAILED', `OS update step "${step.kind}" failed: ${msg}; ${rb}`, { cause });
    this.name = 'PlanExecutionError';
    this.step = step;
    this.completed = completed;
    this.rolledBack = rolledBack;
  }
}

/**
 * Runs a plan with a driver. With `dryRun` nothing runs (the caller shows {@link formatPlan}). On failure the
 * rollback steps run and a {@link PlanExecutionError} is thrown.
 */
export async function executePlan(
  plan: OsUpdatePlan,
  driver: RpmOstree,
  options: { dryRun?: boolean } = {},
): Promise<PlanExecution> {
  if (options.dryRun) return { completed: [], dryRun: true };
  const completed: PlanStep[] = [];
  for (const step of plan.steps) {
    try {
      if (step.kind === 'verify-extensions') {
        const staged = stagedDeployment(await driver.status());
        if (!staged)
          throw new OstreeError('EXTENSIONS_NOT_STAGED', 'no staged deployment found after applying extensions');
        const have = new Set(staged.requestedPackages);
        const missing = (step.expectPackages ?? []).filter((p) => !have.has(p));
        if (missing.length > 0) {
          throw new OstreeError(
            'EXTENSIONS_NOT_STAGED',
            `the following extension packages are missing from the staged deployment: [${missing.join(' ')}]`,
          );
        }
      } else {
        await driver.exec(step.args, step.retryAnyFailure ? { retryAnyFailure: true, retry: MCO_REBASE_RETRY } : {});
      }
      completed.push(step);
    } catch (err) {
      if (step.kind === 'cleanup-pending') {
        throw new OstreeError('PLAN_STEP_FAILED', `failed to remove pending deployment: ${(err as Error).message}`, {
          cause: err,
        });
      }
      try {
        for (const rb of plan.rollback) await driver.exec(rb.args);
      } catch (rbErr) {
        throw new PlanExecutionError(step, completed, err, false, rbErr);
      }
      throw new PlanExecutionError(step, completed, err, true);
    }
  }
  return { completed, dryRun: false };
}

/**
 * Live variant: reads the booted deployment from the driver, builds the plan against it and executes it
 * (or only returns it with `dryRun`).
 */
export async function applyOsChangesOnHost(
  driver: RpmOstree,
  oldConfig: MachineConfigLike | null | undefined,
  newConfig: MachineConfigLike | null | undefined,
  options: OsPlanOptions & { dryRun?: boolean } = {},
): Promise<{ plan: OsUpdatePlan; execution: PlanExecution }> {
  const status = await driver.status();
  const b = bootedDeployment(status);
  if (!b)
    throw new OstreeError(
      'NO_BOOTED_DEPLOYMENT',
      'no booted deployment in rpm-ostree status; is this host booted into ostree?',
    );
  const hasContainerFeature =
    options.hasContainerFeature ??
    (specOf(oldConfig).osImageURL !== specOf(newConfig).osImageURL ? await driver.isNewEnoughForLayering() : true);
  const plan = applyOsChanges(oldConfig, newConfig, {
    ...options,
    hasContainerFeature,
    booted: {
      requestedPackages: b.requestedPackages,
      requestedBaseRemovals: b.requestedBaseRemovals,
      osImageURL: osImageUrlOf(b),
    },
  });
  const execution = await executePlan(plan, driver, options.dryRun === undefined ? {} : { dryRun: options.dryRun });
  return { plan, execution };
}

/**
 * Validates a parsed MachineConfig (YAML/JSON value) and returns its OS-relevant spec. Accepts a full
 * `MachineConfig` object (`spec.*`) or a bare spec. Throws `INVALID_ARGUMENT` naming the source and field.
 */
export function osConfigSpecFrom(value: unknown, source = 'MachineConfig'): OsConfigSpec {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(value))
    throw new OstreeError(
      'INVALID_ARGUMENT',
      `${source}: expected a MachineConfig object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    );
  const kind = value['kind'];
  if (kind !== undefined && kind !== 'MachineConfig') {
    throw new OstreeError(
      'INVALID_ARGUMENT',
      `${source}: kind is ${JSON.stringify(kind)}; give a MachineConfig (e.g. oc get mc rendered-worker-… -o yaml)`,
    );
  }
  const hasSpec = 'spec' in value || kind === 'MachineConfig';
  const spec = hasSpec ? (value['spec'] ?? {}) : value;
  const prefix = hasSpec ? 'spec.' : '';
  if (!isObj(spec)) throw new OstreeError('INVALID_ARGUMENT', `${source}: ${prefix || 'spec'} must be an object`);
  const str = (k: string): string | undefined => {
    const v = spec[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string')
      throw new OstreeError('INVALID_ARGUMENT', `${source}: ${prefix}${k} must be a string, got ${JSON.stringify(v)}`);
    return v;
  };
  const list = (k: string): string[] | undefined => {
    const v = spec[k];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v))
      throw new OstreeError('INVALID_ARGUMENT', `${source}: ${prefix}${k} must be a list of strings`);
    return v.map((x, i) => {
      if (typeof x !== 'string')
        throw new OstreeError(
          'INVALID_ARGUMENT',
          `${source}: ${prefix}${k}[${i}] must be a string, got ${JSON.stringify(x)}`,
        );
      return x;
    });
  };
  const out: { -readonly [K in keyof OsConfigSpec]: OsConfigSpec[K] } = {};
  const os = str('osImageURL');
  if (os !== undefined) out.osImageURL = os;
  const ka = list('kernelArguments');
  if (ka !== undefined) out.kernelArguments = ka;
  const ex = list('extensions');
  if (ex !== undefined) out.extensions = ex;
  const kt = str('kernelType');
  if (kt !== undefined) out.kernelType = kt;
  return out;
}
