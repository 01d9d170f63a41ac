/**
 * YAML -> typed Butane tree, the way gopkg.in/yaml.v3 decodes into upstream's Go structs: YAML 1.1
 * octal ints (`0644`), any scalar into a string field, yes/no/on/off into bool fields, null = absent,
 * duplicate keys and type mismatches as yaml.v3's "unmarshal errors", unknown keys as "unused key"
 * warnings, and every node's line/column for the report.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  parseDocument,
  visit,
  type Document,
  type Tags,
  type Node as YNode,
  type Scalar,
} from 'yaml';
import { ButaneError, type ButaneReportEntry } from './errors.js';
import { goTypeName, structFields, type FieldType } from './schema.js';
import type { ButaneProfile } from './versions.js';

/** A decoded value: primitives, string maps, lists and structs (objects keyed by YAML names). */
export type BValue = string | number | boolean | BObj | BValue[];
/** A decoded struct or map. */
export interface BObj {
  [key: string]: BValue | undefined;
}

/** Position of a YAML node. */
export interface Pos {
  line: number;
  column: number;
}

/** Context path elements (upstream vcontext `path.ContextPath`). */
export type CPath = (string | number)[];

/** Upstream's `$.a.0.b` rendering of a context path. */
export function pathString(p: CPath): string {
  return ['$', ...p.map(String)].join('.');
}

/** Largest accepted input. */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** Largest number of YAML nodes visited (aliases expanded), against alias bombs. */
export const MAX_NODES = 200_000;
const MAX_DEPTH = 200;

/** The YAML source parsed once: document, positions of every node by context path. */
export interface ParsedYaml {
  doc: Document.Parsed;
  lines: LineCounter;
  /** Positions of value nodes, keyed by `pathString`. */
  positions: Map<string, Pos>;
  /** Anchored nodes by anchor name. */
  anchors: Map<string, unknown>;
}

const legacyOctal = {
  identify: (v: unknown): boolean => typeof v === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: /^0[0-7]+$/,
  resolve: (s: string): number => parseInt(s, 8),
};

function unmarshalError(lines: string[], file: string | undefined, report: ButaneReportEntry[] = []): ButaneError {
  return new ButaneError(
    'BUTANE_PARSE',
    `Error unmarshaling yaml: yaml: unmarshal errors:\n  ${lines.join('\n  ')}`,
    report,
    file,
  );
}

/** Parses the YAML text; syntax errors and duplicate keys throw BUTANE_PARSE like yaml.v3. */
export function parseYaml(text: string, file?: string): ParsedYaml {
  let lines = new LineCounter();
  const options = (lc: LineCounter): Parameters<typeof parseDocument>[1] => ({
    lineCounter: lc,
    uniqueKeys: false,
    customTags: (tags: Tags) => [legacyOctal, ...tags],
    prettyErrors: false,
  });
  let doc: Document.Parsed = parseDocument(text, options(lines));
  if (doc.errors.some((e) => e.code === 'MULTIPLE_DOCS')) {
    // yaml.v3's Unmarshal reads the first document and ignores the rest
    lines = new LineCounter();
    const first = parseAllDocuments(text, options(lines))[0];
    if (first) doc = first;
  }
  const err = doc.errors[0];
  if (err) {
    const pos = lines.linePos(err.pos[0]);
    const msg = err.message.split('\n')[0] ?? err.message;
    throw new ButaneError(
      'BUTANE_PARSE',
      `Error unmarshaling yaml: yaml: line ${pos.line}: ${msg}`,
      [{ kind: 'error', message: msg, path: '$', line: pos.line, column: pos.col }],
      file,
    );
  }
  const parsed: ParsedYaml = { doc, lines, positions: new Map(), anchors: collectAnchors(doc) };
  collectPositions(parsed, file);
  return parsed;
}

function posOf(p: ParsedYaml, n: YNode | null | undefined): Pos | undefined {
  const off = n?.range?.[0];
  if (off === undefined) return undefined;
  const lp = p.lines.linePos(off);
  return { line: lp.line, column: lp.col };
}

function resolve(p: ParsedYaml, n: unknown): unknown {
  return isAlias(n) ? p.anchors.get(n.source) : n;
}

/** Anchor name -> node (the last definition wins), built once: `Alias.resolve` would scan the document per use. */
function collectAnchors(doc: Document.Parsed): Map<string, unknown> {
  const out = new Map<string, unknown>();
  visit(doc, {
    Node(_key, node) {
      if (!isAlias(node) && node.anchor) out.set(node.anchor, node);
    },
  });
  return out;
}

function keyString(p: ParsedYaml, k: unknown): string {
  const r = resolve(p, k);
  if (isScalar(r)) return r.source ?? String(r.value);
  return String(r);
}

/** Walks the tree once: positions, duplicate keys, node budget (aliases expanded). */
function collectPositions(p: ParsedYaml, file: string | undefined): void {
  let budget = MAX_NODES;
  const dups: string[] = [];
  const walk = (raw: unknown, key: string, depth: number): void => {
    if (--budget < 0) {
      throw new ButaneError(
        'BUTANE_TOO_LARGE',
        `YAML has more than ${MAX_NODES} nodes (aliases expanded); refusing it`,
        [],
        file,
      );
    }
    if (depth > MAX_DEPTH)
      throw new ButaneError('BUTANE_TOO_LARGE', `YAML nests deeper than ${MAX_DEPTH} levels; refusing it`, [], file);
    const n = resolve(p, raw);
    const pos = posOf(p, raw as YNode);
    if (pos && !p.positions.has(key)) p.positions.set(key, pos);
    if (isMap(n)) {
      const seen = new Map<string, number>();
      for (const item of n.items) {
        const k = keyString(p, item.key);
        const kpos = posOf(p, item.key as YNode);
        const prev = seen.get(k);
        if (prev !== undefined)
          dups.push(`line ${kpos?.line ?? 0}: mapping key ${JSON.stringify(k)} already defined at line ${prev}`);
        else seen.set(k, kpos?.line ?? 0);
        p.positions.set(`${key}.${k}#key`, kpos ?? { line: 0, column: 0 });
        walk(item.value, `${key}.${k}`, depth + 1);
      }
    } else if (isSeq(n)) {
      n.items.forEach((item, i) => {
        walk(item, `${key}.${i}`, depth + 1);
      });
    }
  };
  walk(p.doc.contents, '$', 0);
  if (dups.length > 0) throw unmarshalError(dups, file);
}

/** Deepest known position for a context path (upstream `Correlate`). */
export function locate(p: ParsedYaml, path: CPath): Pos | undefined {
  for (let len = path.length; len >= 0; len--) {
    const hit = p.positions.get(pathString(path.slice(0, len)));
    if (hit) return hit;
  }
  return undefined;
}

const SHORT: Record<string, string> = {
  'tag:yaml.org,2002:str': '!!str',
  'tag:yaml.org,2002:int': '!!int',
  'tag:yaml.org,2002:float': '!!float',
  'tag:yaml.org,2002:bool': '!!bool',
  'tag:yaml.org,2002:null': '!!null',
  'tag:yaml.org,2002:binary': '!!binary',
  'tag:yaml.org,2002:timestamp': '!!timestamp',
};

function scalarTag(s: Scalar): string {
  if (s.tag) return SHORT[s.tag] ?? s.tag;
  const v = s.value;
  if (v === null) return '!!null';
  if (typeof v === 'boolean') return '!!bool';
  if (typeof v === 'number') return Number.isInteger(v) && !/[.eE]/.test(s.source ?? '') ? '!!int' : '!!float';
  return '!!str';
}

function scalarText(s: Scalar): string {
  if (typeof s.value === 'string') return s.value;
  return s.source ?? String(s.value);
}

const TRUE_WORDS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);
const FALSE_WORDS = new Set(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);

/** Decodes the document into the profile's Config struct. */
export class Decoder {
  readonly errors: string[] = [];
  readonly errorEntries: ButaneReportEntry[] = [];
  readonly unused: ButaneReportEntry[] = [];
  constructor(
    private readonly y: ParsedYaml,
    private readonly profile: ButaneProfile,
  ) {}

  private terror(n: YNode, tag: string, value: string | null, into: FieldType, path: CPath): void {
    const pos = posOf(this.y, n);
    let shown = '';
    if (value !== null) shown = value.length > 10 ? ` \`${value.slice(0, 7)}...\`` : ` \`${value}\``;
    const msg = `cannot unmarshal ${tag}${shown} into ${goTypeName(into, this.profile)}`;
    this.errors.push(`line ${pos?.line ?? 0}: ${msg}`);
    this.errorEntries.push({
      kind: 'error',
      message: msg,
      path: pathString(path),
      ...(pos ? { line: pos.line, column: pos.column } : {}),
    });
  }

  /** Decodes a node into a field type; undefined for null/absent or on a type error. */
  decode(raw: unknown, t: FieldType, path: CPath): BValue | undefined {
    const n = resolve(this.y, raw) as YNode | null | undefined;
    if (n === null || n === undefined) return undefined;
    if (isScalar(n) && n.value === null && !n.tag) return undefined;
    if (typeof t === 'string' && t !== 'map') return this.scalar(n, t, path);
    if (t === 'map') return this.stringMap(n, t, path);
    if ('list' in t) {
      if (!isSeq(n)) {
        this.mismatch(n, t, path);
        return;
      }
      const out: BValue[] = [];
      n.items.forEach((item, i) => {
        const v = this.decode(item, t.list, [...path, i]);
        out.push(v ?? zeroOf(t.list));
      });
      return out;
    }
    if (!isMap(n)) {
      this.mismatch(n, t, path);
      return;
    }
    return this.struct(n, t.struct, path);
  }

  private mismatch(n: YNode, t: FieldType, path: CPath): undefined {
    if (isScalar(n)) this.terror(n, scalarTag(n), scalarText(n), t, path);
    else this.terror(n, isSeq(n) ? '!!seq' : '!!map', null, t, path);
    return undefined;
  }

  private scalar(n: YNode, t: 'string' | 'int' | 'bool', path: CPath): BValue | undefined {
    if (!isScalar(n)) {
      this.mismatch(n, t, path);
      return;
    }
    const v = n.value;
    const tag = scalarTag(n);
    if (t === 'string') {
      if (tag === '!!null') return undefined;
      return scalarText(n);
    }
    if (t === 'int') {
      if (typeof v === 'number' && Number.isSafeInteger(v) && tag !== '!!str') return v;
      this.mismatch(n, t, path);
      return;
    }
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && tag === '!!str' && !n.tag && (n.type === 'PLAIN' || n.type === undefined)) {
      if (TRUE_WORDS.has(v)) return true;
      if (FALSE_WORDS.has(v)) return false;
    }
    this.mismatch(n, t, path);
  }

  private stringMap(n: YNode, t: FieldType, path: CPath): BValue | undefined {
    if (!isMap(n)) {
      this.mismatch(n, t, path);
      return;
    }
    const out: BObj = {};
    for (const item of n.items) {
      const k = keyString(this.y, item.key);
      const v = this.decode(item.value, 'string', [...path, k]);
      out[k] = v ?? '';
    }
    return out;
  }

  /**
   * The entries of a mapping with YAML merge keys applied as yaml.v3 does: `<<: *anchor` (or a list of them)
   * brings the anchored mapping's keys, explicit keys win, earlier merged mappings win over later ones.
   */
  private entries(n: YNode): [string, unknown][] {
    if (!isMap(n)) return [];
    const explicit: [string, unknown][] = [];
    const merged = new Map<string, unknown>();
    for (const item of n.items) {
      const k = keyString(this.y, item.key);
      if (k !== '<<' || (isScalar(item.key) && item.key.type !== 'PLAIN')) {
        explicit.push([k, item.value]);
        continue;
      }
      const v = resolve(this.y, item.value);
      const sources = isSeq(v) ? v.items.map((x) => resolve(this.y, x)) : [v];
      for (const src of sources) {
        if (!isMap(src)) continue;
        for (const [mk, mv] of this.entries(src)) if (!merged.has(mk)) merged.set(mk, mv);
      }
      explicit.push([k, undefined]);
    }
    const keys = new Set(explicit.map(([k]) => k));
    return [...[...merged].filter(([k]) => !keys.has(k)), ...explicit];
  }

  private struct(n: YNode, name: Parameters<typeof structFields>[0], path: CPath): BObj {
    const out: BObj = {};
    if (!isMap(n)) return out;
    const fields = structFields(name, this.profile);
    for (const [k, value] of this.entries(n)) {
      const def = fields.find((fd) => fd.yaml === k);
      if (!def) {
        // upstream's context tree keeps `<<` as a key: it is reported as unused even though it was merged
        const kpos = this.y.positions.get(`${pathString([...path, k])}#key`);
        this.unused.push({
          kind: 'warning',
          message: `unused key ${k}`,
          path: pathString([...path, k]),
          ...(kpos ? { line: kpos.line, column: kpos.column } : {}),
        });
        continue;
      }
      const v = this.decode(value, def.type, [...path, k]);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
}

function zeroOf(t: FieldType): BValue {
  if (t === 'string') return '';
  if (t === 'int') return 0;
  if (t === 'bool') return false;
  if (t === 'map') return {};
  if ('list' in t) return [];
  return {};
}

/** Reads `variant` and `version` the way upstream's first yaml.Unmarshal into commonFields does. */
export function readCommonFields(y: ParsedYaml, file?: string): { variant: string; version: string } {
  const root = resolve(y, y.doc.contents);
  const out = { variant: '', version: '' };
  if (root === null || root === undefined) return out;
  if (!isMap(root)) {
    const pos = posOf(y, root as YNode);
    const tag = isScalar(root) ? scalarTag(root) : '!!seq';
    const shown = isScalar(root) ? ` \`${scalarText(root).slice(0, 10)}\`` : '';
    throw unmarshalError([`line ${pos?.line ?? 0}: cannot unmarshal ${tag}${shown} into config.commonFields`], file);
  }
  const errs: string[] = [];
  for (const item of root.items) {
    const k = keyString(y, item.key);
    if (k !== 'variant' && k !== 'version') continue;
    const v = resolve(y, item.value);
    if (v === null || v === undefined || (isScalar(v) && v.value === null)) continue;
    if (!isScalar(v)) {
      const pos = posOf(y, v as YNode);
      errs.push(`line ${pos?.line ?? 0}: cannot unmarshal ${isSeq(v) ? '!!seq' : '!!map'} into string`);
      continue;
    }
    out[k] = scalarText(v);
  }
  if (errs.length > 0) throw unmarshalError(errs, file);
  return out;
}
