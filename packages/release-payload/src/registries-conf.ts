/**
 * Reads the mirror rules of a containers-registries.conf(5) v2 file (the one CRI-O reads on a node, which the MCO
 * renders from IDMS/ITMS/ICSP): `[[registry]]` with `prefix`, `location`, `blocked`, `insecure`, `mirror-by-digest-only`,
 * and `[[registry.mirror]]` with `location`, `insecure` and `pull-from-mirror`. The TOML subset parsed is the one these files use
 * (tables, arrays of tables, strings, booleans, string arrays, comments); anything else is an error naming the line.
 */
import { PayloadError } from './errors.js';
import type { Mirror, MirrorRule, PullFromMirror } from './mirrors.js';

type Value = string | boolean | string[];
type Table = Record<string, Value>;

const MAX_BYTES = 1024 * 1024;

function fail(file: string, line: number, msg: string): never {
  throw new PayloadError('InvalidMirrorConfig', `${file}:${line}: ${msg}`, file);
}

function parseString(s: string, file: string, line: number): [string, string] {
  if (s.startsWith("'")) {
    const end = s.indexOf("'", 1);
    if (end < 0) fail(file, line, 'unterminated literal string');
    return [s.slice(1, end), s.slice(end + 1)];
  }
  let out = '';
  for (let i = 1; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '"') return [out, s.slice(i + 1)];
    if (c === '\\') {
      const n = s[++i];
      const esc: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r' };
      const e = n === undefined ? undefined : esc[n];
      if (e === undefined) fail(file, line, `unsupported escape \\${n ?? ''}`);
      out += e;
      continue;
    }
    out += c;
  }
  return fail(file, line, 'unterminated string');
}

function stripComment(rest: string, file: string, line: number): void {
  const t = rest.trim();
  if (t !== '' && !t.startsWith('#')) fail(file, line, `unexpected ${JSON.stringify(t)} after the value`);
}

function parseValue(raw: string, file: string, line: number): Value {
  const s = raw.trim();
  if (s.startsWith('"') || s.startsWith("'")) {
    const [v, rest] = parseString(s, file, line);
    stripComment(rest, file, line);
    return v;
  }
  const bool = /^(true|false)\s*(#.*)?$/.exec(s);
  if (bool) return bool[1] === 'true';
  if (s.startsWith('[')) {
    const items: string[] = [];
    let rest = s.slice(1).trim();
    while (!rest.startsWith(']')) {
      if (!(rest.startsWith('"') || rest.startsWith("'"))) fail(file, line, 'arrays must hold strings');
      const [v, after] = parseString(rest, file, line);
      items.push(v);
      rest = after.trim();
      if (rest.startsWith(',')) rest = rest.slice(1).trim();
      else if (!rest.startsWith(']')) fail(file, line, 'expected , or ] in array');
    }
    stripComment(rest.slice(1), file, line);
    return items;
  }
  return fail(file, line, `unsupported value ${JSON.stringify(s)} (strings, booleans and string arrays only)`);
}

/** Joins multi-line arrays into one logical line; returns [line number, text] pairs. */
function logicalLines(text: string): [number, string][] {
  const out: [number, string][] = [];
  let pending: [number, string] | undefined;
  text.split(/\r?\n/).forEach((l, i) => {
    if (pending) {
      pending[1] += ' ' + l.replace(/#.*$/, '').trim();
      if (pending[1].includes(']')) {
        out.push(pending);
        pending = undefined;
      }
      return;
    }
    const t = l.trim();
    if (/^[\w.-]+\s*=\s*\[/.test(t) && !t.replace(/#.*$/, '').includes(']')) pending = [i + 1, t.replace(/#.*$/, '')];
    else out.push([i + 1, t]);
  });
  if (pending) out.push(pending);
  return out;
}

function str(t: Table, key: string, file: string, line: number): string | undefined {
  const v = t[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') fail(file, line, `${key} must be a string`);
  return v;
}

function toRule(reg: Table, mirrors: { t: Table; line: number }[], file: string, line: number): MirrorRule {
  const location = str(reg, 'location', file, line) ?? '';
  const source = str(reg, 'prefix', file, line) || location;
  if (source === '') fail(file, line, '[[registry]] needs a prefix or a location');
  const byDigest = reg['mirror-by-digest-only'] === true;
  const out: Mirror[] = mirrors.map(({ t, line: l }) => {
    const loc = str(t, 'location', file, l);
    if (!loc) fail(file, l, '[[registry.mirror]] needs a location');
    const pull = str(t, 'pull-from-mirror', file, l);
    if (pull !== undefined && !['all', 'digest-only', 'tag-only', ''].includes(pull))
      fail(file, l, `pull-from-mirror must be all, digest-only or tag-only, not ${JSON.stringify(pull)}`);
    const mode: PullFromMirror = pull ? (pull as PullFromMirror) : byDigest ? 'digest-only' : 'all';
    return { location: loc, pullFromMirror: mode, ...(t['insecure'] === true ? { insecure: true } : {}) };
  });
  const rule: MirrorRule = { source, mirrors: out, blocked: reg['blocked'] === true };
  if (location !== '' && location !== source) rule.location = location;
  if (reg['insecure'] === true) rule.insecure = true;
  return rule;
}

/** Parses the `[[registry]]` entries of a registries.conf v2 file into mirror rules (`file` names it in errors). */
export function parseRegistriesConf(text: string, file = 'registries.conf'): MirrorRule[] {
  if (Buffer.byteLength(text) > MAX_BYTES) fail(file, 1, `file is larger than ${MAX_BYTES} bytes`);
  const regs: { t: Table; line: number; mirrors: { t: Table; line: number }[] }[] = [];
  let current: Table | undefined = {};
  for (const [n, l] of logicalLines(text)) {
    if (l === '' || l.startsWith('#')) continue;
    const header = /^(\[\[?)\s*([\w.-]+)\s*(\]\]?)\s*(#.*)?$/.exec(l);
    if (header) {
      const name = header[2];
      if (name === 'registry' && header[1] === '[[') {
        regs.push({ t: {}, line: n, mirrors: [] });
        current = regs[regs.length - 1]?.t;
      } else if (name === 'registry.mirror' && header[1] === '[[') {
        const reg = regs[regs.length - 1];
        if (!reg) fail(file, n, '[[registry.mirror]] before any [[registry]]');
        const t: Table = {};
        reg.mirrors.push({ t, line: n });
        current = t;
      } else current = undefined; // [aliases], v1 [registries.*]: not about mirrors
      continue;
    }
    const kv = /^([\w.-]+|"[^"]*")\s*=\s*(.*)$/.exec(l);
    if (!kv) fail(file, n, `cannot parse ${JSON.stringify(l)}`);
    const value = parseValue(kv[2] ?? '', file, n);
    if (current) current[(kv[1] ?? '').replace(/^"|"$/g, '')] = value;
  }
  return regs.map((r) => toRule(r.t, r.mirrors, file, r.line));
}
