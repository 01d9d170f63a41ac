/**
 * coreos/ignition `config/merge` semantics for the render loop, working in place on configs this module owns
 * (already normalised to the v3_5 Go shape) so that merging 200 MachineConfigs stays linear per step instead of
 * cloning the accumulated config every time. Behaviour is checked against the spec module's `merge` by a
 * property test (test/machineconfig/fastmerge.test.ts).
 */
import { type Kind, TYPES } from './gojson.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Lists that are concatenated without de-duplication. */
const IGNORE_DUPS = new Set(['File.append', 'Filesystem.mountOptions', 'Filesystem.options', 'Luks.options', 'Raid.options']);
/** Lists sharing one key space. */
const HANDLES: Record<string, string> = {
  'Storage.directories': 'Node',
  'Storage.files': 'Node',
  'Storage.links': 'Node',
  'KernelArguments.shouldExist': 'KernelArgument',
  'KernelArguments.shouldNotExist': 'KernelArgument',
};

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function itemKey(item: string, v: unknown): string {
  if (item === 'string') return typeof v === 'string' ? v : String(v);
  const o = isObj(v) ? v : {};
  switch (item) {
    case 'Resource':
      return str(o['source']);
    case 'Partition': {
      const n = o['number'];
      if (typeof n === 'number' && n !== 0) return `number:${n}`;
      if (typeof o['label'] === 'string') return `label:${o['label']}`;
      return '';
    }
    case 'Tang':
      return str(o['url']);
    case 'Directory':
    case 'File':
    case 'Link':
      return str(o['path']);
    case 'Disk':
    case 'Filesystem':
      return str(o['device']);
    default:
      return str(o['name']);
  }
}

function isZero(k: Kind, v: unknown): boolean {
  switch (k.t) {
    case 'ptr':
      return v === undefined || v === null;
    case 'val':
      return v === undefined || v === null || v === '' || v === 0 || v === false;
    case 'list':
      return !Array.isArray(v) || v.length === 0;
    case 'struct':
      return structZero(k.s, v);
  }
}

function structZero(name: string, v: unknown): boolean {
  if (!isObj(v)) return true;
  for (const [f, k] of TYPES[name] ?? []) if (!isZero(k, v[f])) return false;
  return true;
}

function mergeStruct(name: string, parent: Obj, child: Obj): Obj {
  const fields = TYPES[name] ?? [];
  const result: Obj = {};
  // child list entries by key space (handle) and key; the last entry of a key wins, as upstream's map does
  let childIndex: Map<string, Map<string, { list: string; item: unknown }>> | undefined;
  for (const [f, k] of fields) {
    if (k.t !== 'list' || IGNORE_DUPS.has(`${name}.${f}`)) continue;
    const cl: unknown = child[f];
    if (!Array.isArray(cl) || cl.length === 0) continue;
    const handle = HANDLES[`${name}.${f}`] ?? f;
    childIndex ??= new Map<string, Map<string, { list: string; item: unknown }>>();
    let m = childIndex.get(handle);
    if (!m) childIndex.set(handle, (m = new Map<string, { list: string; item: unknown }>()));
    for (const it of cl as unknown[]) m.set(itemKey(k.item, it), { list: f, item: it });
  }
  for (const [f, k] of fields) {
    const pv = parent[f];
    const cv = child[f];
    switch (k.t) {
      case 'val':
        if (cv !== undefined && cv !== null) result[f] = cv;
        break;
      case 'ptr':
        if (cv !== undefined && cv !== null) result[f] = cv;
        else if (pv !== undefined && pv !== null) result[f] = pv;
        break;
      case 'struct':
        if (structZero(k.s, cv)) {
          if (isObj(pv)) result[f] = pv;
        } else if (structZero(k.s, pv)) result[f] = cv;
        else result[f] = mergeStruct(k.s, pv as Obj, cv as Obj);
        break;
      case 'list': {
        const pl: unknown[] = Array.isArray(pv) ? (pv as unknown[]) : [];
        const cl: unknown[] = Array.isArray(cv) ? (cv as unknown[]) : [];
        if (pl.length + cl.length === 0) break;
        if (IGNORE_DUPS.has(`${name}.${f}`)) {
          result[f] = [...pl, ...cl];
          break;
        }
        const hits = childIndex?.get(HANDLES[`${name}.${f}`] ?? f);
        if (!hits) {
          result[f] = cl.length === 0 ? pl : [...pl, ...cl];
          break;
        }
        const childKeys = new Set<string>();
        for (const cItem of cl) childKeys.add(itemKey(k.item, cItem));
        const skip = new Set<string>();
        const out: unknown[] = [];
        for (const pItem of pl) {
          const key = itemKey(k.item, pItem);
          if (childKeys.has(key)) skip.add(key);
          const hit = hits.get(key);
          if (!hit) {
            out.push(pItem);
            continue;
          }
          if (hit.list !== f) continue;
          if (k.item === 'string') out.push(hit.item);
          else {
            if (k.item === 'HTTPHeader') {
              const hv = (hit.item as Obj)['value'];
              if (hv === undefined || hv === null) continue;
            }
            out.push(mergeStruct(k.item, pItem as Obj, hit.item as Obj));
          }
        }
        for (const cItem of cl) if (!skip.has(itemKey(k.item, cItem))) out.push(cItem);
        result[f] = out;
        break;
      }
    }
  }
  return result;
}

/**
 * Merge `child` onto `parent` (both in the v3_5 Go shape). The result shares structure with both inputs: callers
 * must own them (the render loop does: every input is a fresh parse).
 */
export function mergeOwnedV35(parent: Obj, child: Obj): Obj {
  return mergeStruct('Config', parent, child);
}
