/**
 * Go text/template's parser (text/template/parse/parse.go): a template text → trees by name (`define`/`block` add
 * more trees). Error messages are Go's: `template: NAME:LINE: MESSAGE`.
 */
import { Lexer, type Item } from './lex.js';
import type {
  ArgNode,
  BranchFields,
  CommandNode,
  ListNode,
  Node,
  NumberNode,
  PipeNode,
  TemplateNode,
  VariableNode,
} from './nodes.js';
import { nodeString } from './nodes.js';
import { parseNumber, unquote } from './literals.js';

/** A parse error, message as Go's (`template: NAME:LINE: …`). */
export class TemplateParseError extends Error {
  readonly code = 'GOTEMPLATE_PARSE';
  constructor(message: string) {
    super(message);
    this.name = 'TemplateParseError';
  }
}

export interface Tree {
  name: string;
  parseName: string;
  root: ListNode;
  text: string;
}

type EndNode = { t: 'end'; pos: number } | { t: 'else'; pos: number; line: number };
type ListItem = Node | EndNode;

function itemString(i: Item): string {
  if (i.typ === 'eof') return 'EOF';
  if (i.typ === 'error') return i.val;
  if (i.typ === 'keyword') return `<${i.val}>`;
  if (i.typ === 'nil' || i.typ === 'dot' || i.typ === 'bool') return JSON.stringify(i.val);
  return i.val.length > 10 ? `${goQuote(i.val).slice(0, 11)}...` : goQuote(i.val);
}

const goQuote = (s: string): string => JSON.stringify(s);

const isEmptyTree = (n: Node): boolean =>
  n.t === 'list' ? n.nodes.every(isEmptyTree) : n.t === 'text' ? n.text.trim() === '' : n.t === 'comment';

/** Parses `text` as template `name`; returns every tree it defines (the top-level one under `name`). */
export function parseTemplate(
  name: string,
  text: string,
  hasFunction: (n: string) => boolean,
  delims?: [string, string],
): Map<string, Tree> {
  const items = new Lexer(name, text, delims?.[0] || '{{', delims?.[1] || '}}').items;
  const p = new Parser(name, text, items, hasFunction, new Map());
  p.parseTop();
  return p.treeSet;
}

class Parser {
  private i = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private actionLine = 0;

  constructor(
    private readonly name: string,
    private readonly text: string,
    private readonly items: Item[],
    private readonly hasFunction: (n: string) => boolean,
    readonly treeSet: Map<string, Tree>,
    private readonly parseName = name,
  ) {}

  private errorf(msg: string): never {
    const line = this.items[Math.max(0, Math.min(this.i, this.items.length) - 1)]?.line ?? 1;
    throw new TemplateParseError(`template: ${this.parseName}:${line}: ${msg}`);
  }

  private next(): Item {
    const it = this.items[this.i] ?? this.items[this.items.length - 1];
    if (!it) this.errorf('unexpected EOF');
    this.i++;
    return it;
  }
  private backup(n = 1): void {
    this.i -= n;
  }
  private peek(): Item {
    const it = this.next();
    this.backup();
    return it;
  }
  private nextNonSpace(): Item {
    let it = this.next();
    while (it.typ === 'space') it = this.next();
    return it;
  }
  private peekNonSpace(): Item {
    const it = this.nextNonSpace();
    this.backup();
    return it;
  }

  private unexpected(token: Item, context: string): never {
    if (token.typ === 'error') {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.errorf(`${token.val}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  private expect(typ: Item['typ'], context: string): Item {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }

  private add(name: string, root: ListNode): void {
    const old = this.treeSet.get(name);
    if (old === undefined || isEmptyTree(old.root)) {
      this.treeSet.set(name, { name, parseName: this.parseName, root, text: this.text });
      return;
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${goQuote(name)}`);
  }

  parseTop(): void {
    const root: ListNode = { t: 'list', pos: this.peek().pos, nodes: [] };
    while (this.peek().typ !== 'eof') {
      if (this.peek().typ === 'leftDelim') {
        const save = this.i;
        this.next();
        const kw = this.nextNonSpace();
        if (kw.typ === 'keyword' && kw.val === 'define') {
          this.parseDefinition();
          continue;
        }
        this.i = save;
      }
      const n = this.textOrAction();
      if (n.t === 'end' || n.t === 'else') this.errorf(`unexpected ${n.t === 'end' ? '{{end}}' : '{{else}}'}`);
      root.nodes.push(n);
    }
    this.add(this.name, root);
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const nameTok = this.nextNonSpace();
    const name = this.templateName(nameTok, context);
    this.expect('rightDelim', context);
    const savedVars = this.vars;
    this.vars = ['$'];
    const [list, end] = this.itemList();
    this.vars = savedVars;
    if (end.t !== 'end') this.errorf(`unexpected ${nodeStringAny(end)} in ${context}`);
    this.add(name, list);
  }

  private itemList(): [ListNode, EndNode] {
    const list: ListNode = { t: 'list', pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().typ !== 'eof') {
      const n = this.textOrAction();
      if (n.t === 'end' || n.t === 'else') return [list, n];
      list.nodes.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): ListItem {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case 'text':
        return { t: 'text', pos: token.pos, text: token.val };
      case 'leftDelim':
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      case 'comment':
        return { t: 'comment', pos: token.pos, text: token.val };
      default:
        this.unexpected(token, 'input');
    }
  }

  private action(): ListItem {
    const token = this.nextNonSpace();
    if (token.typ === 'keyword') {
      switch (token.val) {
        case 'block':
          return this.blockControl();
        case 'break':
        case 'continue':
          return this.loopControl(token);
        case 'else':
          return this.elseControl();
        case 'end':
          return { t: 'end', pos: this.expect('rightDelim', 'end').pos };
        case 'if':
        case 'range':
        case 'with':
          return this.branch(token.val);
        case 'template':
          return this.templateControl();
        default:
          break;
      }
    }
    this.backup();
    const tok = this.peek();
    return { t: 'action', pos: tok.pos, line: tok.line, pipe: this.pipeline('command', 'rightDelim') };
  }

  private loopControl(token: Item): Node {
    const tok = this.nextNonSpace();
    if (tok.typ !== 'rightDelim') this.unexpected(tok, `{{${token.val}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${token.val}}} outside {{range}}`);
    return token.val === 'break'
      ? { t: 'break', pos: token.pos, line: token.line }
      : { t: 'continue', pos: token.pos, line: token.line };
  }

  private elseControl(): EndNode {
    const peek = this.peekNonSpace();
    if (peek.typ === 'keyword' && (peek.val === 'if' || peek.val === 'with'))
      return { t: 'else', pos: peek.pos, line: peek.line };
    const token = this.expect('rightDelim', 'else');
    return { t: 'else', pos: token.pos, line: token.line };
  }

  private branch(context: 'if' | 'range' | 'with'): Node {
    const depth = this.vars.length;
    const pipe = this.pipeline(context, 'rightDelim');
    if (context === 'range') this.rangeDepth++;
    const [list, next] = this.itemList();
    if (context === 'range') this.rangeDepth--;
    let elseList: ListNode | null = null;
    if (next.t === 'else') {
      const pk = this.peek();
      if ((context === 'if' || context === 'with') && pk.typ === 'keyword' && pk.val === context) {
        this.next();
        elseList = { t: 'list', pos: next.pos, nodes: [this.branch(context)] };
      } else {
        const [els, end] = this.itemList();
        if (end.t !== 'end') this.errorf(`expected end; found ${nodeStringAny(end)}`);
        elseList = els;
      }
    }
    this.vars.length = depth;
    const fields: BranchFields = { pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    return { t: context, ...fields };
  }

  private templateName(token: Item, context: string): string {
    if (token.typ === 'string' || token.typ === 'rawString') return this.unquoteOrFail(token.val);
    this.unexpected(token, context);
  }

  private unquoteOrFail(s: string): string {
    const r = unquote(s);
    if (r === null) this.errorf('invalid syntax');
    return r;
  }

  private templateControl(): TemplateNode {
    const context = 'template clause';
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== 'rightDelim') {
      this.backup();
      pipe = this.pipeline(context, 'rightDelim');
    }
    return { t: 'template', pos: token.pos, line: token.line, name, pipe };
  }

  private blockControl(): TemplateNode {
    const context = 'block clause';
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    const pipe = this.pipeline(context, 'rightDelim');
    const savedVars = this.vars;
    const savedDepth = this.rangeDepth;
    this.vars = ['$'];
    this.rangeDepth = 0;
    const [list, end] = this.itemList();
    this.vars = savedVars;
    this.rangeDepth = savedDepth;
    if (end.t !== 'end') this.errorf(`unexpected ${nodeStringAny(end)} in ${context}`);
    this.add(name, list);
    return { t: 'template', pos: token.pos, line: token.line, name, pipe };
  }

  private pipeline(context: string, end: 'rightDelim' | 'rightParen'): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = { t: 'pipe', pos: first.pos, line: first.line, isAssign: false, decl: [], cmds: [] };
    this.declarations(pipe, context);
    for (;;) {
      const token = this.nextNonSpace();
      if (token.typ === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (token.typ) {
        case 'bool':
        case 'charConstant':
        case 'dot':
        case 'field':
        case 'identifier':
        case 'number':
        case 'nil':
        case 'rawString':
        case 'string':
        case 'variable':
        case 'leftParen':
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private declarations(pipe: PipeNode, context: string): void {
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== 'variable') return;
      const save = this.i;
      this.nextNonSpace();
      const next = this.peekNonSpace();
      if (next.typ === 'assign' || next.typ === 'declare') {
        pipe.isAssign = next.typ === 'assign';
        this.nextNonSpace();
        pipe.decl.push({ t: 'variable', pos: v.pos, ident: v.val.split('.') });
        this.vars.push(v.val);
        return;
      }
      if (next.typ === 'char' && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push({ t: 'variable', pos: v.pos, ident: v.val.split('.') });
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const pk = this.peekNonSpace().typ;
          if (pk === 'variable' || pk === 'rightDelim' || pk === 'rightParen') continue;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      }
      // an argument variable, not a declaration: push back
      this.i = save;
      return;
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0]?.t;
      if (t === 'bool' || t === 'dot' || t === 'nil' || t === 'number' || t === 'string')
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
    });
  }

  private command(): CommandNode {
    const cmd: CommandNode = { t: 'command', pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const token = this.next();
      if (token.typ === 'space') continue;
      if (token.typ === 'rightDelim' || token.typ === 'rightParen') this.backup();
      else if (token.typ !== 'pipe') this.unexpected(token, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().typ !== 'field') return node;
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().typ === 'field') fields.push(...this.next().val.slice(1).split('.'));
    switch (node.t) {
      case 'field':
        return { t: 'field', pos, ident: [...node.ident, ...fields] };
      case 'variable':
        return { t: 'variable', pos, ident: [...node.ident, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
      // falls through (errorf throws)
      default:
        return { t: 'chain', pos, node, field: fields };
    }
  }

  private term(): ArgNode | null {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case 'identifier':
        if (!this.hasFunction(token.val)) this.errorf(`function ${goQuote(token.val)} not defined`);
        return { t: 'identifier', pos: token.pos, ident: token.val };
      case 'dot':
        return { t: 'dot', pos: token.pos };
      case 'nil':
        return { t: 'nil', pos: token.pos };
      case 'variable':
        return this.useVar(token);
      case 'field':
        return { t: 'field', pos: token.pos, ident: token.val.slice(1).split('.') };
      case 'bool':
        return { t: 'bool', pos: token.pos, value: token.val === 'true' };
      case 'charConstant':
      case 'number':
        return this.number(token);
      case 'leftParen':
        return this.pipeline('parenthesized pipeline', 'rightParen');
      case 'string':
      case 'rawString':
        return { t: 'string', pos: token.pos, quoted: token.val, text: this.unquoteOrFail(token.val) };
      default:
        this.backup();
        return null;
    }
  }

  private number(token: Item): NumberNode {
    const r = parseNumber(token.val, token.typ === 'charConstant');
    if (typeof r === 'string') this.errorf(r);
    return { t: 'number', pos: token.pos, ...r };
  }

  private useVar(token: Item): VariableNode {
    const ident = token.val.split('.');
    if (!this.vars.includes(ident[0] ?? '')) this.errorf(`undefined variable ${goQuote(ident[0] ?? '')}`);
    return { t: 'variable', pos: token.pos, ident };
  }
}

function nodeStringAny(n: ListItem): string {
  if (n.t === 'end') return '{{end}}';
  if (n.t === 'else') return '{{else}}';
  return nodeString(n);
}
