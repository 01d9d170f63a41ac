/**
 * One pass over raw JSON text that records where every value starts, so that the "line L col C" of each report
 * entry is a map lookup instead of a re-scan of the text from its start (which made a report of N errors cost
 * O(N × size): minutes for a hostile MachineConfig of thousands of errors).
 *
 * Positions follow the MCO report's convention: the first character of the value (the bracket of an object or
 * list), 1-based line and column (UTF-16 code units); a path whose key occurs twice is placed at its first
 * occurrence; a path missing from the text has no position.
 */

/** Line/column of a value in the raw text. */
export interface TextPosition {
  line: number;
  col: number;
}

/** Finds the position of JSON paths in one raw text; build once, look up many. */
export interface JsonPositionIndex {
  locate(path: readonly (string | number)[]): TextPosition | undefined;
}

const segKey = (seg: string | number): string => JSON.stringify(String(seg));
const childKey = (parent: string, seg: string | number): string =>
  parent === '' ? segKey(seg) : `${parent},${segKey(seg)}`;

interface Frame {
  kind: 'obj' | 'arr';
  key: string;
  index: number;
}

class Scanner {
  i = 0;
  readonly offsets = new Map<string, number>();
  readonly stack: Frame[] = [];
  constructor(private readonly text: string) {}

  ws(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return;
      this.i++;
    }
  }

  /** Reads a string token; undefined when it is malformed (the scan stops there). */
  str(): string | undefined {
    const t = this.text;
    const start = this.i;
    this.i++;
    while (this.i < t.length && t[this.i] !== '"') this.i += t[this.i] === '\\' ? 2 : 1;
    this.i++;
    try {
      return JSON.parse(t.slice(start, this.i)) as string;
    } catch {
      return undefined;
    }
  }

  /** Records the value starting here; containers are pushed, scalars skipped. False when the text is malformed. */
  value(key: string): boolean {
    this.ws();
    const t = this.text;
    if (!this.offsets.has(key)) this.offsets.set(key, this.i);
    const c = t[this.i];
    if (c === '{' || c === '[') {
      this.i++;
      this.stack.push({ kind: c === '{' ? 'obj' : 'arr', key, index: 0 });
      return true;
    }
    if (c === '"') return this.str() !== undefined;
    while (this.i < t.length && !',]} \n\r\t'.includes(t.charAt(this.i))) this.i++;
    return true;
  }

  /** One step inside the innermost container; false when the scan must stop. */
  step(top: Frame): boolean {
    const t = this.text;
    this.ws();
    const c = t[this.i];
    if (c === '}' || c === ']') {
      this.i++;
      this.stack.pop();
      return true;
    }
    if (c === ',') {
      this.i++;
      this.ws();
    }
    if (top.kind === 'arr') return this.value(childKey(top.key, top.index++));
    if (t[this.i] !== '"') return false;
    const k = this.str();
    if (k === undefined) return false;
    this.ws();
    if (t[this.i] !== ':') return false;
    this.i++;
    return this.value(childKey(top.key, k));
  }

  run(): Map<string, number> {
    if (!this.value('')) return this.offsets;
    while (this.i < this.text.length) {
      const top = this.stack[this.stack.length - 1];
      if (!top || !this.step(top)) break;
    }
    return this.offsets;
  }
}

/** Builds the index of `raw` in one pass (iterative: no recursion, whatever the nesting). */
export function indexJsonPositions(raw: string): JsonPositionIndex {
  const offsets = new Scanner(raw).run();
  const lineStarts = [0];
  for (let k = 0; k < raw.length; k++) if (raw.charCodeAt(k) === 10) lineStarts.push(k + 1);
  const position = (off: number): TextPosition => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: off - (lineStarts[lo] ?? 0) + 1 };
  };
  return {
    locate(path) {
      let key = '';
      for (const seg of path) key = childKey(key, seg);
      const off = offsets.get(key);
      return off === undefined ? undefined : position(off);
    },
  };
}
