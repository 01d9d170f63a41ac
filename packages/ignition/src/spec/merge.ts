import { IgnitionMergeError, MAX_DEPTH, tooDeep, withoutProtoKeys } from './errors.js';
import { STRUCTS, itemKey, type FieldShape, type StructName } from './shape.js';
import type { IgnitionConfigV3, JsonPath } from './types.js';

type Obj = Record<string, unknown>;

/** One transcript mapping: the result field `to` came from `from` (tag `parent` or `child` first). */
export interface MergeMapping {
  from: JsonPath;
  to: JsonPath;
}

/** Result of {@link mergeWithTranscript}. */
export interface MergeResult {
  result: IgnitionConfigV3;
  transcript: MergeMapping[];
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function asObj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Go zero value check for a non-pointer primitive. */
function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === 0 || v === false;
}

class Merger {
  readonly transcript: MergeMapping[] = [];
  /** The caller owns both inputs: subtrees are moved into the result, never copied. */
  constructor(private readonly record: boolean) {}

  private add(from: JsonPath, to: JsonPath): void {
    if (this.record) this.transcript.push({ from: [...from], to: [...to] });
  }

  /** `path` extended by `seg`; paths only feed the transcript, so they are not built when not recording. */
  private at(path: JsonPath, seg: string | number): JsonPath {
    return this.record ? [...path, seg] : path;
  }

  /**
   * Records every populated leaf of a subtree taken wholesale; returns whether anything was recorded
   * (always false when not recording: mergeStruct ignores the answer, only the recursion below uses it).
   */
  transcribe(
    from: JsonPath,
    to: JsonPath,
    value: unknown,
    shape: FieldShape | { kind: 'item'; item: StructName | 'string' },
  ): boolean {
    if (!this.record) return false;
    switch (shape.kind) {
      case 'val':
        if (isZero(value)) return false;
        this.add(from, to);
        return true;
      case 'ptr':
        if (value === undefined || value === null) return false;
        this.add(from, to);
        return true;
      case 'struct':
        return this.transcribeStruct(from, to, value, shape.struct, true);
      case 'item':
        if (shape.item === 'string') {
          if (isZero(value)) return false;
          this.add(from, to);
          return true;
        }
        return this.transcribeStruct(from, to, value, shape.item, true);
      case 'list': {
        let any = false;
        asList(value).forEach((item, i) => {
          any = this.transcribe([...from, i], [...to, i], item, { kind: 'item', item: shape.item }) || any;
        });
        if (any) this.add(from, to);
        return any;
      }
    }
  }

  private transcribeStruct(
    from: JsonPath,
    to: JsonPath,
    value: unknown,
    struct: StructName,
    visible: boolean,
  ): boolean {
    const o = asObj(value);
    let any = false;
    for (const [name, shape] of STRUCTS[struct]) {
      any = this.transcribe([...from, name], [...to, name], o[name], shape) || any;
    }
    if (any && visible) this.add(from, to);
    return any;
  }

  /** Go's reflect IsZero for a struct value held as JSON. */
  isZeroStruct(struct: StructName, v: unknown): boolean {
    const o = asObj(v);
    for (const [name, shape] of STRUCTS[struct]) {
      const x = o[name];
      switch (shape.kind) {
        case 'val':
          if (!isZero(x)) return false;
          break;
        case 'ptr':
          if (x !== undefined && x !== null) return false;
          break;
        case 'struct':
          if (!this.isZeroStruct(shape.struct, x)) return false;
          break;
        case 'list':
          if (asList(x).length > 0) return false;
      }
    }
    return true;
  }

  mergeStruct(struct: StructName, parent: Obj, child: Obj, pp: JsonPath, cp: JsonPath, rp: JsonPath): Obj {
    const result: Obj = {};
    const fields = STRUCTS[struct];
    const childIndex = indexChildLists(fields, child);
    // Keys unknown to every 3.x version are carried over (child wins); validation reports them.
    for (const k of Object.keys(parent)) if (!fields.some(([n]) => n === k)) result[k] = parent[k];
    for (const k of Object.keys(child)) if (!fields.some(([n]) => n === k)) result[k] = child[k];

    for (const [name, shape] of fields) {
      const pv = parent[name];
      const cv = child[name];
      const at: FieldPaths = { pf: this.at(pp, name), cf: this.at(cp, name), rf: this.at(rp, name) };
      switch (shape.kind) {
        case 'val':
          if (cv !== undefined && cv !== null) result[name] = cv;
          this.transcribe(at.cf, at.rf, cv, shape);
          break;
        case 'ptr':
          if (cv === undefined || cv === null) {
            if (pv !== undefined && pv !== null) result[name] = pv;
            this.transcribe(at.pf, at.rf, pv, shape);
          } else {
            result[name] = cv;
            this.transcribe(at.cf, at.rf, cv, shape);
          }
          break;
        case 'struct':
          this.mergeStructField(result, name, shape.struct, pv, cv, at);
          break;
        case 'list': {
          const out = shape.ignoreDups
            ? this.concatList(shape.item, asList(pv), asList(cv), at)
            : this.mergeKeyedList(name, shape, asList(pv), asList(cv), childIndex.get(shape.handle ?? name), at);
          // Go's omitempty drops a list emptied by kind changes
          if (out !== undefined && (shape.ignoreDups || out.length > 0)) result[name] = out;
          break;
        }
      }
    }
    return result;
  }

  /** A struct field: the non-zero side wins whole; two non-zero sides merge field by field. */
  private mergeStructField(result: Obj, name: string, struct: StructName, pv: unknown, cv: unknown, at: FieldPaths) {
    const shape: FieldShape = { kind: 'struct', struct };
    if (this.isZeroStruct(struct, cv)) {
      if (isObj(pv) && !this.isZeroStruct(struct, pv)) result[name] = pv;
      else if (isObj(cv)) result[name] = cv;
      else if (isObj(pv)) result[name] = pv;
      this.transcribe(at.pf, at.rf, pv, shape);
    } else if (this.isZeroStruct(struct, pv)) {
      result[name] = cv;
      this.transcribe(at.cf, at.rf, cv, shape);
    } else {
      result[name] = this.mergeStruct(struct, asObj(pv), asObj(cv), at.pf, at.cf, at.rf);
      this.add(at.pf, at.rf);
      this.add(at.cf, at.rf);
    }
  }

  /** A list whose duplicates are kept (`ignoreDups`): the parent's entries, then the child's. */
  private concatList(item: StructName | 'string', pl: unknown[], cl: unknown[], at: FieldPaths): unknown[] | undefined {
    if (pl.length + cl.length === 0) return undefined;
    const out: unknown[] = [];
    const itemShape = { kind: 'item', item } as const;
    pl.forEach((x, i) => {
      out.push(x);
      this.transcribe(this.at(at.pf, i), this.at(at.rf, i), x, itemShape);
    });
    cl.forEach((x, i) => {
      out.push(x);
      this.transcribe(this.at(at.cf, i), this.at(at.rf, pl.length + i), x, itemShape);
    });
    if (pl.length > 0) this.add(at.pf, at.rf);
    if (cl.length > 0) this.add(at.cf, at.rf);
    return out;
  }

  /**
   * A keyed list: each parent entry in place, merged with (or replaced by) the child entry of its key; then the child
   * entries no parent entry had.
   */
  private mergeKeyedList(
    name: string,
    shape: Extract<FieldShape, { kind: 'list' }>,
    pl: unknown[],
    cl: unknown[],
    hits: Map<string, ChildEntry> | undefined,
    at: FieldPaths,
  ): unknown[] | undefined {
    if (pl.length + cl.length === 0) return undefined;
    const out: unknown[] = [];
    const itemShape = { kind: 'item', item: shape.item } as const;
    // Child entries whose key a parent entry of this list has were merged into it (or dropped).
    const childKeys = new Set(cl.map((item) => itemKey(shape.item, item)));
    const parentKeys = new Set<string>();
    let fromParent = false;
    let fromChild = false;
    pl.forEach((pItem, i) => {
      const key = itemKey(shape.item, pItem);
      if (childKeys.has(key)) parentKeys.add(key);
      const hit = hits?.get(key);
      const rItem = this.at(at.rf, out.length);
      if (!hit) {
        out.push(pItem);
        this.transcribe(this.at(at.pf, i), rItem, pItem, itemShape);
        fromParent = true;
        return;
      }
      if (hit.list !== name) return; // same key in a sibling list of the same key space
      fromParent = true;
      fromChild = true;
      this.mergeListEntry(shape.item, pItem, hit, out, {
        pf: this.at(at.pf, i),
        cf: this.at(at.cf, hit.index),
        rf: rItem,
      });
    });
    cl.forEach((cItem, i) => {
      if (parentKeys.has(itemKey(shape.item, cItem))) return;
      const rItem = this.at(at.rf, out.length);
      out.push(cItem);
      this.transcribe(this.at(at.cf, i), rItem, cItem, itemShape);
      fromChild = true;
    });
    if (fromParent) this.add(at.pf, at.rf);
    if (fromChild) this.add(at.cf, at.rf);
    return out;
  }

  /** A parent entry and the child entry of the same key: strings are replaced, structs merged. */
  private mergeListEntry(item: StructName | 'string', pItem: unknown, hit: ChildEntry, out: unknown[], at: FieldPaths) {
    if (item === 'string') {
      out.push(hit.item);
      this.transcribe(at.cf, at.rf, hit.item, { kind: 'item', item });
      return;
    }
    if (item === 'HTTPHeader') {
      const v = asObj(hit.item)['value'];
      if (v === undefined || v === null) return; // header without value removes the parent's
    }
    out.push(this.mergeStruct(item, asObj(pItem), asObj(hit.item), at.pf, at.cf, at.rf));
    this.add(at.pf, at.rf);
    this.add(at.cf, at.rf);
  }
}

/** The paths of one field in the parent, the child and the result (transcript only). */
interface FieldPaths {
  pf: JsonPath;
  cf: JsonPath;
  rf: JsonPath;
}

/** A child list entry: the list it is in, its index there, the entry. */
interface ChildEntry {
  list: string;
  index: number;
  item: unknown;
}

/** Child list entries by handle, then key (last one wins, as upstream's map does). */
function indexChildLists(fields: readonly [string, FieldShape][], child: Obj): Map<string, Map<string, ChildEntry>> {
  const childIndex = new Map<string, Map<string, ChildEntry>>();
  for (const [name, shape] of fields) {
    if (shape.kind !== 'list' || shape.ignoreDups) continue;
    const handle = shape.handle ?? name;
    let byKey = childIndex.get(handle);
    if (!byKey) childIndex.set(handle, (byKey = new Map<string, ChildEntry>()));
    const index = byKey;
    asList(child[name]).forEach((item, i) => {
      index.set(itemKey(shape.item, item), { list: name, index: i, item });
    });
  }
  return childIndex;
}

function checkInput(c: unknown, which: string): Obj {
  if (!isObj(c)) throw new IgnitionMergeError(`${which} config must be a JSON object`, []);
  const deep = tooDeep(c);
  if (deep) throw new IgnitionMergeError(`${which} config nests deeper than ${MAX_DEPTH} levels`, deep.slice(0, 8));
  const version = asObj(c['ignition'])['version'];
  if (typeof version === 'string' && version.startsWith('2.')) {
    throw new IgnitionMergeError(
      `${which} config is spec ${version}: merge works on spec 3.x configs; translate it to 3.x first`,
      ['ignition', 'version'],
    );
  }
  return c;
}

/**
 * Merges `child` onto `parent` with coreos/ignition `config/merge` semantics: structs merge field by
 * field; value fields take the child's value; optional fields take the child's value when set; keyed
 * lists merge entries with the same key and append the rest; `storage.files/directories/links` share
 * one `path` key space (a child entry replaces a parent entry of another kind); `append`, filesystem
 * `options`/`mountOptions`, luks and raid `options` are plainly concatenated; an HTTP header without a
 * value in the child deletes the parent's header. Inputs are not modified.
 */
export function merge(parent: IgnitionConfigV3, child: IgnitionConfigV3): IgnitionConfigV3 {
  const p = checkInput(parent, 'parent');
  const c = checkInput(child, 'child');
  return mergeOwned(withoutProtoKeys(p), withoutProtoKeys(c));
}

/** Like {@link merge}, also returning upstream's transcript (which input each result field came from). */
export function mergeWithTranscript(parent: IgnitionConfigV3, child: IgnitionConfigV3): MergeResult {
  const p = checkInput(parent, 'parent');
  const c = checkInput(child, 'child');
  const m = new Merger(true);
  const result = m.mergeStruct(
    'Config',
    withoutProtoKeys(p),
    withoutProtoKeys(c),
    ['parent'],
    ['child'],
    ['result'],
  ) as IgnitionConfigV3;
  return { result, transcript: m.transcript };
}

/**
 * {@link merge} on inputs the caller owns (for `@keelson/machineconfig`'s render loop). Nothing is copied: the
 * result shares structure with both inputs, which must not be used afterwards except through the result.
 * Only `child` is checked (depth, spec 2.x refusal); `parent` is expected to be an earlier result or a
 * checked config. Used by the MachineConfig render loop, which merges 200 freshly parsed configs in turn.
 */
export function mergeOwned(parent: IgnitionConfigV3, child: IgnitionConfigV3): IgnitionConfigV3 {
  const c = checkInput(child, 'child');
  return new Merger(false).mergeStruct('Config', parent as Obj, c, ['parent'], ['child'], ['result']);
}
