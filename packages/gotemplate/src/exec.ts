/**
 * Go text/template's executor (text/template/exec.go): walks a tree with a data value, Go's truth, variables,
 * field/method/map access, function calls with argument checks, and Go's error messages
 * (`template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`).
 */
import { formatValue } from './fmt.js';
import { SHORT_CIRCUIT, type FuncSpec, type ParamType } from './funcs.js';
import type {
  ArgNode,
  BranchFields,
  ChainNode,
  CommandNode,
  FieldNode,
  IdentifierNode,
  Node,
  PipeNode,
  RangeNode,
  VariableNode,
} from './nodes.js';
import { nodeString } from './nodes.js';
import type { Tree } from './parse.js';
import { GoFloat, GoNil, GoStruct, isTrue, kindOf, mapEntries, mapGet, typeName } from './value.js';

/** An execution error, message as Go's. */
export class TemplateExecError extends Error {
  readonly code = 'GOTEMPLATE_EXEC';
  constructor(message: string) {
    super(message);
    this.name = 'TemplateExecError';
  }
}

export type MissingKey = 'default' | 'invalid' | 'zero' | 'error';

export interface ExecEnv {
  trees: ReadonlyMap<string, Tree>;
  funcs: ReadonlyMap<string, FuncSpec>;
  builtinNames: ReadonlySet<string>;
  missingKey: MissingKey;
  maxDepth: number;
  maxOutput: number;
}

const MISSING = Symbol('missing');
type Final = unknown;
/** {{break}} / {{continue}} unwinding to the enclosing range (never escapes the executor). */
class LoopSignal extends Error {}
const BREAK = new LoopSignal('break');
const CONTINUE = new LoopSignal('continue');

type AnyNode = Node | ArgNode | CommandNode;

export class State {
  private out = '';
  private vars: Array<{ name: string; value: unknown }> = [];
  private node: AnyNode | null = null;
  private depth = 0;

  constructor(
    private readonly env: ExecEnv,
    private tree: Tree,
  ) {}

  run(data: unknown): string {
    this.vars = [{ name: '$', value: data }];
    this.walk(data, this.tree.root);
    return this.out;
  }

  private errorf(msg: string): never {
    const name = this.tree.name;
    if (this.node === null) throw new TemplateExecError(`template: ${name}: ${msg}`);
    const pos = this.node.pos;
    const text = this.tree.text.slice(0, pos);
    const nl = text.lastIndexOf('\n');
    const col = nl < 0 ? Buffer.byteLength(text) : Buffer.byteLength(text.slice(nl + 1));
    const line = 1 + (text.match(/\n/g)?.length ?? 0);
    let ctx = nodeString(this.node);
    if (ctx.length > 20) ctx = `${ctx.slice(0, 20)}...`;
    throw new TemplateExecError(
      `template: ${this.tree.parseName}:${line}:${col}: executing ${JSON.stringify(name)} at <${ctx}>: ${msg}`,
    );
  }

  private at(n: AnyNode): void {
    this.node = n;
  }

  private write(s: string): void {
    this.out += s;
    if (this.out.length > this.env.maxOutput) this.errorf(`output exceeds ${this.env.maxOutput} characters`);
  }

  private walk(dot: unknown, node: Node): void {
    this.at(node);
    switch (node.t) {
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case 'break':
        throw BREAK;
      case 'continue':
        throw CONTINUE;
      case 'comment':
        return;
      case 'if':
      case 'with':
        this.walkIfOrWith(node.t, dot, node);
        return;
      case 'list':
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case 'range':
        this.walkRange(dot, node);
        return;
      case 'template':
        this.walkTemplate(dot, node.name, node.pipe);
        return;
      case 'text':
        this.write(node.text);
        return;
    }
  }

  private walkIfOrWith(kind: 'if' | 'with', dot: unknown, node: BranchFields): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, node.pipe);
      if (isTrue(val)) this.walk(kind === 'with' ? val : dot, node.list);
      else if (node.elseList) this.walk(dot, node.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: unknown, r: RangeNode): void {
    this.at(r);
    const outer = this.vars.length;
    try {
      const val = this.evalPipeline(dot, r.pipe);
      const mark = this.vars.length;
      const one = (index: unknown, elem: unknown): void => {
        this.iterationVars(r.pipe, index, elem);
        try {
          this.walk(elem, r.list);
        } catch (e) {
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = mark;
        }
      };
      if (this.rangeOver(val, r, one)) return;
      if (r.elseList) this.walk(dot, r.elseList);
    } catch (e) {
      if (e !== BREAK) throw e;
    } finally {
      this.vars.length = outer;
    }
  }

  /** Iterates; false when nothing was iterated (the else branch runs). */
  private rangeOver(val: unknown, r: RangeNode, one: (i: unknown, e: unknown) => void): boolean {
    const k = kindOf(val);
    if (k === 'slice' || k === 'bytes') {
      const arr = val as ArrayLike<unknown>;
      for (let i = 0; i < arr.length; i++) one(i, arr[i]);
      return arr.length > 0;
    }
    if (k === 'map') {
      const entries = mapEntries(val);
      for (const [key, v] of entries) one(key, v);
      return entries.length > 0;
    }
    if (k === 'int') {
      if (r.pipe.decl.length > 1) this.errorf(`can't use ${formatValue(val)} to iterate over more than one variable`);
      const n = Number(val);
      for (let i = 0; i < n; i++) one(i, i);
      return n > 0;
    }
    if (k === 'invalid' || k === 'nil') return false;
    if (val instanceof GoStruct && val.pointer) this.errorf(`range can't iterate over ${formatValue(val)}`);
    this.errorf(`range can't iterate over ${formatValue(val)}`);
  }

  private iterationVars(pipe: PipeNode, index: unknown, elem: unknown): void {
    const d = pipe.decl;
    if (d.length === 0) return;
    if (pipe.isAssign) {
      this.setVar(d[0]?.ident[0] ?? '', d.length > 1 ? index : elem);
      if (d.length > 1) this.setVar(d[1]?.ident[0] ?? '', elem);
      return;
    }
    this.setTopVar(1, elem);
    if (d.length > 1) this.setTopVar(2, index);
  }

  private walkTemplate(dot: unknown, name: string, pipe: PipeNode | null): void {
    const tree = this.env.trees.get(name);
    if (!tree) this.errorf(`template ${JSON.stringify(name)} not defined`);
    if (this.depth >= this.env.maxDepth) this.errorf(`exceeded maximum template depth (${this.env.maxDepth})`);
    const newDot = pipe ? this.evalPipeline(dot, pipe) : undefined;
    const saved = { tree: this.tree, vars: this.vars };
    this.tree = tree;
    this.vars = [{ name: '$', value: newDot }];
    this.depth++;
    try {
      this.walk(newDot, tree.root);
    } finally {
      this.depth--;
      this.tree = saved.tree;
      this.vars = saved.vars;
    }
  }

  private evalPipeline(dot: unknown, pipe: PipeNode): unknown {
    this.at(pipe);
    let value: unknown = MISSING;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0] ?? '', value);
      else this.vars.push({ name: v.ident[0] ?? '', value });
    }
    return value;
  }

  private notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING)
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as ArgNode)}`);
  }

  private evalCommand(dot: unknown, cmd: CommandNode, final: Final): unknown {
    const first = cmd.args[0] as ArgNode;
    switch (first.t) {
      case 'field':
        return this.evalFieldNode(dot, first, cmd.args, final);
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariableNode(dot, first, cmd.args, final);
      default:
        break;
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.t) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        this.errorf('nil is not a command');
      // falls through (errorf throws)
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
  }

  private idealConstant(n: Extract<ArgNode, { t: 'number' }>): unknown {
    const isHexInt = /^[+-]?0[xX]/.test(n.text) && !/[pP]/.test(n.text);
    if (n.isFloat && !isHexInt && !n.text.startsWith("'") && /[.eEpP]/.test(n.text)) return new GoFloat(n.float);
    if (n.isInt) {
      if (n.int > BigInt(Number.MAX_SAFE_INTEGER) || n.int < BigInt(Number.MIN_SAFE_INTEGER)) return n.int;
      return Number(n.int);
    }
    if (n.isUint) this.errorf(`${n.text} overflows int`);
    return new GoFloat(n.float);
  }

  private evalFieldNode(dot: unknown, field: FieldNode, args: ArgNode[], final: Final): unknown {
    this.at(field);
    return this.evalFieldChain(dot, dot, field, field.ident, args, final);
  }

  private evalChainNode(dot: unknown, chain: ChainNode, args: ArgNode[], final: Final): unknown {
    this.at(chain);
    if (chain.node.t === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, 'any', chain.node, true);
    return this.evalFieldChain(dot, pipe, chain, chain.field, args, final);
  }

  private evalVariableNode(dot: unknown, v: VariableNode, args: ArgNode[], final: Final): unknown {
    this.at(v);
    const value = this.varValue(v.ident[0] ?? '');
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(
    dot: unknown,
    receiver: unknown,
    node: AnyNode,
    ident: string[],
    args: ArgNode[],
    final: Final,
  ): unknown {
    let r = receiver;
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(dot, ident[i] ?? '', node, [], MISSING, r);
    return this.evalField(dot, ident[ident.length - 1] ?? '', node, args, final, r);
  }

  private evalField(
    dot: unknown,
    name: string,
    node: AnyNode,
    args: ArgNode[],
    final: Final,
    receiver: unknown,
  ): unknown {
    if (receiver === undefined) {
      if (this.env.missingKey === 'error') this.errorf(`nil data; no entry for key ${JSON.stringify(name)}`);
      return undefined;
    }
    if (receiver === null) this.errorf(`nil pointer evaluating interface {}.${name}`);
    const method = receiver instanceof GoStruct ? receiver.methods.get(name) : undefined;
    if (method) return this.evalCall(dot, { fn: method, params: argTypes(method) }, false, node, name, args, final);
    const hasArgs = args.length > 1 || final !== MISSING;
    if (receiver instanceof GoStruct) {
      if (receiver.fields.has(name)) {
        if (hasArgs) this.errorf(`${name} has arguments but cannot be invoked as function`);
        return receiver.fields.get(name);
      }
      this.errorf(`can't evaluate field ${name} in type ${typeName(receiver)}`);
    }
    if (receiver instanceof GoNil) {
      if (receiver.kind === 'ptr' && !receiver.fields.has(name))
        this.errorf(`can't evaluate field ${name} in type ${receiver.typeName}`);
      if (receiver.kind === 'ptr') this.errorf(`nil pointer evaluating ${receiver.typeName}.${name}`);
      if (receiver.kind === 'map') return this.missingKey(name);
      this.errorf(`can't evaluate field ${name} in type ${receiver.typeName}`);
    }
    if (
      kindOf(receiver) === 'map' &&
      !(receiver instanceof Map && [...receiver.keys()].some((k) => typeof k !== 'string'))
    ) {
      if (hasArgs) this.errorf(`${name} is not a method but has arguments`);
      const { found, value } = mapGet(receiver, name);
      return found ? value : this.missingKey(name);
    }
    this.errorf(`can't evaluate field ${name} in type ${typeName(receiver)}`);
  }

  private missingKey(name: string): unknown {
    switch (this.env.missingKey) {
      case 'zero':
        return null;
      case 'error':
        this.errorf(`map has no entry for key ${JSON.stringify(name)}`);
      // falls through (errorf throws)
      default:
        return undefined;
    }
  }

  private evalFunction(dot: unknown, node: IdentifierNode, cmd: CommandNode, args: ArgNode[], final: Final): unknown {
    this.at(node);
    const fn = this.env.funcs.get(node.ident);
    if (!fn) this.errorf(`${JSON.stringify(node.ident)} is not a defined function`);
    return this.evalCall(dot, fn, this.env.builtinNames.has(node.ident), cmd, node.ident, args, final);
  }

  private evalCall(
    dot: unknown,
    spec: FuncSpec,
    isBuiltin: boolean,
    node: AnyNode,
    name: string,
    allArgs: ArgNode[],
    final: Final,
  ): unknown {
    const args = allArgs.slice(1);
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    const fixed = spec.params.length;
    if (spec.variadic !== undefined) {
      if (numIn < fixed) this.errorf(`wrong number of args for ${name}: want at least ${fixed} got ${args.length}`);
    } else if (numIn !== fixed) this.errorf(`wrong number of args for ${name}: want ${fixed} got ${numIn}`);
    if (isBuiltin && SHORT_CIRCUIT.has(name)) {
      let v: unknown;
      for (const a of args) {
        v = this.evalArg(dot, 'value', a);
        if (isTrue(v) === (name === 'or')) return v;
      }
      return final !== MISSING ? final : v;
    }
    const argv: unknown[] = [];
    args.forEach((a, i) => argv.push(this.evalArg(dot, (i < fixed ? spec.params[i] : spec.variadic) ?? 'any', a)));
    if (final !== MISSING) {
      const t = (argv.length < fixed ? spec.params[argv.length] : spec.variadic) ?? 'any';
      argv.push(this.validateType(final, t));
    }
    try {
      return spec.fn(...argv);
    } catch (e) {
      this.at(node);
      if (e instanceof TemplateExecError) throw e;
      const msg = e instanceof Error ? e.message : String(e);
      this.errorf(`error calling ${name}: ${msg}`);
    }
  }

  private evalArg(dot: unknown, typ: ParamType, n: ArgNode, raw = false): unknown {
    this.at(n);
    const t = raw ? 'value' : typ;
    switch (n.t) {
      case 'dot':
        return this.validateType(dot, t);
      case 'nil':
        if (t === 'any' || (typeof t === 'object' && t.nilable === true)) return null;
        this.errorf(`cannot assign nil to ${t === 'value' ? 'reflect.Value' : goType(t)}`);
      // falls through (errorf throws)
      case 'field':
        return this.validateType(this.evalFieldNode(dot, n, [n], MISSING), t);
      case 'variable':
        return this.validateType(this.evalVariableNode(dot, n, [], MISSING), t);
      case 'pipe':
        return this.validateType(this.evalPipeline(dot, n), t);
      case 'identifier': {
        const cmd: CommandNode = { t: 'command', pos: n.pos, args: [n] };
        return this.validateType(this.evalFunction(dot, n, cmd, [n], MISSING), t);
      }
      case 'chain':
        return this.validateType(this.evalChainNode(dot, n, [], MISSING), t);
      default:
        return this.evalLiteral(n, t);
    }
  }

  private evalLiteral(n: Extract<ArgNode, { t: 'bool' | 'number' | 'string' }>, t: ParamType): unknown {
    if (typeof t === 'object') {
      const v = n.t === 'bool' ? n.value : n.t === 'string' ? n.text : this.idealConstant(n);
      if (!t.accepts(v)) this.errorf(`can't handle ${nodeString(n)} for arg of type ${t.goType}`);
      return v;
    }
    switch (t) {
      case 'bool':
        if (n.t === 'bool') return n.value;
        this.errorf(`expected bool; found ${nodeString(n)}`);
      // falls through (errorf throws)
      case 'int':
        if (n.t === 'number' && n.isInt) return Number(n.int);
        this.errorf(`expected integer; found ${nodeString(n)}`);
      // falls through (errorf throws)
      case 'float':
        if (n.t === 'number' && n.isFloat) return new GoFloat(n.float);
        this.errorf(`expected float; found ${nodeString(n)}`);
      // falls through (errorf throws)
      case 'string':
        if (n.t === 'string') return n.text;
        this.errorf(`expected string; found ${nodeString(n)}`);
      // falls through (errorf throws)
      default:
        if (n.t === 'bool') return n.value;
        if (n.t === 'string') return n.text;
        return this.idealConstant(n);
    }
  }

  private validateType(value: unknown, t: ParamType): unknown {
    if (t === 'value') return value === MISSING ? undefined : value;
    if (value === undefined || value === MISSING) {
      if (t === 'any' || (typeof t === 'object' && t.nilable === true)) return null;
      this.errorf(`invalid value; expected ${goType(t)}`);
    }
    if (t === 'any') return value;
    if (typeof t === 'object') {
      if (!t.accepts(value)) this.errorf(`wrong type for value; expected ${t.goType}; got ${typeName(value)}`);
      return value;
    }
    const k = kindOf(value);
    const ok =
      (t === 'string' && k === 'string') ||
      (t === 'bool' && k === 'bool') ||
      (t === 'int' && k === 'int') ||
      (t === 'float' && k === 'float');
    if (!ok) this.errorf(`wrong type for value; expected ${goType(t)}; got ${typeName(value)}`);
    return t === 'float' && value instanceof GoFloat ? value.value : t === 'int' ? Number(value) : value;
  }

  private printValue(n: AnyNode, v: unknown): void {
    this.at(n);
    if (v === undefined || v === MISSING) {
      this.write('<no value>');
      return;
    }
    if (typeof v === 'function') this.errorf(`can't print ${nodeString(n)} of type ${typeName(v)}`);
    // printableValue: a pointer is printed through (fmt.Fprint handles a nil one)
    this.write(formatValue(v instanceof GoStruct && v.pointer ? new GoStruct(v.typeName, v.fields, v.methods) : v));
  }

  private varValue(name: string): unknown {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i];
      if (v?.name === name) return v.value;
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i];
      if (v?.name === name) {
        v.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private setTopVar(n: number, value: unknown): void {
    const v = this.vars[this.vars.length - n];
    if (v) v.value = value;
  }
}

function goType(t: ParamType): string {
  if (typeof t === 'object') return t.goType;
  return t === 'any' ? 'interface {}' : t === 'float' ? 'float64' : t === 'value' ? 'reflect.Value' : t;
}

function argTypes(fn: (...a: unknown[]) => unknown): ParamType[] {
  return Array.from({ length: fn.length }, () => 'any' as const);
}
