/**
 * Injected kill points for crash-safety tests: when the environment variable `MCD_KILL_AT` names a step, the
 * process kills itself with SIGKILL on reaching it (optionally on its N-th occurrence: `step@N`). Without the
 * variable this is a no-op; nothing else in the daemon behaves differently under test.
 */

/** Every step of an update at which a daemon may be killed (the crash-safety test iterates over them). */
export const KILL_POINTS = [
  'update-start',
  'after-state-working',
  'after-drain-requested',
  'after-drain-complete',
  'after-journal-written',
  'before-file-write',
  'file-temp-written',
  'after-orig-backup',
  'after-file-renamed',
  'after-files-written',
  'after-units-written',
  'after-units-enabled',
  'after-stale-deleted',
  'after-ssh-keys',
  'after-passwords',
  'after-os-changes',
  'after-currentconfig-written',
  'after-rebooting-annotation',
  'before-reboot',
  'boot-before-validate',
  'boot-after-uncordon-requested',
  'boot-after-done',
  'rebootless-after-actions',
] as const;

/** One kill point. */
export type KillPoint = (typeof KILL_POINTS)[number];

const counters = new Map<string, number>();

/** Dies with SIGKILL when `MCD_KILL_AT` selects this step (see module doc). */
export function killPoint(step: KillPoint): void {
  const spec = process.env['MCD_KILL_AT'];
  if (spec === undefined || spec === '') return;
  const [name, nth] = spec.split('@');
  if (name !== step) return;
  const seen = (counters.get(step) ?? 0) + 1;
  counters.set(step, seen);
  if (seen < Number(nth ?? '1')) return;
  process.kill(process.pid, 'SIGKILL');
}
