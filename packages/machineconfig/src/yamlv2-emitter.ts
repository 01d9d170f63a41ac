/** The yaml.v2 emitter (emitterc.go): scalar analysis, style selection, indentation and line folding. */
import { codePoints, isBlank, isBlankZ, isBreak, isPrintable, isSpace } from './yamlv2-chars.js';
import { formatGoFloat, isBase60Float, resolvesToNonString } from './yamlv2-resolve.js';
import { sortKeys } from './yamlv2-keys.js';
import { GoFloat, GoUint, type GoYamlValue } from './yamlv2-types.js';

// ---------------------------------------------------------------------------------------------------------------
// Emitter.

type Style = 'plain' | 'single' | 'double' | 'literal';

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const FIRST_INDICATORS = new Set(Array.from('#,[]{}&*!|>\'"%@`', (ch) => ch.charCodeAt(0)));

function analyzeScalar(v: number[]): Analysis {
  if (v.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (
    v.length >= 3 &&
    ((v[0] === 0x2d && v[1] === 0x2d && v[2] === 0x2d) || (v[0] === 0x2e && v[1] === 0x2e && v[2] === 0x2e))
  ) {
    blockIndicators = true;
  }
  let precededByWhitespace = true;
  for (let i = 0; i < v.length; i++) {
    const c = v[i] as number;
    const followedByWhitespace = i + 1 >= v.length || isBlank(v[i + 1]);
    if (i === 0) {
      if (FIRST_INDICATORS.has(c)) blockIndicators = true;
      else if ((c === 0x3f || c === 0x3a) && followedByWhitespace) blockIndicators = true;
      else if (c === 0x2d && followedByWhitespace) blockIndicators = true;
    } else if (c === 0x3a && followedByWhitespace) blockIndicators = true;
    else if (c === 0x23 && precededByWhitespace) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (isSpace(c)) {
      if (i === 0) leadingSpace = true;
      if (i + 1 === v.length) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i + 1 === v.length) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankZ(c);
  }
  const a: Analysis = { multiline: lineBreaks, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlainAllowed = false;
  if (trailingSpace) a.blockAllowed = false;
  if (breakSpace) {
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
    a.blockAllowed = false;
  }
  if (lineBreaks) a.blockPlainAllowed = false;
  if (blockIndicators) a.blockPlainAllowed = false;
  return a;
}

interface KeyInfo {
  cps: number[];
  analysis: Analysis;
  simple: boolean;
}
const KEY_CACHE = new Map<string, KeyInfo>();

function keyInfo(k: string): KeyInfo {
  let info = KEY_CACHE.get(k);
  if (!info) {
    const cps = codePoints(k);
    const analysis = analyzeScalar(cps);
    info = { cps, analysis, simple: !analysis.multiline && Buffer.byteLength(k, 'utf8') <= 128 };
    if (KEY_CACHE.size > 5000) KEY_CACHE.clear();
    KEY_CACHE.set(k, info);
  }
  return info;
}

const PLAIN_SLOW = /[ \r\n\u0085\u2028\u2029]/;
const BEST_INDENT = 2;
const BEST_WIDTH = 80;

export class Emitter {
  out = '';
  column = 0;
  indent = -1;
  indents: number[] = [];
  whitespace = true;
  indention = true;
  openEnded = false;
  flowLevel = 0;

  put(s: string): void {
    this.out += s;
    this.column++;
  }
  putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }
  writeCp(c: number): void {
    this.out += c < 0x10000 ? String.fromCharCode(c) : String.fromCodePoint(c);
    this.column++;
  }
  writeBreakCp(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.out += String.fromCharCode(c);
      this.column = 0;
    }
  }
  increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }
  popIndent(): void {
    this.indent = this.indents.pop() as number;
  }
  writeIndent(): void {
    const indent = this.indent < 0 ? 0 : this.indent;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }
  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of ind) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
    this.openEnded = false;
  }

  // --- nodes -----------------------------------------------------------------------------------------------
  node(v: GoYamlValue, ctx: { root: boolean; mapping: boolean; simpleKey: boolean }): void {
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.emptyFlow('[', ']');
        return;
      }
      this.increaseIndent(false, ctx.mapping && !this.indention);
      for (const item of v) {
        this.writeIndent();
        this.writeIndicator('-', true, false, true);
        this.node(item, { root: false, mapping: false, simpleKey: false });
      }
      this.popIndent();
      return;
    }
    if (v !== null && typeof v === 'object' && !(v instanceof GoFloat) && !(v instanceof GoUint)) {
      const keys = sortKeys(Object.keys(v));
      if (keys.length === 0) {
        this.emptyFlow('{', '}');
        return;
      }
      this.increaseIndent(false, false);
      for (const k of keys) {
        this.writeIndent();
        const { cps: kcp, analysis: ka, simple } = keyInfo(k);
        const value = (v as Record<string, GoYamlValue>)[k] as GoYamlValue;
        if (simple) {
          this.stringScalar(k, kcp, ka, { root: false, simpleKey: true });
          this.writeIndicator(':', false, false, false);
        } else {
          this.writeIndicator('?', true, false, true);
          this.stringScalar(k, kcp, ka, { root: false, simpleKey: false });
          this.writeIndent();
          this.writeIndicator(':', true, false, true);
        }
        this.node(value, { root: false, mapping: true, simpleKey: false });
      }
      this.popIndent();
      return;
    }
    if (typeof v === 'string') {
      const cps = codePoints(v);
      this.stringScalar(v, cps, analyzeScalar(cps), { root: ctx.root, simpleKey: ctx.simpleKey });
      return;
    }
    let text: string;
    if (v === null) text = 'null';
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (typeof v === 'bigint') text = v.toString();
    else if (v instanceof GoUint) text = v.value.toString();
    else if (v instanceof GoFloat) text = formatGoFloat(v.value);
    else if (Number.isSafeInteger(v)) text = BigInt(v).toString();
    else text = formatGoFloat(v);
    const cps = codePoints(text);
    this.scalar(cps, 'plain', analyzeScalar(cps), { root: ctx.root, simpleKey: ctx.simpleKey }, text);
  }

  emptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.increaseIndent(true, false);
    this.flowLevel++;
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator(close, false, false, false);
  }

  stringScalar(s: string, cps: number[], a: Analysis, ctx: { root: boolean; simpleKey: boolean }): void {
    const canUsePlain = !resolvesToNonString(s) && !isBase60Float(s);
    let style: Style;
    if (s.includes('\n')) style = 'literal';
    else if (canUsePlain) style = 'plain';
    else style = 'double';
    this.scalar(cps, style, a, ctx, s);
  }

  scalar(
    cps: number[],
    requested: Style,
    a: Analysis,
    ctx: { root: boolean; simpleKey: boolean },
    text?: string,
  ): void {
    let style = requested;
    if (ctx.simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlainAllowed) style = 'single';
      if (cps.length === 0 && ctx.simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || ctx.simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    const allowBreaks = !ctx.simpleKey;
    if (style === 'plain') this.writePlain(cps, allowBreaks, ctx.root, text);
    else if (style === 'single') this.writeSingle(cps, allowBreaks);
    else if (style === 'double') this.writeDouble(cps, allowBreaks);
    else this.writeLiteral(cps);
    this.popIndent();
  }

  writePlain(v: number[], allowBreaks: boolean, root: boolean, text?: string): void {
    if (!this.whitespace) this.put(' ');
    if (text !== undefined && !PLAIN_SLOW.test(text)) {
      // no spaces or line breaks: nothing can fold
      this.out += text;
      this.column += v.length;
      this.whitespace = false;
      this.indention = false;
      if (root) this.openEnded = true;
      return;
    }
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i] as number;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(v[i + 1])) this.writeIndent();
        else this.writeCp(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreakCp(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeCp(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
    if (root) this.openEnded = true;
  }

  writeSingle(v: number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < v.length; i++) {
      const c = v[i] as number;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1 && !isSpace(v[i + 1])) {
          this.writeIndent();
        } else this.writeCp(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreakCp(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.writeCp(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeDouble(v: number[], allowBreaks: boolean): void {
    let spaces = false;
    this.writeIndicator('"', true, false, false);
    const bom = v[0] === 0xfeff;
    for (let i = 0; i < v.length; i++) {
      const c = v[i] as number;
      if (!isPrintable(c) || bom || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.put('\\');
        const simple: Record<number, string> = {
          0x00: '0',
          0x07: 'a',
          0x08: 'b',
          0x09: 't',
          0x0a: 'n',
          0x0b: 'v',
          0x0c: 'f',
          0x0d: 'r',
          0x1b: 'e',
          0x22: '"',
          0x5c: '\\',
          0x85: 'N',
          0xa0: '_',
          0x2028: 'L',
          0x2029: 'P',
        };
        const e = simple[c];
        if (e !== undefined) this.put(e);
        else {
          let w: number;
          if (c <= 0xff) {
            this.put('x');
            w = 2;
          } else if (c <= 0xffff) {
            this.put('u');
            w = 4;
          } else {
            this.put('U');
            w = 8;
          }
          for (const d of c.toString(16).toUpperCase().padStart(w, '0')) this.put(d);
        }
        spaces = false;
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < v.length - 1) {
          this.writeIndent();
          if (isSpace(v[i + 1])) this.put('\\');
        } else this.writeCp(c);
        spaces = true;
      } else {
        this.writeCp(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeLiteral(v: number[]): void {
    this.writeIndicator('|', true, false, false);
    // block scalar hints
    if (isSpace(v[0]) || isBreak(v[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    this.openEnded = false;
    let chomp = '';
    if (v.length === 0) chomp = '-';
    else {
      const last = v.length - 1;
      if (!isBreak(v[last])) chomp = '-';
      else if (last === 0) {
        chomp = '+';
        this.openEnded = true;
      } else if (isBreak(v[last - 1])) {
        chomp = '+';
        this.openEnded = true;
      }
    }
    if (chomp !== '') this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of v) {
      if (isBreak(c)) {
        this.writeBreakCp(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeCp(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}
