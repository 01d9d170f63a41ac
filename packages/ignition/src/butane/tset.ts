/** Translation sets (coreos/butane translate.TranslationSet): which YAML path each output path came from. */
import type { CPath } from './decode.js';
import { snake } from './schema.js';

const key = (p: CPath): string => p.join('\u0000');

/** Output (JSON) path -> source (YAML) path. */
export class TranslationSet {
  readonly set = new Map<string, CPath>();

  add(from: CPath, to: CPath): void {
    this.set.set(key(to), from);
  }

  get(to: CPath): CPath | undefined {
    return this.set.get(key(to));
  }

  /** Adds `from` for `to` and every path inside `value` (upstream `AddFromCommonSource`). */
  addFromCommonSource(from: CPath, to: CPath, value: unknown): void {
    this.add(from, to);
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        this.addFromCommonSource(from, [...to, Array.isArray(value) ? Number(k) : k], v);
      }
    }
  }

  /** Moves every translation whose output path is under `from` to the same place under `to`. */
  moveOutput(from: CPath, to: CPath): void {
    const pre = key(from);
    for (const [k, src] of [...this.set]) {
      if (k !== pre && !k.startsWith(`${pre}\u0000`)) continue;
      this.set.delete(k);
      this.set.set(key(to) + k.slice(pre.length), src);
    }
  }

  /** Maps an output path back to YAML space; unmapped paths are snake-cased (upstream's fallback). */
  toYaml(to: CPath): CPath {
    return this.get(to) ?? to.map((e) => (typeof e === 'string' ? snake(e) : e));
  }
}

/** Upstream `MergeTranslatedConfigs`: maps both sets through a merge transcript, preferring the child. */
export function mergeSets(
  transcript: readonly { from: CPath; to: CPath }[],
  parent: TranslationSet,
  child: TranslationSet,
): TranslationSet {
  const out = new TranslationSet();
  for (const m of transcript) {
    const [tag, ...fromPath] = m.from;
    const [, ...toPath] = m.to;
    const left = tag === 'child' ? child : parent;
    const hit = left.get(fromPath);
    if (!hit) continue;
    if (out.get(toPath) && tag !== 'child') continue;
    out.add(hit, toPath);
  }
  return out;
}
