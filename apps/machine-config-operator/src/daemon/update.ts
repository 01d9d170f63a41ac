/**
 * update(old, new) — the core flow of the daemon (update.go): reconcilability and diff, Working state, drain
 * request, files and units, SSH keys and passwords, OS changes, the on-disk currentconfig, then a reboot or the
 * reboot-less post-config actions. Any failure rolls back what was written (old files/units, pending deployment).
 */
import { promises as fs } from 'node:fs';
import { MachineConfigReconcileError, diffMachineConfigs, type MachineConfigDiff } from '@keelson/machineconfig';
import { canonicalizeKernelType } from '@keelson/ostree';
import { NODE_ANNOTATIONS, POST_CONFIG_ACTION_REBOOTING, type MachineConfig } from '@keelson/api';
import { ignitionOf, toIgnitionMc } from './config.js';
import { CURRENT_CONFIG_PATH, FORCE_FILE_PATH, KUBECONFIG_PATH } from './constants.js';
import { emit, type DaemonContext } from './context.js';
import { killPoint } from './crash.js';
import { isSingleNodeTopology, performDrainRequest } from './drain.js';
import { isDrainRequiredForNodeDisruptionActions } from './registries-drain.js';
import { writeJournal, clearJournal } from './journal.js';
import { setPasswords, writeSshKeys } from './passwd.js';
import * as mcn from './mcn-reports.js';
import { isRebootAction, runDisruptionActions, runLegacyAction } from './post-config-action.js';
import { useMergedPullSecrets } from './pull-secret.js';
import { deleteStaleData, exists, writeFiles, writeUnits, atomicWrite } from './writer.js';

/** The update cannot be applied (node goes Unreconcilable). */
export class UnreconcilableError extends Error {
  readonly code = 'MCD_UNRECONCILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'UnreconcilableError';
  }
}

/** How an update ended. */
export interface UpdateResult {
  /** A reboot was requested (the caller stops syncing until the next boot). */
  readonly rebooted: boolean;
  /** Post-config actions that ran instead of a reboot. */
  readonly actions: readonly string[];
  readonly diff: MachineConfigDiff;
}

/** Options of {@link update}. */
export interface UpdateOptions {
  /** Firstboot mode: legacy actions, no API, no drain, certificate files written. */
  readonly firstboot?: boolean;
  /** Called after everything is written and before the reboot (firstboot renames the encapsulated file). */
  readonly beforeReboot?: () => Promise<void>;
}

const nameOf = (mc: MachineConfig): string => mc.metadata.name ?? '';

/** Reconcilability + FIPS check + diff; throws {@link UnreconcilableError}. */
export async function computeUpdateDiff(
  ctx: DaemonContext,
  oldMc: MachineConfig,
  newMc: MachineConfig,
  force: boolean,
): Promise<MachineConfigDiff> {
  let diff: MachineConfigDiff;
  const policy = await ctx.cluster?.nodeDisruptionPolicy?.();
  try {
    diff = diffMachineConfigs(toIgnitionMc(oldMc), toIgnitionMc(newMc), {
      forceFile: force,
      ...(policy ? { nodeDisruptionPolicy: policy } : {}),
    });
  } catch (e) {
    if (e instanceof MachineConfigReconcileError && e.code === 'MC_UNRECONCILABLE') {
      const o = nameOf(oldMc);
      const n = nameOf(newMc);
      throw new UnreconcilableError(
        `can't reconcile config ${o} with ${n}: configs ${o}, ${n} are not reconcilable: ${e.message}`,
      );
    }
    throw e;
  }
  if ((newMc.spec?.fips ?? false) !== (await ctx.host.fipsEnabled())) {
    throw new UnreconcilableError('detected change to FIPS flag; refusing to modify FIPS on a running cluster');
  }
  return diff;
}

/** Writes files, units, stale-data removal and passwd of `to` over `from`. */
async function applyFilesAndUsers(
  ctx: DaemonContext,
  from: MachineConfig,
  to: MachineConfig,
  diff: MachineConfigDiff,
  force: boolean,
  firstboot: boolean,
): Promise<void> {
  const oldIgn = ignitionOf(from);
  const newIgn = ignitionOf(to);
  await writeFiles(ctx.root, ctx.host, newIgn.storage?.files ?? [], { skipCertificateWriterFiles: !firstboot });
  killPoint('after-files-written');
  const changed = new Set([...diff.units.added, ...diff.units.updated]);
  const units = (newIgn.systemd?.units ?? []).filter((u) => force || firstboot || changed.has(u.name ?? ''));
  await writeUnits(ctx.root, ctx.host, units);
  await deleteStaleData(ctx.root, ctx.host, oldIgn, newIgn);
  const kubeconfig = ctx.root.resolve(KUBECONFIG_PATH);
  if (await exists(kubeconfig)) await fs.chmod(kubeconfig, 0o600);
  if (diff.changes.passwd) {
    await writeSshKeys(ctx.root, newIgn.passwd?.users ?? []);
    killPoint('after-ssh-keys');
    await setPasswords(ctx.root, ctx.host, oldIgn.passwd?.users ?? [], newIgn.passwd?.users ?? []);
    killPoint('after-passwords');
  }
}

/** Go's kubeErrs.NewAggregate([rollbackErr, err]).Error() under upstream's `label` (update.go, update()). */
function rollbackFailed(label: string, rollbackErr: unknown, err: unknown): Error {
  return new Error(`${label}: [${(rollbackErr as Error).message}, ${(err as Error).message}]`);
}

/**
 * Roll-back of a failed update `err`, in upstream's order (update.go update(): the deferred OS roll-back runs before
 * the files one): pending deployment dropped, then the old config's files, units and users written back. A roll-back
 * that fails is reported with upstream's wording, so the node's reason says the disk was not restored.
 */
async function rollBack(
  ctx: DaemonContext,
  from: MachineConfig,
  to: MachineConfig,
  osTouched: boolean,
  err: unknown,
): Promise<void> {
  const oldIgn = ignitionOf(from);
  const newIgn = ignitionOf(to);
  if (osTouched)
    await ctx.os.cleanupPending().catch((e: unknown) => {
      throw rollbackFailed('error rolling back changes to OS', e, err);
    });
  try {
    await writeFiles(ctx.root, ctx.host, oldIgn.storage?.files ?? [], { skipCertificateWriterFiles: true });
    await writeUnits(ctx.root, ctx.host, oldIgn.systemd?.units ?? []);
    await deleteStaleData(ctx.root, ctx.host, newIgn, oldIgn);
    await writeSshKeys(ctx.root, oldIgn.passwd?.users ?? []);
  } catch (e) {
    throw rollbackFailed('error rolling back files writes', e, err);
  }
}

/**
 * upstream applyOSChanges: the OS part runs for any OS diff, and also when the new config stays on a realtime or 64k
 * kernel (rpm-ostree then only drops a pending deployment; OCPBUGS-4049).
 */
const osChanged = (d: MachineConfigDiff, newMc: MachineConfig): boolean =>
  d.changes.osUpdate ||
  d.changes.kargs ||
  d.changes.kernelType ||
  d.changes.extensions ||
  canonicalizeKernelType(newMc.spec?.kernelType) !== 'default';

/** The OSUpdateStarted text (applyOSChanges: a non-default kernel without diff gets its own wording). */
function osUpdateReason(d: MachineConfigDiff, newMc: MachineConfig): string {
  return (
    osChangesString(d) || `Updating to a target config with ${canonicalizeKernelType(newMc.spec?.kernelType)} kernel`
  );
}

/** The OS changes of a diff in upstream's words (update.go machineConfigDiff.osChangesString). */
export function osChangesString(d: MachineConfigDiff): string {
  const out: string[] = [];
  if (d.changes.osUpdate) out.push('Upgrading OS');
  if (d.changes.extensions) out.push('Installing extensions');
  if (d.changes.kernelType) out.push('Changing kernel type');
  if (d.changes.kargs) out.push('Changing kernel arguments');
  return out.join('; ');
}

/** Sets `state=Working` unless the node is Degraded/Unreconcilable (it stays so while retrying). */
async function markWorking(ctx: DaemonContext): Promise<void> {
  const c = ctx.cluster;
  if (!c) return;
  const state = c.source.current()?.metadata.annotations?.[NODE_ANNOTATIONS.state];
  if (state !== 'Degraded' && state !== 'Unreconcilable' && state !== 'Working')
    await c.writer.setAnnotations({ [NODE_ANNOTATIONS.state]: 'Working' });
  killPoint('after-state-working');
}

/**
 * isDrainRequiredForNodeDisruptionActions: Reboot/Drain actions drain; the registries.conf `Special` action drains
 * only when the change is not safe (a mirror or registry removed, …).
 */
function drainRequired(
  ctx: DaemonContext,
  diff: MachineConfigDiff,
  oldMc: MachineConfig,
  newMc: MachineConfig,
): boolean {
  if (diff.drainRequired) return true;
  const log = (msg: string): void => {
    ctx.logger.info(msg, { node: ctx.nodeName });
  };
  const drain = isDrainRequiredForNodeDisruptionActions(
    diff.nodeDisruptionActions,
    ignitionOf(oldMc),
    ignitionOf(newMc),
    log,
  );
  ctx.logger.info(`Drain calculated for node disruption: ${String(drain)} for config ${nameOf(newMc)}`, {
    node: ctx.nodeName,
  });
  return drain;
}

async function drainIfNeeded(
  ctx: DaemonContext,
  diff: MachineConfigDiff,
  oldMc: MachineConfig,
  newMc: MachineConfig,
  firstboot: boolean,
): Promise<void> {
  const c = ctx.cluster;
  if (!c || firstboot) return;
  const target = nameOf(newMc);
  if (!drainRequired(ctx, diff, oldMc, newMc) || isSingleNodeTopology(c.source.current())) {
    mcn.reportMcn(ctx, ...mcn.drainNotRequired());
    c.writer.event('Normal', 'Drain', 'Drain not required, skipping');
    return;
  }
  emit(ctx, 'draining', target);
  killPoint('after-drain-requested');
  await performDrainRequest(c.writer, c.source, 'drain', target, ctx.drainTimeouts, ctx.signal);
  killPoint('after-drain-complete');
}

/**
 * Moves the host from `oldMc` to `newMc`. Returns after requesting the reboot, or after the reboot-less actions
 * (the caller then uncordons and reports Done).
 */
export async function update(
  ctx: DaemonContext,
  oldMc: MachineConfig,
  newMc: MachineConfig,
  opts: UpdateOptions = {},
): Promise<UpdateResult> {
  const firstboot = opts.firstboot === true;
  const target = nameOf(newMc);
  killPoint('update-start');
  const force = await exists(ctx.root.resolve(FORCE_FILE_PATH));
  const diff = await computeUpdateDiff(ctx, oldMc, newMc, force).catch((e: unknown) => {
    if (e instanceof UnreconcilableError) mcn.reportMcn(ctx, mcn.updateNotCompatible(nameOf(oldMc), target, e.message));
    throw e;
  });
  if (!firstboot) mcn.reportMcn(ctx, mcn.updateCompatible(diff.legacyActions, diff.drainRequired));
  emit(ctx, 'updating', target);
  await markWorking(ctx);
  const reboot = firstboot ? isRebootAction(diff.legacyActions) : isRebootAction(diff.nodeDisruptionActions);
  await drainIfNeeded(ctx, diff, oldMc, newMc, firstboot);
  if (!firstboot)
    await writeJournal(ctx.root, {
      from: nameOf(oldMc),
      to: target,
      phase: 'applying',
      bootId: await ctx.host.bootId(),
    });
  killPoint('after-journal-written');
  emit(ctx, 'applying', target);
  let osTouched = false;
  const osNeeded = diff.changes.osUpdate || diff.changes.extensions || diff.changes.kernelType;
  mcn.reportMcn(ctx, ...mcn.applyingFilesAndOS(osNeeded, diff.changes.passwd));
  try {
    await applyFilesAndUsers(ctx, oldMc, newMc, diff, force, firstboot);
    if (osChanged(diff, newMc)) {
      osTouched = true;
      // upstream pkg/daemon/update.go applyOSChanges: OSUpdateStarted (osChangesString) … OSUpdateStaged
      // upstream RpmOstreeClient.RebaseLayered: re-link the merged pull secrets first (they may have changed since boot)
      await useMergedPullSecrets(ctx.root, ctx.logger).catch((e: unknown) => {
        throw new Error(`Error while ensuring access to pull secrets: ${(e as Error).message}`, { cause: e });
      });
      ctx.cluster?.writer.event('Normal', 'OSUpdateStarted', osUpdateReason(diff, newMc));
      await ctx.os.applyChanges(oldMc, newMc, { force }).catch((e: unknown) => {
        ctx.metrics?.pivotErrors.inc();
        throw e;
      });
      ctx.cluster?.writer.event('Normal', 'OSUpdateStaged', 'Changes to OS staged');
    }
    killPoint('after-os-changes');
    await atomicWrite(ctx.root.resolve(CURRENT_CONFIG_PATH), `${JSON.stringify(newMc)}\n`, { mode: 0o644 });
    killPoint('after-currentconfig-written');
    mcn.reportMcn(ctx, ...mcn.appliedFilesAndOS(osNeeded, diff.changes.passwd));
  } catch (e) {
    ctx.logger.error('update failed, rolling back', { node: ctx.nodeName, error: (e as Error).message });
    // a roll-back that fails throws and keeps the journal: the next start resumes the interrupted update
    await rollBack(ctx, oldMc, newMc, osTouched, e);
    await clearJournal(ctx.root);
    throw e;
  }
  if (reboot) {
    if (force) await fs.rm(ctx.root.resolve(FORCE_FILE_PATH), { force: true });
    await opts.beforeReboot?.();
    await rebootInto(
      ctx,
      nameOf(oldMc),
      target,
      firstboot ? `Completing firstboot provisioning to ${target}` : undefined,
    );
    return { rebooted: true, actions: ['Reboot'], diff };
  }
  const actions = firstboot
    ? await runLegacyAction(ctx.host, diff.legacyActions)
    : await runDisruptionActions(ctx.host, diff.nodeDisruptionActions);
  killPoint('rebootless-after-actions');
  mcn.reportMcn(ctx, mcn.postActionComplete(actions));
  if (ctx.cluster)
    ctx.cluster.writer.event(
      'Normal',
      'SkipReboot',
      `Config changes do not require reboot.${actions.length > 0 ? ` Service ${actions.join(', ')} was applied.` : ''}`,
    );
  return { rebooted: false, actions, diff };
}

/** Records the reboot (journal, post-config-action annotation) and asks the host to reboot. */
export async function rebootInto(ctx: DaemonContext, from: string, target: string, rationale?: string): Promise<void> {
  if (ctx.cluster) {
    await writeJournal(ctx.root, { from, to: target, phase: 'rebooting', bootId: await ctx.host.bootId() });
    const patched = await ctx.cluster.writer.setAnnotations({
      [NODE_ANNOTATIONS.postConfigAction]: POST_CONFIG_ACTION_REBOOTING,
    });
    killPoint('after-rebooting-annotation');
    ctx.cluster.writer.event('Normal', 'Reboot', `Node will reboot into config ${target}`);
    // the last moment an observer can learn what this boot did: write the MCN before the host goes down
    mcn.reportMcn(ctx, mcn.rebootRequired());
    await mcn.flushMcn(ctx, patched);
  }
  emit(ctx, 'rebooting', target);
  killPoint('before-reboot');
  if (ctx.skipReboot === true) {
    // upstream's --skip-reboot (pkg/daemon/update.go reboot: `if dn.skipReboot { return nil }`): the host keeps
    // running the old boot; whoever started the daemon reboots it
    ctx.logger.info('skipping reboot (--skip-reboot)', { node: ctx.nodeName, config: target });
    return;
  }
  try {
    await ctx.host.reboot(rationale ?? `Node will reboot into config ${target}`);
  } catch (e) {
    ctx.metrics?.rebootsFailed.inc();
    throw e;
  }
}
