/**
 * Go text/template's lexer (text/template/parse/lex.go): text, actions between `{{` and `}}`, trim markers
 * (`{{- ` / ` -}}`), comments, and the tokens inside actions.
 */

export type ItemType =
  | 'error'
  | 'bool'
  | 'char'
  | 'charConstant'
  | 'comment'
  | 'assign'
  | 'declare'
  | 'eof'
  | 'field'
  | 'identifier'
  | 'leftDelim'
  | 'leftParen'
  | 'number'
  | 'pipe'
  | 'rawString'
  | 'rightDelim'
  | 'rightParen'
  | 'space'
  | 'string'
  | 'text'
  | 'variable'
  | 'dot'
  | 'nil'
  | 'keyword';

export interface Item {
  typ: ItemType;
  pos: number;
  val: string;
  line: number;
}

const KEYWORDS = new Set(['block', 'break', 'continue', 'define', 'else', 'end', 'if', 'range', 'template', 'with']);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlnum = (c: string): boolean => c === '_' || /^[\p{L}\p{Nd}]$/u.test(c);

/** Go's %#U of a character: `U+0026 '&'`. */
export function quoteRune(c: string): string {
  const cp = c.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return /\p{L}|\p{N}|\p{P}|\p{S}/u.test(c) || c === ' ' ? `U+${hex} '${c}'` : `U+${hex}`;
}

export class Lexer {
  readonly items: Item[] = [];
  private pos = 0;
  private start = 0;
  private line = 1;
  private startLine = 1;
  private parenDepth = 0;
  private insideAction = false;

  constructor(
    readonly name: string,
    readonly input: string,
    readonly leftDelim = '{{',
    readonly rightDelim = '}}',
  ) {
    this.run();
  }

  private emit(typ: ItemType): void {
    this.items.push({ typ, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine });
    this.start = this.pos;
    this.startLine = this.line;
  }

  private ignore(): void {
    this.line += countNL(this.input.slice(this.start, this.pos));
    this.start = this.pos;
    this.startLine = this.line;
  }

  private next(): string {
    if (this.pos >= this.input.length) return '';
    const c = this.input[this.pos] ?? '';
    this.pos++;
    if (c === '\n') this.line++;
    return c;
  }

  private backup(): void {
    this.pos--;
    if (this.input[this.pos] === '\n') this.line--;
  }

  private peek(): string {
    return this.input[this.pos] ?? '';
  }

  private errorf(msg: string): false {
    this.items.push({ typ: 'error', pos: this.start, val: msg, line: this.startLine });
    return false;
  }

  private run(): void {
    let ok = true;
    while (ok) ok = this.insideAction ? this.lexInsideAction() : this.lexText();
  }

  private atRightDelim(): { delim: boolean; trim: boolean } {
    const rest = this.input.slice(this.pos);
    if (rest.length >= 3 && isSpace(rest[0] ?? '') && rest[1] === '-' && rest.startsWith(this.rightDelim, 2))
      return { delim: true, trim: true };
    if (rest.startsWith(this.rightDelim)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  }

  private lexText(): boolean {
    const x = this.input.indexOf(this.leftDelim, this.pos);
    if (x < 0) {
      this.pos = this.input.length;
      if (this.pos > this.start) {
        this.line += countNL(this.input.slice(this.start, this.pos));
        this.emit('text');
      }
      this.emit('eof');
      return false;
    }
    this.pos = x;
    const after = this.input.slice(x + this.leftDelim.length);
    const trim = after.length >= 2 && after[0] === '-' && isSpace(after[1] ?? '');
    let textEnd = x;
    if (trim) textEnd = trimRightSpace(this.input, this.start, x);
    if (textEnd > this.start) {
      const save = this.pos;
      this.pos = textEnd;
      this.line += countNL(this.input.slice(this.start, this.pos));
      this.emit('text');
      this.pos = save;
    }
    this.line += countNL(this.input.slice(textEnd, x));
    this.start = x;
    this.startLine = this.line;
    return this.lexLeftDelim(trim);
  }

  private lexLeftDelim(trim: boolean): boolean {
    this.pos += this.leftDelim.length;
    const afterMarker = trim ? 2 : 0;
    if (this.input.startsWith('/*', this.pos + afterMarker)) {
      this.pos += afterMarker;
      this.ignore();
      return this.lexComment();
    }
    this.emit('leftDelim');
    this.pos += afterMarker;
    this.ignore();
    this.insideAction = true;
    this.parenDepth = 0;
    return true;
  }

  private lexComment(): boolean {
    this.pos += 2;
    const x = this.input.indexOf('*/', this.pos);
    if (x < 0) return this.errorf('unclosed comment');
    this.pos = x + 2;
    const { delim, trim } = this.atRightDelim();
    if (!delim) return this.errorf('comment ends before closing delimiter');
    this.ignore();
    this.pos += (trim ? 2 : 0) + this.rightDelim.length;
    if (trim) this.pos = skipLeftSpace(this.input, this.pos);
    this.ignore();
    return true;
  }

  private lexRightDelim(trim: boolean): boolean {
    if (trim) {
      this.pos += 2;
      this.ignore();
    }
    this.pos += this.rightDelim.length;
    this.emit('rightDelim');
    if (trim) {
      this.pos = skipLeftSpace(this.input, this.pos);
      this.ignore();
    }
    this.insideAction = false;
    return true;
  }

  private lexInsideAction(): boolean {
    const { delim, trim } = this.atRightDelim();
    if (delim) {
      if (this.parenDepth === 0) return this.lexRightDelim(trim);
      return this.errorf('unclosed left paren');
    }
    const r = this.next();
    if (r === '') return this.errorf('unclosed action');
    if (isSpace(r)) {
      this.backup();
      return this.lexSpace();
    }
    return this.lexActionChar(r);
  }

  private lexActionChar(r: string): boolean {
    switch (r) {
      case '=':
        this.emit('assign');
        return true;
      case ':':
        if (this.next() !== '=') return this.errorf('expected :=');
        this.emit('declare');
        return true;
      case '|':
        this.emit('pipe');
        return true;
      case '"':
        return this.lexQuote();
      case '`':
        return this.lexRawQuote();
      case '$':
        return this.lexVariable();
      case "'":
        return this.lexChar();
      case '.':
        if (this.pos < this.input.length && /[0-9]/.test(this.peek())) {
          this.backup();
          return this.lexNumber();
        }
        return this.lexField();
      case '(':
        this.emit('leftParen');
        this.parenDepth++;
        return true;
      case ')':
        this.parenDepth--;
        if (this.parenDepth < 0) return this.errorf('unexpected right paren');
        this.emit('rightParen');
        return true;
      default:
        break;
    }
    if (r === '+' || r === '-' || /[0-9]/.test(r)) {
      this.backup();
      return this.lexNumber();
    }
    if (isAlnum(r)) {
      this.backup();
      return this.lexIdentifier();
    }
    if (r.charCodeAt(0) <= 0x7f && /[\x21-\x7e]/.test(r)) {
      this.emit('char');
      return true;
    }
    return this.errorf(`unrecognized character in action: ${quoteRune(r)}`);
  }

  private lexSpace(): boolean {
    let numSpaces = 0;
    for (;;) {
      const r = this.peek();
      if (!isSpace(r)) break;
      this.next();
      numSpaces++;
    }
    // a trim marker " -}}" begins with this space: leave it for the delimiter
    if (this.input.startsWith(`-${this.rightDelim}`, this.pos) && numSpaces > 0) {
      this.backup();
      if (numSpaces === 1) return true;
    }
    this.emit('space');
    return true;
  }

  private lexIdentifier(): boolean {
    for (;;) {
      const r = this.next();
      if (r !== '' && isAlnum(r)) continue;
      if (r !== '') this.backup();
      const word = this.input.slice(this.start, this.pos);
      if (!this.atTerminator()) return this.errorf(`bad character ${quoteRune(this.peek())}`);
      if (KEYWORDS.has(word)) this.emit('keyword');
      else if (word.startsWith('.')) this.emit('field');
      else if (word === 'true' || word === 'false') this.emit('bool');
      else if (word === 'nil') this.emit('nil');
      else if (word === '.') this.emit('dot');
      else this.emit('identifier');
      return true;
    }
  }

  private lexField(): boolean {
    return this.lexFieldOrVariable('field');
  }

  private lexVariable(): boolean {
    return this.lexFieldOrVariable('variable');
  }

  private lexFieldOrVariable(typ: 'field' | 'variable'): boolean {
    if (this.atTerminator()) {
      if (typ === 'variable') this.emit('variable');
      else this.emit('dot');
      return true;
    }
    for (;;) {
      const r = this.next();
      if (r !== '' && isAlnum(r)) continue;
      if (r !== '') this.backup();
      break;
    }
    if (!this.atTerminator()) return this.errorf(`bad character ${quoteRune(this.peek())}`);
    this.emit(typ);
    return true;
  }

  private atTerminator(): boolean {
    const r = this.peek();
    if (r === '' || isSpace(r)) return true;
    if ('.,|:()'.includes(r)) return true;
    return this.input.startsWith(this.rightDelim, this.pos);
  }

  private lexChar(): boolean {
    for (;;) {
      let r = this.next();
      if (r === '\\') {
        r = this.next();
        if (r !== '' && r !== '\n') continue;
      }
      if (r === '' || r === '\n') return this.errorf('unterminated character constant');
      if (r === "'") break;
    }
    this.emit('charConstant');
    return true;
  }

  private lexNumber(): boolean {
    const m =
      /^[+-]?(0[xX][0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?([pP][+-]?[0-9_]+)?|0[bB][01_]*|0[oO][0-7_]*|[0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?)i?/.exec(
        this.input.slice(this.pos),
      );
    const text = m?.[0] ?? '';
    this.pos += text.length;
    if (text === '' || text === '+' || text === '-' || isAlnum(this.peek())) {
      this.next();
      return this.errorf(`bad number syntax: "${this.input.slice(this.start, this.pos)}"`);
    }
    this.emit('number');
    return true;
  }

  private lexQuote(): boolean {
    for (;;) {
      let r = this.next();
      if (r === '\\') {
        r = this.next();
        if (r !== '' && r !== '\n') continue;
      }
      if (r === '' || r === '\n') return this.errorf('unterminated quoted string');
      if (r === '"') break;
    }
    this.emit('string');
    return true;
  }

  private lexRawQuote(): boolean {
    const x = this.input.indexOf('`', this.pos);
    if (x < 0) return this.errorf('unterminated raw quoted string');
    this.line += countNL(this.input.slice(this.pos, x));
    this.pos = x + 1;
    this.emit('rawString');
    return true;
  }
}

function countNL(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function trimRightSpace(s: string, start: number, end: number): number {
  let e = end;
  while (e > start && isSpace(s[e - 1] ?? '')) e--;
  return e;
}

function skipLeftSpace(s: string, pos: number): number {
  let p = pos;
  while (p < s.length && isSpace(s[p] ?? '')) p++;
  return p;
}
