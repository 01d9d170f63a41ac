/**
 * `/etc/containers/registries.conf` (containers/image `pkg/sysregistriesv2` `V2RegistriesConf`) read and written as
 * the MCO does: decoded with BurntSushi/toml into the Go struct (unknown keys ignored, absent arrays nil), encoded
 * with BurntSushi/toml's `Encoder` (direct keys first, then `[[registry]]` tables indented by two spaces, fields in
 * Go struct order, `omitempty` honoured, nil values skipped). Only the TOML the struct can hold is accepted; anything
 * else is a {@link RegistriesConfError} naming the line.
 */

/** sysregistriesv2.Endpoint. */
export interface Endpoint {
  location: string;
  insecure: boolean;
  /** `digest-only`, `tag-only` or "" (all). */
  pullFromMirror: string;
}

/** sysregistriesv2.Registry (an Endpoint too). */
export interface Registry extends Endpoint {
  prefix: string;
  /** nil (absent) vs empty is kept, as Go's decoder does. */
  mirrors: Endpoint[] | null;
  blocked: boolean;
  mirrorByDigestOnly: boolean;
}

/** sysregistriesv2.V2RegistriesConf. */
export interface RegistriesConf {
  registries: Registry[] | null;
  unqualifiedSearchRegistries: string[] | null;
  credentialHelpers: string[] | null;
  shortNameMode: string;
  additionalLayerStoreAuthHelper: string;
  aliases: Record<string, string> | null;
}

/** A registries.conf the Go decoder would refuse (or this decoder does not support). */
export class RegistriesConfError extends Error {
  readonly code = 'REGISTRIES_CONF_INVALID';
  constructor(
    message: string,
    /** 1-based line of the input, 0 when not tied to one. */
    readonly line: number,
  ) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.name = 'RegistriesConfError';
  }
}

/** The zero V2RegistriesConf. */
export function emptyRegistriesConf(): RegistriesConf {
  return {
    registries: null,
    unqualifiedSearchRegistries: null,
    credentialHelpers: null,
    shortNameMode: '',
    additionalLayerStoreAuthHelper: '',
    aliases: null,
  };
}

/** A zero Registry. */
export function emptyRegistry(): Registry {
  return {
    prefix: '',
    location: '',
    insecure: false,
    pullFromMirror: '',
    mirrors: null,
    blocked: false,
    mirrorByDigestOnly: false,
  };
}

const MAX_INPUT = 1024 * 1024;
type Value = string | boolean | string[];

class Lexer {
  i = 0;
  line = 1;
  constructor(readonly s: string) {}
  fail(msg: string): never {
    throw new RegistriesConfError(msg, this.line);
  }
  peek(): string {
    return this.s[this.i] ?? '';
  }
  /** Skips spaces and tabs (and, when `newlines`, line ends and comments too). */
  skip(newlines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r') this.i++;
      else if (c === '#') while (this.i < this.s.length && this.peek() !== '\n') this.i++;
      else if (newlines && c === '\n') {
        this.i++;
        this.line++;
      } else return;
    }
  }
  endOfLine(): void {
    this.skip(false);
    const c = this.peek();
    if (c === '') return;
    if (c !== '\n') this.fail(`expected the end of the line, found ${JSON.stringify(c)}`);
    this.i++;
    this.line++;
  }
  key(): string {
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    const m = /^[A-Za-z0-9_-]+/.exec(this.s.slice(this.i, this.i + 256));
    if (!m) this.fail(`expected a key, found ${JSON.stringify(c)}`);
    this.i += m[0].length;
    return m[0];
  }
  string(): string {
    const q = this.peek();
    if (this.s.startsWith(q.repeat(3), this.i)) this.fail('multi-line strings are not supported in registries.conf');
    this.i++;
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') this.fail('unterminated string');
      this.i++;
      if (c === q) return out;
      if (q === "'" || c !== '\\') {
        out += c;
        continue;
      }
      out += this.escape();
    }
  }
  escape(): string {
    const e = this.peek();
    this.i++;
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
    if (simple[e] !== undefined) return simple[e];
    const len = e === 'u' ? 4 : e === 'U' ? 8 : 0;
    const hex = this.s.slice(this.i, this.i + len);
    if (len === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) this.fail(`invalid escape \\${e}`);
    this.i += len;
    return String.fromCodePoint(parseInt(hex, 16));
  }
  value(): Value {
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (this.s.startsWith('true', this.i)) {
      this.i += 4;
      return true;
    }
    if (this.s.startsWith('false', this.i)) {
      this.i += 5;
      return false;
    }
    if (c === '[') return this.array();
    return this.fail(
      `unsupported value starting with ${JSON.stringify(c)} (registries.conf holds strings, booleans and arrays of strings)`,
    );
  }
  array(): string[] {
    this.i++;
    const out: string[] = [];
    for (;;) {
      this.skip(true);
      if (this.peek() === ']') {
        this.i++;
        return out;
      }
      const c = this.peek();
      if (c !== '"' && c !== "'") this.fail('arrays in registries.conf hold strings only');
      out.push(this.string());
      this.skip(true);
      if (this.peek() === ',') this.i++;
      else if (this.peek() !== ']') this.fail('expected "," or "]" in array');
    }
  }
}

type Section =
  | { kind: 'top' }
  | { kind: 'registry'; reg: Registry }
  | { kind: 'mirror'; ep: Endpoint }
  | { kind: 'aliases' }
  | { kind: 'ignored' };

function mismatch(lx: Lexer, key: string, v: Value, type: string): never {
  return lx.fail(
    `${key}: incompatible types: TOML value has type ${Array.isArray(v) ? 'array' : typeof v}; destination has type ${type}`,
  );
}
const str = (lx: Lexer, key: string, v: Value): string => (typeof v === 'string' ? v : mismatch(lx, key, v, 'string'));
const bool = (lx: Lexer, key: string, v: Value): boolean =>
  typeof v === 'boolean' ? v : mismatch(lx, key, v, 'boolean');
const list = (lx: Lexer, key: string, v: Value): string[] => (Array.isArray(v) ? v : mismatch(lx, key, v, 'array'));

function setEndpoint(lx: Lexer, ep: Endpoint, key: string, v: Value): boolean {
  if (key === 'location') ep.location = str(lx, key, v);
  else if (key === 'insecure') ep.insecure = bool(lx, key, v);
  else if (key === 'pull-from-mirror') ep.pullFromMirror = str(lx, key, v);
  else return false;
  return true;
}

function assign(lx: Lexer, conf: RegistriesConf, sec: Section, key: string, v: Value): void {
  switch (sec.kind) {
    case 'top':
      if (key === 'unqualified-search-registries') conf.unqualifiedSearchRegistries = list(lx, key, v);
      else if (key === 'credential-helpers') conf.credentialHelpers = list(lx, key, v);
      else if (key === 'short-name-mode') conf.shortNameMode = str(lx, key, v);
      else if (key === 'additional-layer-store-auth-helper') conf.additionalLayerStoreAuthHelper = str(lx, key, v);
      return;
    case 'registry':
      if (setEndpoint(lx, sec.reg, key, v)) return;
      if (key === 'prefix') sec.reg.prefix = str(lx, key, v);
      else if (key === 'blocked') sec.reg.blocked = bool(lx, key, v);
      else if (key === 'mirror-by-digest-only') sec.reg.mirrorByDigestOnly = bool(lx, key, v);
      return;
    case 'mirror':
      setEndpoint(lx, sec.ep, key, v);
      return;
    case 'aliases':
      (conf.aliases ??= {})[key] = str(lx, key, v);
      return;
    case 'ignored':
      return;
  }
}

function header(lx: Lexer, conf: RegistriesConf, sec: Section): Section {
  const arrayTable = lx.s.startsWith('[[', lx.i);
  lx.i += arrayTable ? 2 : 1;
  const parts: string[] = [];
  for (;;) {
    lx.skip(false);
    parts.push(lx.key());
    lx.skip(false);
    if (lx.peek() !== '.') break;
    lx.i++;
  }
  const close = arrayTable ? ']]' : ']';
  if (!lx.s.startsWith(close, lx.i)) lx.fail(`expected ${close} after the table name`);
  lx.i += close.length;
  const name = parts.join('.');
  if (arrayTable && name === 'registry') {
    const reg = emptyRegistry();
    (conf.registries ??= []).push(reg);
    return { kind: 'registry', reg };
  }
  if (arrayTable && name === 'registry.mirror') {
    const reg = conf.registries?.[conf.registries.length - 1];
    if (!reg || (sec.kind !== 'registry' && sec.kind !== 'mirror'))
      lx.fail('[[registry.mirror]] outside a [[registry]]');
    const ep: Endpoint = { location: '', insecure: false, pullFromMirror: '' };
    (reg.mirrors ??= []).push(ep);
    return { kind: 'mirror', ep };
  }
  if (!arrayTable && name === 'aliases') {
    conf.aliases ??= {};
    return { kind: 'aliases' };
  }
  if (name === 'registry' || name === 'registry.mirror' || name === 'aliases')
    lx.fail(`${name} must be ${arrayTable ? 'a table' : 'an array of tables'}`);
  return { kind: 'ignored' };
}

/**
 * toml.Decode into a V2RegistriesConf.
 * @throws RegistriesConfError
 */
export function decodeRegistriesConf(text: string): RegistriesConf {
  if (text.length > MAX_INPUT) throw new RegistriesConfError(`registries.conf is larger than ${MAX_INPUT} bytes`, 0);
  const conf = emptyRegistriesConf();
  const lx = new Lexer(text);
  let sec: Section = { kind: 'top' };
  for (;;) {
    lx.skip(true);
    if (lx.peek() === '') return conf;
    if (lx.peek() === '[') sec = header(lx, conf, sec);
    else {
      const key = lx.key();
      lx.skip(false);
      if (lx.peek() !== '=') lx.fail(`expected "=" after key ${JSON.stringify(key)}`);
      lx.i++;
      lx.skip(false);
      assign(lx, conf, sec, key, lx.value());
    }
    lx.endOfLine();
  }
}

/** BurntSushi/toml dblQuotedReplacer. */
export function tomlQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const bareKey = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlQuote(k));
const arr = (xs: readonly string[]): string => `[${xs.map(tomlQuote).join(', ')}]`;

/** Writes like BurntSushi's Encoder: `newline()` only once something was written. */
class Writer {
  out = '';
  nl(): void {
    if (this.out !== '') this.out += '\n';
  }
  kv(indent: string, key: string, val: string): void {
    this.out += `${indent}${bareKey(key)} = ${val}`;
    this.nl();
  }
}

function endpointFields(w: Writer, ind: string, e: Endpoint): void {
  if (e.location !== '') w.kv(ind, 'location', tomlQuote(e.location));
  if (e.insecure) w.kv(ind, 'insecure', 'true');
  if (e.pullFromMirror !== '') w.kv(ind, 'pull-from-mirror', tomlQuote(e.pullFromMirror));
}

function registryTable(w: Writer, r: Registry): void {
  w.nl();
  w.out += '[[registry]]';
  w.nl();
  w.kv('  ', 'prefix', tomlQuote(r.prefix));
  endpointFields(w, '  ', r);
  if (r.blocked) w.kv('  ', 'blocked', 'true');
  if (r.mirrorByDigestOnly) w.kv('  ', 'mirror-by-digest-only', 'true');
  for (const m of r.mirrors ?? []) {
    w.nl();
    w.out += '  [[registry.mirror]]';
    w.nl();
    endpointFields(w, '    ', m);
  }
}

/** toml.NewEncoder(…).Encode(V2RegistriesConf) byte for byte. */
export function encodeRegistriesConf(c: RegistriesConf): string {
  const w = new Writer();
  if (c.registries !== null && c.registries.length === 0) w.kv('', 'registry', '[]');
  if (c.unqualifiedSearchRegistries !== null)
    w.kv('', 'unqualified-search-registries', arr(c.unqualifiedSearchRegistries));
  if (c.credentialHelpers !== null) w.kv('', 'credential-helpers', arr(c.credentialHelpers));
  w.kv('', 'short-name-mode', tomlQuote(c.shortNameMode));
  w.kv('', 'additional-layer-store-auth-helper', tomlQuote(c.additionalLayerStoreAuthHelper));
  for (const r of c.registries ?? []) registryTable(w, r);
  if (c.aliases !== null) {
    w.nl();
    w.out += '[aliases]';
    w.nl();
    for (const k of Object.keys(c.aliases).sort()) w.kv('  ', k, tomlQuote(c.aliases[k] ?? ''));
  }
  return w.out;
}

/** V2RegistriesConf holding only `unqualified-search-registries` (the search-registries drop-in). */
export function searchRegistriesConf(regs: readonly string[]): string {
  return encodeRegistriesConf({ ...emptyRegistriesConf(), unqualifiedSearchRegistries: [...regs] });
}
