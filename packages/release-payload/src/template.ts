import { TemplateError } from './errors.js';
import { LineIndex } from './lines.js';

const FIELD_RE = /(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\./y;
const IDENT_RE = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUM_RE = /-?[0-9]+/y;

/** Matches a sticky regex at `i` without copying the rest of the string (keeps tokenizing linear). */
function matchAt(re: RegExp, s: string, i: number): string | undefined {
  re.lastIndex = i;
  return re.exec(s)?.[0];
}

/** Variables the CVO passes when rendering its own `manifests/` (upstream `manifestRenderConfig`). */
export interface RenderConfig {
  /** Pull spec of the release image. */
  ReleaseImage: string;
  /** Cluster profile, e.g. `self-managed-high-availability`. */
  ClusterProfile: string;
  /** Short image name → pull spec, from `image-references` tags of kind `DockerImage`. */
  Images: Readonly<Record<string, string>>;
}

const FIELDS = new Set(['ReleaseImage', 'ClusterProfile', 'Images']);

type Tok =
  { t: 'str'; v: string } | { t: 'field'; path: string[] } | { t: 'ident'; v: string } | { t: 'num'; v: number };

/** Go's trim markers remove "spaces": space, tab, carriage return and newline. */
function isTrimSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

function unquote(s: string, file: string, line: number): string {
  try {
    return JSON.parse(s.replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1')) as string;
  } catch {
    throw new TemplateError(`unterminated or invalid quoted string ${s}`, file, line);
  }
}

function tokenize(body: string, file: string, line: number): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < body.length && body[j] !== '"') {
        if (body[j] === '\\') j++;
        if (body[j] === '\n') throw new TemplateError('unterminated quoted string', file, line);
        j++;
      }
      if (j >= body.length) throw new TemplateError('unterminated quoted string', file, line);
      toks.push({ t: 'str', v: unquote(body.slice(i, j + 1), file, line) });
      i = j + 1;
    } else if (c === '`') {
      const j = body.indexOf('`', i + 1);
      if (j < 0) throw new TemplateError('unterminated raw quoted string', file, line);
      toks.push({ t: 'str', v: body.slice(i + 1, j) });
      i = j + 1;
    } else if (c === '.') {
      const f = matchAt(FIELD_RE, body, i) ?? '.';
      const path = f === '.' ? [] : f.slice(1).split('.');
      toks.push({ t: 'field', path });
      i += f.length;
    } else if (/[A-Za-z_]/.test(c)) {
      const id = matchAt(IDENT_RE, body, i) ?? c;
      toks.push({ t: 'ident', v: id });
      i += id.length;
    } else if (/[0-9-]/.test(c)) {
      const m = matchAt(NUM_RE, body, i);
      if (m === undefined) throw new TemplateError(`unexpected ${JSON.stringify(c)} in command`, file, line);
      toks.push({ t: 'num', v: Number(m) });
      i += m.length;
    } else {
      throw new TemplateError(
        `unexpected ${JSON.stringify(c)} in command (only fields, string literals and index are supported)`,
        file,
        line,
      );
    }
  }
  return toks;
}

type Val = string | number | Readonly<Record<string, string>> | RenderConfig | undefined;

function evalField(path: string[], cfg: RenderConfig, file: string, line: number, src: string): Val {
  let cur: Val = cfg;
  for (const [k, name] of path.entries()) {
    if (cur === cfg) {
      if (!FIELDS.has(name)) {
        throw new TemplateError(
          `executing "manifest" at <${src}>: can't evaluate field ${name} in type manifestRenderConfig (known fields: ReleaseImage, ClusterProfile, Images; this payload may need a newer renderer)`,
          file,
          line,
        );
      }
      cur = cfg[name as keyof RenderConfig];
    } else if (k === 1 && path[0] === 'Images') {
      cur = (cur as Record<string, string>)[name] ?? '';
    } else {
      throw new TemplateError(
        `executing "manifest" at <${src}>: can't evaluate field ${name} in type string`,
        file,
        line,
      );
    }
  }
  return cur;
}

function printVal(v: Val): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${entries.map(([k, x]) => `${k}:${String(x)}`).join(' ')}]`;
}

/**
 * Renders a CVO `manifests/` file as the Go `text/template` subset the CVO's own manifests use: field references
 * (`{{.ReleaseImage}}`, `{{ .ClusterProfile }}`), `{{ index .Images "name" }}`, string literals (used to escape
 * Prometheus templates, `{{ "{{ $labels.x }}" }}`), comments and trim markers. Unknown fields and unsupported actions
 * throw {@link TemplateError} naming the file and line.
 */
export function renderTemplate(text: string, cfg: RenderConfig, file = 'manifest'): string {
  const out: string[] = [];
  const lines = new LineIndex(text);
  let pos = 0;
  while (pos < text.length) {
    const open = text.indexOf('{{', pos);
    if (open < 0) {
      out.push(text.slice(pos));
      break;
    }
    let litEnd = open;
    let bodyStart = open + 2;
    if (text.startsWith('- ', bodyStart) || text.startsWith('-\t', bodyStart) || text.startsWith('-\n', bodyStart)) {
      while (litEnd > pos && isTrimSpace(text.charCodeAt(litEnd - 1))) litEnd--;
      bodyStart += 1;
    }
    out.push(text.slice(pos, litEnd));
    const line = lines.lineAt(open);
    // find the closing delimiter, skipping quoted strings
    let j = bodyStart;
    let close = -1;
    while (j < text.length) {
      const ch = text[j];
      if (ch === '"') {
        j++;
        while (j < text.length && text[j] !== '"') {
          if (text[j] === '\\') j++;
          j++;
        }
        j++;
        continue;
      }
      if (ch === '`') {
        const e = text.indexOf('`', j + 1);
        j = e < 0 ? text.length : e + 1;
        continue;
      }
      if (text.startsWith('}}', j)) {
        close = j;
        break;
      }
      j++;
    }
    if (close < 0) throw new TemplateError('unclosed action', file, line);
    let body = text.slice(bodyStart, close);
    let after = close + 2;
    if (/\s-$/.test(body)) {
      body = body.slice(0, -2);
      while (after < text.length && isTrimSpace(text.charCodeAt(after))) after++;
    }
    const trimmed = body.trim();
    if (trimmed.startsWith('/*')) {
      if (!trimmed.endsWith('*/')) throw new TemplateError('unclosed comment', file, line);
    } else {
      out.push(evalAction(trimmed, cfg, file, line));
    }
    pos = after;
  }
  return out.join('');
}

function evalAction(body: string, cfg: RenderConfig, file: string, line: number): string {
  if (body === '') throw new TemplateError('missing value for command', file, line);
  const toks = tokenize(body, file, line);
  const first = toks[0];
  if (!first) throw new TemplateError('missing value for command', file, line);
  const arg = (t: Tok): Val => {
    if (t.t === 'str') return t.v;
    if (t.t === 'num') return t.v;
    if (t.t === 'field') return evalField(t.path, cfg, file, line, '.' + t.path.join('.'));
    throw new TemplateError(`function ${JSON.stringify(t.v)} not defined or not allowed as an argument`, file, line);
  };
  if (first.t === 'ident') {
    if (first.v === 'index') {
      if (toks.length < 2) throw new TemplateError('wrong number of args for index: want at least 1 got 0', file, line);
      const target = toks[1];
      if (!target) throw new TemplateError('wrong number of args for index: want at least 1 got 0', file, line);
      let cur = arg(target);
      for (const t of toks.slice(2)) {
        const key = arg(t);
        if (cur === undefined || typeof cur !== 'object') {
          throw new TemplateError(`error calling index: cannot index into ${typeof cur}`, file, line);
        }
        if (typeof key !== 'string')
          throw new TemplateError('error calling index: value has type int; should be string', file, line);
        cur = (cur as Record<string, string>)[key] ?? '';
      }
      return printVal(cur);
    }
    if (first.v === 'print')
      return toks
        .slice(1)
        .map((t) => printVal(arg(t)))
        .join('');
    throw new TemplateError(`function ${JSON.stringify(first.v)} not defined (supported: index, print)`, file, line);
  }
  if (toks.length > 1) throw new TemplateError(`can't give argument to non-function ${body}`, file, line);
  return printVal(arg(first));
}
