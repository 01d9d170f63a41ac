/**
 * The open watches by group/resource, and within one by the object name a `metadata.name=<name>` field selector
 * pins them to, so that a change is matched only against the watches that can want it. A rehearsal of N nodes opens
 * N watches of Nodes selected by name (one per daemon) among thousands of watches of other kinds: matching each
 * change against every open watch made each write cost O(watches), and a node update O(N).
 */
import type { Watcher } from './cluster.js';

interface ByResource {
  /** Watches of the resource not pinned to one name. */
  readonly any: Set<Watcher>;
  /** Watches pinned to one name, by that name. */
  readonly byName: Map<string, Set<Watcher>>;
}

/** The name a watch is pinned to by its field selector (`metadata.name=<name>`), if any. */
export function pinnedName(w: Pick<Watcher, 'fields'>): string | undefined {
  for (const f of w.fields) if (f.path === 'metadata.name' && !f.negate) return f.value;
  return undefined;
}

/** Open watches, indexed (see the module comment). */
export class WatcherIndex {
  readonly #byGr = new Map<string, ByResource>();
  #size = 0;

  /** Number of open watches. */
  get size(): number {
    return this.#size;
  }

  /** Adds a watch; returns the function that removes it (idempotent). */
  add(w: Watcher): () => void {
    let r = this.#byGr.get(w.gr);
    if (r === undefined) this.#byGr.set(w.gr, (r = { any: new Set(), byName: new Map() }));
    const name = pinnedName(w);
    let set = r.any;
    if (name !== undefined) {
      let s = r.byName.get(name);
      if (s === undefined) r.byName.set(name, (s = new Set()));
      set = s;
    }
    set.add(w);
    this.#size++;
    return () => {
      if (!set.delete(w)) return;
      this.#size--;
      if (name !== undefined && set.size === 0 && r.byName.get(name) === set) r.byName.delete(name);
    };
  }

  /**
   * The watches of `gr` that a change of the object named `name` (before and after: the same name) can concern: the
   * unpinned ones, then those pinned to that name. Each is still to be matched in full (namespace, labels, fields).
   */
  *candidates(gr: string, name: string | undefined): Generator<Watcher> {
    const r = this.#byGr.get(gr);
    if (r === undefined) return;
    yield* r.any;
    if (name === undefined) return;
    const pinned = r.byName.get(name);
    if (pinned !== undefined) yield* pinned;
  }
}

/** Index of the first event with `rv > from` in `history[start..]` (sorted by rv); `history.length` when none. */
export function firstAfter(history: readonly { rv: number }[], start: number, from: number): number {
  let lo = start;
  let hi = history.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((history[mid] as { rv: number }).rv <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
