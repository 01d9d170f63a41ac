/**
 * Text rendering of an {@link UpgradePlan} for `keelson upgrade plan`, in the manner of `oc adm upgrade`: condition
 * blocks with `Reason:` / `Message:`, the update service's `Recommended updates` table and `Updates with known issues`,
 * and tab-aligned tables for preconditions, run levels and pools.
 */
import { compareVersionsDescending, indent, tabulate } from '../upgrade/text.js';
import type { UpgradePlan } from './compute-plan.js';
import type { PoolPlan } from './pools.js';

/** `1h 2m 3s` style duration. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', r > 0 || s === 0 ? `${r}s` : '']
    .filter((x) => x !== '')
    .join(' ');
}

const ACTION_TEXT: Readonly<Record<string, string>> = {
  reboot: 'drain and reboot',
  drain: 'drain, no reboot',
  'restart-services': 'apply in place',
  none: 'nothing',
};

/** Rows aligned like oc's tables, indented two spaces. */
const table = (rows: readonly (readonly string[])[]): string[] =>
  tabulate(
    rows.map((r) => [`  ${r[0] ?? ''}`, ...r.slice(1)]),
    0,
    3,
  ).map((l) => l.trimEnd());

function verdictBlock(plan: UpgradePlan, out: string[]): void {
  const a = plan.acceptance;
  const unless =
    a.notEvaluated !== undefined
      ? ` if ${a.notEvaluated.join(' and ')} ${a.notEvaluated.length === 1 ? 'passes' : 'pass'} (not evaluated)`
      : '';
  if (a.verdict === 'Blocked') {
    out.push(
      'The cluster-version operator would refuse this update:',
      '',
      'ReleaseAccepted=False',
      '',
      `  Reason: ${a.reason ?? ''}`,
      `  Message: ${indent(a.message)}`,
      '',
    );
    return;
  }
  if (a.verdict === 'AcceptedWithRisks') {
    out.push(
      `The cluster-version operator would accept this update${unless}, recording these risks in history[0].acceptedRisks:`,
      '',
      `  ${indent(a.message)}`,
      '',
    );
    return;
  }
  out.push(`The cluster-version operator would accept this update${unless}.`, '');
}

function preconditionBlock(plan: UpgradePlan, out: string[]): void {
  out.push('Preconditions:', '');
  const result = (p: UpgradePlan['preconditions'][number]): string =>
    p.state === 'Failed' ? (p.warning === true ? 'Warning' : 'Blocking') : p.state;
  const rows = [['NAME', 'RESULT', 'REASON'], ...plan.preconditions.map((p) => [p.name, result(p), p.reason ?? ''])];
  if (plan.signature !== undefined)
    rows.push(['ReleaseSignature', plan.signature.verified ? 'Verified' : 'NotVerified', '']);
  out.push(...table(rows));
  for (const p of plan.preconditions)
    if (p.message !== undefined && p.state !== 'Passed')
      out.push('', `  ${p.name}:`, `    ${indent(indent(p.message))}`);
  if (plan.signature !== undefined) out.push('', '  ReleaseSignature:', `    ${plan.signature.detail}`);
  out.push('');
}

function operatorsBlock(plan: UpgradePlan, out: string[]): void {
  const ops = plan.operatorsNotUpgradeable ?? [];
  if (ops.length === 0) return;
  out.push('Cluster operators reporting Upgradeable=False (they block minor updates):', '');
  out.push(
    ...table([['NAME', 'REASON', 'MESSAGE'], ...ops.map((o) => [o.name, o.reason, o.message.split('\n')[0] ?? ''])]),
    '',
  );
}

function adminAcksBlock(plan: UpgradePlan, out: string[]): void {
  const acks = plan.adminAcks;
  if (acks === undefined) return;
  out.push(
    'Administrator acknowledgements this minor update needs (Upgradeable=False AdminAckRequired until given):',
    '',
  );
  for (const a of acks.pending) out.push(`  ${a.gate}:`, `    ${indent(indent(a.description))}`);
  out.push('', 'Acknowledge with:', '', `  ${acks.patch}`, '');
}

/** The capabilities B enables implicitly, in the words of the CVO's ImplicitlyEnabledCapabilities condition. */
function capabilitiesBlock(plan: UpgradePlan, out: string[]): void {
  const caps = plan.implicitlyEnabledCapabilities;
  if (caps === undefined) return;
  out.push(
    `Capabilities enabled implicitly by ${plan.to} (ClusterVersion ImplicitlyEnabledCapabilities=True CapabilitiesImplicitlyEnabled):`,
    `  The following capabilities could not be disabled: ${caps.join(', ')}`,
    '',
  );
}

function updatesBlock(plan: UpgradePlan, out: string[]): void {
  const u = plan.updates;
  if (u === undefined) return;
  out.push(`Upstream: ${u.upstream}`, `Channel: ${u.channel}`, '');
  const recommended = [...u.recommended].sort((a, b) => compareVersionsDescending(a.version, b.version));
  if (recommended.length > 0) {
    out.push('Recommended updates:', '');
    out.push(...tabulate([['  VERSION', 'IMAGE'], ...recommended.map((r) => [`  ${r.version}`, r.image])], 14, 1), '');
  } else out.push('No updates available.', '');
  const risky = u.conditional
    .filter((c) => c.recommended?.status !== 'True')
    .sort((a, b) => compareVersionsDescending(a.version, b.version));
  if (risky.length === 0) return;
  out.push('Updates with known issues:');
  for (const c of risky) {
    out.push('', `  Version: ${c.version}`, `  Image: ${c.image}`);
    if (c.recommended === undefined) out.push('  Reason: (not evaluated)');
    else
      out.push(
        `  Recommended: ${c.recommended.status}`,
        `  Reason: ${c.recommended.reason}`,
        `  Message: ${indent(c.recommended.message.trim())}`,
      );
  }
  out.push('');
}

function manifestsBlock(plan: UpgradePlan, out: string[]): void {
  const m = plan.manifests;
  out.push(
    `Manifests: ${m.changed.length} changed, ${m.added.length} added, ${m.removed.length} no longer in the release, ${m.deleted.length} deleted by the CVO, ${m.unchanged} unchanged; ${plan.images.changed} images change`,
  );
  for (const c of m.changed.slice(0, 20))
    out.push(
      `  ~ ${c.kind} ${c.name} (${c.file}): ${c.paths.slice(0, 4).join(', ')}${c.paths.length > 4 ? ', ...' : ''}`,
    );
  if (m.changed.length > 20) out.push(`  ... ${m.changed.length - 20} more changed`);
  for (const x of m.added) out.push(`  + ${x.kind} ${x.name} (${x.file})`);
  for (const x of m.deleted) out.push(`  - ${x.kind} ${x.name} (${x.file}, release.openshift.io/delete)`);
  for (const x of m.removed) out.push(`  ? ${x.kind} ${x.name} (${x.file}: no longer shipped; left on the cluster)`);
  for (const o of plan.images.os) out.push(`  OS image ${o.name}: ${o.from ?? '-'} -> ${o.to ?? '-'}`);
  out.push('');
}

function runLevelBlock(plan: UpgradePlan, out: string[]): void {
  out.push('Run levels in the order the CVO applies them:', '');
  const rows = [
    ['RUN LEVEL', 'MANIFESTS', 'CLUSTER OPERATORS (waited for)'],
    ...plan.runLevels.map((l) => [
      l.level,
      String(l.manifests),
      l.operators.map((o) => `${o.name} ${o.from ?? '?'}->${o.to ?? '?'}`).join(', '),
    ]),
  ];
  out.push(...table(rows), '');
}

function poolDetails(p: PoolPlan, out: string[]): void {
  out.push(
    `  ${p.name}: ${p.from ?? '(none)'} -> ${p.to ?? '(none)'}${p.disruptionActions.length > 0 ? ` [${p.disruptionActions.join(', ')}]` : ''}`,
  );
  if (p.paused) out.push('    PAUSED: holds the update until unpaused');
  if (p.changes.length > 0) out.push(`    changes: ${p.changes.join(', ')}`);
  if (p.steps.length > 0) {
    out.push('    on each node, in order:');
    p.steps.forEach((step, i) => out.push(`      ${i + 1}. ${step}`));
  }
  if (p.error !== undefined) out.push(`    note: ${p.error}`);
  const c = p.cluster;
  if (c !== undefined) {
    const machines =
      c.machines === undefined
        ? ''
        : `; ${c.machines.updated} updated, ${c.machines.ready} ready, ${c.machines.unavailable} unavailable, ${c.machines.degraded} degraded`;
    out.push(
      `    cluster: targets ${c.current} (${c.fromMatchesCluster ? "matches the current release's render" : "differs from the current release's render: the plan's starting point is not exactly the cluster's"})${machines}`,
    );
  }
}

function poolsBlock(plan: UpgradePlan, out: string[]): void {
  out.push('Machine config pools:', '');
  const rows = [
    ['POOL', 'NODES', 'MAXUNAVAILABLE', 'PAUSED', 'NODE ACTION', 'BATCHES', 'ESTIMATE'],
    ...plan.pools.map((p) => [
      p.name,
      String(p.nodes),
      String(p.maxUnavailable),
      String(p.paused),
      ACTION_TEXT[p.action] ?? p.action,
      String(p.batches),
      formatDuration(p.estimatedSeconds),
    ]),
  ];
  out.push(...table(rows), '');
  for (const p of plan.pools) poolDetails(p, out);
  out.push('', `Estimated node rollout (pools in parallel): ${formatDuration(plan.estimatedSeconds)}`);
}

/** Renders the plan as the human-readable report. */
export function formatPlan(plan: UpgradePlan): string {
  const out: string[] = [];
  out.push(
    `Update ${plan.from} -> ${plan.to} (${plan.toImage}), judged from ${plan.basis === 'cluster' ? 'the live cluster' : `release ${plan.from} (no cluster)`}`,
    '',
  );
  verdictBlock(plan, out);
  preconditionBlock(plan, out);
  operatorsBlock(plan, out);
  adminAcksBlock(plan, out);
  capabilitiesBlock(plan, out);
  updatesBlock(plan, out);
  manifestsBlock(plan, out);
  runLevelBlock(plan, out);
  poolsBlock(plan, out);
  for (const n of plan.notes) out.push(`Note: ${n}`);
  return `${out.join('\n')}\n`;
}
