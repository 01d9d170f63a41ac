/**
 * Line/column of JSON paths in the source text, as upstream's vcontext reports them: a scalar at its
 * first character, an object or list just after its opening bracket; a path missing from the text
 * is placed at its nearest present ancestor. Lines and columns are 1-based.
 */
import type { JsonPath, ReportEntry } from './types.js';

/** Offsets (0-based, into `text`) of every value, keyed by the JSON-encoded path. */
function valueOffsets(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return '';
    }
  };
  // iterative walk with an explicit stack (hostile nesting is refused before this runs, but stay safe)
  type Frame = { kind: 'obj' | 'arr'; path: JsonPath; index: number };
  const stack: Frame[] = [];
  const value = (path: JsonPath): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      out.set(JSON.stringify(path), i);
      stack.push({ kind: c === '{' ? 'obj' : 'arr', path, index: 0 });
      return;
    }
    out.set(JSON.stringify(path), i);
    if (c === '"') str();
    else while (i < n && !',]} \n\r\t'.includes(text.charAt(i))) i++;
  };
  value([]);
  while (stack.length > 0 && i < n) {
    const top = stack[stack.length - 1];
    if (!top) break;
    ws();
    const c = text[i];
    if (c === '}' || c === ']') {
      i++;
      stack.pop();
      continue;
    }
    if (c === ',') {
      i++;
      ws();
    }
    if (top.kind === 'obj') {
      if (text[i] !== '"') return out;
      const key = str();
      ws();
      if (text[i] !== ':') return out;
      i++;
      value([...top.path, key]);
    } else {
      value([...top.path, top.index++]);
    }
  }
  return out;
}

/** Adds `line` and `column` to report entries whose path can be located in `text`. */
export function addPositions(text: string, entries: ReportEntry[]): ReportEntry[] {
  if (entries.length === 0) return entries;
  const offsets = valueOffsets(text);
  const lineStarts = [0];
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) lineStarts.push(k + 1);
  const locate = (off: number): { line: number; column: number } => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - (lineStarts[lo] ?? 0) + 1 };
  };
  return entries.map((e) => {
    for (let len = e.path.length; len >= 0; len--) {
      const off = offsets.get(JSON.stringify(e.path.slice(0, len)));
      if (off !== undefined) return { ...e, ...locate(off) };
    }
    return e;
  });
}
