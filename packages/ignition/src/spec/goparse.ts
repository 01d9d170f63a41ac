/**
 * Small re-implementations of the Go library behaviour upstream validation depends on: net/url.Parse
 * (enough to know whether it fails, and the scheme / opaque / query it yields), path.Clean,
 * the vincent-petithory/dataurl decoder's acceptance, aws arn.Parse, and go-systemd's unit lexer.
 */

/** Result of {@link goParseURL}. */
export interface GoURL {
  scheme: string;
  opaque: string;
  rawQuery: string;
  host: string;
  path: string;
}

const HEX = /^[0-9a-fA-F]{2}$/;

function unescapeOk(s: string, host: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '%') {
      if (!HEX.test(s.slice(i + 1, i + 3))) return false;
      i += 2;
    } else if (host && c.charCodeAt(0) < 0x80 && hostShouldEscape(c)) {
      return false;
    }
  }
  return true;
}

function hostShouldEscape(c: string): boolean {
  if (/[A-Za-z0-9]/.test(c)) return false;
  return !'-_.~!$&\'()*+,;=:[]<>"'.includes(c);
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^[0-9]*$/.test(port.slice(1));
}

/** Mirrors Go's `net/url.Parse`; returns null where Go returns an error. */
export function goParseURL(raw: string): GoURL | null {
  let rest = raw;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    if (!unescapeOk(rest.slice(hash + 1), false)) return null;
    rest = rest.slice(0, hash);
  }
  // control characters
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return null;
  }
  if (rest === '*') return { scheme: '', opaque: '', rawQuery: '', host: '', path: '*' };
  let scheme = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charAt(i);
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return null; // missing protocol scheme
      scheme = rest.slice(0, i).toLowerCase();
      rest = rest.slice(i + 1);
    }
    break;
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, opaque: rest, rawQuery, host: '', path: '' };
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) return null; // first path segment cannot contain colon
  }
  let host = '';
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    } else {
      rest = '';
    }
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return null;
      const colon = userinfo.indexOf(':');
      if (!unescapeOk(colon >= 0 ? userinfo.slice(0, colon) : userinfo, false)) return null;
      if (colon >= 0 && !unescapeOk(userinfo.slice(colon + 1), false)) return null;
      authority = authority.slice(at + 1);
    }
    if (authority.startsWith('[')) {
      const close = authority.lastIndexOf(']');
      if (close < 0) return null; // missing ']' in host
      if (!validOptionalPort(authority.slice(close + 1))) return null;
    } else {
      const colon = authority.lastIndexOf(':');
      if (colon >= 0 && !validOptionalPort(authority.slice(colon))) return null;
    }
    if (!unescapeOk(authority, true)) return null;
    host = authority;
  }
  if (!unescapeOk(rest, false)) return null;
  return { scheme, opaque: '', rawQuery, host, path: rest };
}

/** Go `url.ParseQuery` value lists (lenient: malformed pairs are skipped, as `Query()` does). */
export function goQueryValues(rawQuery: string, key: string): string[] | undefined {
  let found: string[] | undefined;
  for (const part of rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const k = eq >= 0 ? part.slice(0, eq) : part;
    const v = eq >= 0 ? part.slice(eq + 1) : '';
    const dk = queryUnescape(k);
    const dv = queryUnescape(v);
    if (dk === null || dv === null) continue;
    if (dk === key) (found ??= []).push(dv);
  }
  return found;
}

function queryUnescape(s: string): string | null {
  if (!unescapeOk(s, false)) return null;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Go `path.Clean`. */
export function goPathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(seg);
  }
  const out = (rooted ? '/' : '') + parts.join('/');
  return out === '' ? (rooted ? '/' : '.') : out;
}

/** Go `path.Join(a, b)`. */
export function goPathJoin(a: string, b: string): string {
  if (a === '' && b === '') return '';
  return goPathClean(a === '' ? b : b === '' ? a : `${a}/${b}`);
}

/** Whether `vincent-petithory/dataurl.DecodeString` accepts the string; returns an error text or null. */
export function dataURLError(s: string): string | null {
  if (!s.startsWith('data:')) return 'dataurl: missing data prefix';
  const comma = s.indexOf(',');
  if (comma < 0) return 'dataurl: missing comma';
  const meta = s.slice(5, comma);
  const params = meta.split(';');
  const isBase64 = params.length > 0 && (params[params.length - 1] ?? '').toLowerCase() === 'base64';
  const mediaParams = isBase64 ? params.slice(0, -1) : params;
  const media = mediaParams[0] ?? '';
  if (media !== '' && !/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(media))
    return 'dataurl: invalid media type';
  for (const p of mediaParams.slice(1)) {
    if (!/^[^=]+=.*$/.test(p)) return 'dataurl: invalid parameter';
  }
  const data = s.slice(comma + 1);
  if (isBase64) {
    const decoded = (() => {
      try {
        return decodeURIComponent(data);
      } catch {
        return null;
      }
    })();
    if (decoded === null || !/^[A-Za-z0-9+/]*={0,2}$/.test(decoded) || decoded.length % 4 !== 0) {
      return 'illegal base64 data';
    }
  } else if (!unescapeOk(data, false)) {
    return 'dataurl: invalid escape';
  }
  return null;
}

/** aws-sdk-go-v2 `arn.IsARN` + `arn.Parse`: returns the resource part, or null when invalid. */
export function parseARN(s: string): { service: string; resource: string } | null {
  if (!s.startsWith('arn:')) return null;
  const sections = s.split(':');
  if (sections.length < 6) return null;
  if (sections[1] === '' || sections[2] === '') return null;
  return { service: sections[2] ?? '', resource: sections.slice(5).join(':') };
}

/** One option of a systemd unit. */
export interface UnitOption {
  section: string;
  name: string;
  value: string;
}

/** go-systemd `unit.DeserializeOptions`; throws an Error with go-systemd's message on failure. */
export function deserializeUnit(content: string): UnitOption[] {
  const opts: UnitOption[] = [];
  const n = content.length;
  let pos = 0;
  const LINE_MAX = 2048;
  const isSpace = (c: string): boolean => /\s/u.test(c);
  const toEOL = (): { line: string; eof: boolean } => {
    const nl = content.indexOf('\n', pos);
    if (nl < 0) {
      const line = content.slice(pos);
      pos = n;
      return { line: line.replace(/\r$/, ''), eof: true };
    }
    const line = content.slice(pos, nl);
    pos = nl + 1;
    return { line: line.replace(/\r$/, ''), eof: false };
  };
  const checkLine = (): void => {
    if (n - pos >= LINE_MAX) {
      const chunk = content.slice(pos, pos + LINE_MAX);
      if (!/[\r\n]/.test(chunk)) throw new Error(`line too long (max ${LINE_MAX} bytes)`);
    }
  };
  const ignoreLine = (): void => {
    for (;;) {
      const { line, eof } = toEOL();
      if (!line.replace(/ +$/, '').endsWith('\\') || eof) break;
    }
  };
  let section: string | null = null;
  // state: 'next-section' before any section, 'next' afterwards
  for (;;) {
    checkLine();
    if (pos >= n) return opts;
    const c = String.fromCodePoint(content.codePointAt(pos) ?? 0);
    if (section === null) {
      pos += c.length;
      if (c === '[') section = readSection();
      else if (c === '#' || c === ';') ignoreLine();
      continue;
    }
    if (isSpace(c)) {
      pos += c.length;
      continue;
    }
    if (c === '[') {
      pos += 1;
      section = readSection();
      continue;
    }
    if (c === '#' || c === ';') {
      pos += 1;
      ignoreLine();
      continue;
    }
    // option name
    let name = '';
    for (;;) {
      if (pos >= n) throw new Error('EOF');
      const r = content.charAt(pos);
      pos += 1;
      if (r === '\n' || r === '\r') throw new Error('unexpected newline encountered while parsing option name');
      if (r === '=') break;
      name += r;
    }
    let value = '';
    for (;;) {
      checkLine();
      const { line, eof } = toEOL();
      if (line.trim() !== '') {
        value += line;
        if (line.endsWith('\\')) {
          if (!eof) value += '\n';
          if (!eof) continue;
        }
      }
      break;
    }
    value = value.endsWith('\n') ? value.trim() + '\n' : value.trim();
    opts.push({ section, name: name.trim(), value });
  }

  function readSection(): string {
    const close = content.indexOf(']', pos);
    if (close < 0) throw new Error('unable to find end of section');
    const name = content.slice(pos, close);
    pos = close + 1;
    const { line } = toEOL();
    const garbage = line.trim();
    if (garbage.length > 0) throw new Error(`found garbage after section name : ${JSON.stringify(garbage)}`);
    return name;
  }
}

/** coreos/go-semver `NewVersion` result. */
export interface GoSemver {
  major: number;
  minor: number;
  patch: number;
  pre: string;
  meta: string;
}

function goParseInt(s: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

function validIdentifiers(s: string): boolean {
  return s.split('.').every((id) => /^[0-9A-Za-z-]+$/.test(id));
}

/** Mirrors coreos/go-semver `NewVersion`; null where it returns an error. */
export function goSemver(v: string): GoSemver | null {
  const plus = v.indexOf('+');
  const main = plus >= 0 ? v.slice(0, plus) : v;
  const meta = plus >= 0 ? v.slice(plus + 1) : '';
  const dots = main.split('.');
  if (dots.length < 3) return null;
  const third = dots.slice(2).join('.');
  const dash = third.indexOf('-');
  const patchStr = dash >= 0 ? third.slice(0, dash) : third;
  const pre = dash >= 0 ? third.slice(dash + 1) : '';
  if (pre !== '' && !validIdentifiers(pre)) return null;
  if (meta !== '' && !validIdentifiers(meta)) return null;
  const major = goParseInt(dots[0] ?? '');
  const minor = goParseInt(dots[1] ?? '');
  const patch = goParseInt(patchStr);
  if (major === null || minor === null || patch === null) return null;
  return { major, minor, patch, pre, meta };
}

/** Equality of two go-semver versions (struct comparison). */
export function semverEqual(a: GoSemver, b: GoSemver): boolean {
  return a.major === b.major && a.minor === b.minor && a.patch === b.patch && a.pre === b.pre && a.meta === b.meta;
}
