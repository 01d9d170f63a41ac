/** Text rendering of an {@link UpgradePlan} for `keelson upgrade plan`. */
import type { UpgradePlan } from './compute-plan.js';

/** `1h 2m 3s` style duration. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', r > 0 || s === 0 ? `${r}s` : ''].filter((x) => x !== '').join(' ');
}

const ACTION_TEXT: Readonly<Record<string, string>> = {
  reboot: 'drain and reboot every node',
  drain: 'drain every node, no reboot',
  'restart-services': 'apply in place (no drain, no reboot)',
  none: 'nothing to do',
};

/** Renders the plan as the human-readable report. */
export function formatPlan(plan: UpgradePlan): string {
  const out: string[] = [];
  out.push(`Update ${plan.from} -> ${plan.to}`, '');
  out.push('Preconditions:');
  for (const p of plan.preconditions) {
    const state = p.state === 'Failed' ? (p.warning === true ? 'Warning' : 'Blocking') : p.state;
    out.push(`  ${p.name}: ${state}${p.reason !== undefined ? ` (${p.reason})` : ''}${p.message !== undefined ? `: ${p.message.replace(/\n+/g, ' ')}` : ''}`);
  }
  if (plan.signature !== undefined) out.push(`  Release signature: ${plan.signature.verified ? 'verified' : 'NOT verified'}: ${plan.signature.detail}`);
  if (plan.risks.length > 0) {
    out.push('', 'Update graph risks (conditional updates from the current version):');
    for (const r of plan.risks) out.push(`  ${r.version}: ${r.recommended === undefined ? 'not evaluated' : `Recommended=${r.recommended.status} ${r.recommended.reason}: ${r.recommended.message}`}`);
  }
  const m = plan.manifests;
  out.push('', `Manifests: ${m.changed.length} changed, ${m.added.length} added, ${m.removed.length} no longer in the release, ${m.deleted.length} deleted by the CVO, ${m.unchanged} unchanged; ${plan.images.changed} images change`);
  for (const c of m.changed.slice(0, 20)) out.push(`  ~ ${c.kind} ${c.name} (${c.file}): ${c.paths.slice(0, 4).join(', ')}${c.paths.length > 4 ? ', ...' : ''}`);
  if (m.changed.length > 20) out.push(`  ... ${m.changed.length - 20} more changed`);
  for (const x of m.added) out.push(`  + ${x.kind} ${x.name} (${x.file})`);
  for (const x of m.deleted) out.push(`  - ${x.kind} ${x.name} (${x.file}, release.openshift.io/delete)`);
  for (const x of m.removed) out.push(`  ? ${x.kind} ${x.name} (${x.file}: no longer shipped; left on the cluster)`);
  for (const o of plan.images.os) out.push(`  OS image ${o.name}: ${o.from ?? '-'} -> ${o.to ?? '-'}`);
  out.push('', 'Run levels in the order the CVO applies them (operators it waits for):');
  for (const l of plan.runLevels) {
    const ops = l.operators.map((o) => `${o.name} ${o.from ?? '?'}->${o.to ?? '?'}`).join(', ');
    out.push(`  ${l.level.padEnd(7)} ${String(l.manifests).padStart(4)} manifests${ops !== '' ? `  ${ops}` : ''}`);
  }
  out.push('', 'Machine config pools:');
  for (const p of plan.pools) {
    out.push(`  ${p.name}: ${p.nodes} nodes, maxUnavailable ${p.maxUnavailable}${p.paused ? ', PAUSED (holds the update until unpaused)' : ''}`);
    out.push(`    ${p.from ?? '(none)'} -> ${p.to ?? '(none)'}: ${ACTION_TEXT[p.action] ?? p.action}${p.disruptionActions.length > 0 ? ` [${p.disruptionActions.join(', ')}]` : ''}`);
    if (p.changes.length > 0) out.push(`    changes: ${p.changes.join(', ')}`);
    if (p.kargs !== undefined) out.push(`    rpm-ostree kargs ${p.kargs.join(' ')}`);
    if (p.error !== undefined) out.push(`    note: ${p.error}`);
    out.push(`    estimated rollout: ${formatDuration(p.estimatedSeconds)} (${p.batches} batch${p.batches === 1 ? '' : 'es'})`);
  }
  out.push('', `Estimated node rollout (pools in parallel): ${formatDuration(plan.estimatedSeconds)}`);
  for (const n of plan.notes) out.push(`Note: ${n}`);
  return `${out.join('\n')}\n`;
}
