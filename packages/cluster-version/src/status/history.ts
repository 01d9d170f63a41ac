/** ClusterVersion `status.history` (upstream pkg/cvo/status_history.go): merge of the current release and weighted pruning to 100 entries. */
import type { UpdateHistory } from '@keelson/api';

/** Most history entries kept. */
export const MAX_HISTORY = 100;

/** The release the worker is on and whether it finished. */
export interface HistoryUpdate {
  version: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
  completed: boolean;
  /** Keep the recorded acceptedRisks (local payload). */
  local?: boolean;
}

/**
 * Records `u` in `history` (newest first): the same image (or same version without image) updates history[0]
 * (Completed sets completionTime once); otherwise history[0] is closed and a Partial entry prepended.
 */
export function mergeHistory(history: readonly UpdateHistory[], u: HistoryUpdate, now: string): UpdateHistory[] {
  if (u.image === '') return [...history];
  const out = history.map((h) => ({ ...h }));
  const top = out[0];
  if (top && (top.image === u.image || (top.image === '' && top.version === u.version))) {
    if (u.version !== '') top.version = u.version;
    top.image = u.image;
    top.verified = top.verified || u.verified;
    if (!u.local && u.acceptedRisks !== undefined && u.acceptedRisks !== '') top.acceptedRisks = u.acceptedRisks;
    if (u.completed) {
      top.state = 'Completed';
      top.completionTime ??= now;
    }
  } else {
    if (top) top.completionTime ??= now;
    const entry: UpdateHistory = {
      state: u.completed ? 'Completed' : 'Partial',
      startedTime: now,
      completionTime: u.completed ? now : null,
      version: u.version,
      image: u.image,
      verified: u.verified,
    };
    if (u.acceptedRisks !== undefined && u.acceptedRisks !== '') entry.acceptedRisks = u.acceptedRisks;
    out.unshift(entry);
  }
  return pruneHistory(out);
}

function minor(v: string): string {
  const m = /^(\d+)\.(\d+)/.exec(v);
  return m ? `${m[1]}.${m[2]}` : v;
}

/**
 * Keeps at most {@link MAX_HISTORY} entries: the initial entry, the 5 newest, the most recent Completed and the
 * first/last Completed of each minor are kept; among the rest, Partial z-stream entries are dropped first, then oldest.
 */
export function pruneHistory(history: UpdateHistory[]): UpdateHistory[] {
  if (history.length <= MAX_HISTORY) return history;
  const keep = new Set<number>([history.length - 1, 0, 1, 2, 3, 4]);
  const firstCompleted = history.findIndex((h) => h.state === 'Completed');
  if (firstCompleted >= 0) keep.add(firstCompleted);
  const perMinor = new Map<string, number[]>();
  history.forEach((h, i) => {
    if (h.state !== 'Completed') return;
    const k = minor(h.version ?? '');
    perMinor.set(k, [...(perMinor.get(k) ?? []), i]);
  });
  for (const idx of perMinor.values()) {
    keep.add(idx[0] ?? 0);
    keep.add(idx[idx.length - 1] ?? 0);
  }
  const candidates = history.map((h, i) => ({ h, i })).filter(({ i }) => !keep.has(i));
  // Drop Partial entries first, oldest first, then Completed ones oldest first.
  candidates.sort((a, b) => (a.h.state === b.h.state ? b.i - a.i : a.h.state === 'Partial' ? -1 : 1));
  const drop = new Set(candidates.slice(0, history.length - MAX_HISTORY).map((c) => c.i));
  return history.filter((_, i) => !drop.has(i));
}
