/**
 * The public Template, as Go's text/template.Template: New(name).Funcs(…).Option(…).Parse(text), Execute,
 * ExecuteTemplate, Lookup, DefinedTemplates, Delims. Templates made with `new()` share one namespace.
 */
import { State, TemplateExecError, type MissingKey } from './exec.js';
import { builtins, toSpec, type FuncMap, type FuncSpec } from './funcs.js';
import { parseTemplate, type Tree } from './parse.js';

interface Common {
  trees: Map<string, Tree>;
  funcs: Map<string, FuncSpec>;
  options: { missingKey: MissingKey; maxDepth: number; maxOutput: number };
}

/** Limits that bound hostile templates: template call depth and output size. */
export interface Limits {
  /** Nested {{template}} calls (Go allows 100000; JavaScript's stack is smaller). Default 1000. */
  maxDepth?: number;
  /** Characters of output. Default 64 MiB. */
  maxOutput?: number;
}

export class Template {
  private leftDelim = '';
  private rightDelim = '';

  private constructor(
    readonly name: string,
    private readonly common: Common,
  ) {}

  /** Go's template.New(name). */
  static new(name: string, limits: Limits = {}): Template {
    const common: Common = {
      trees: new Map(),
      funcs: new Map(Object.entries(builtins)),
      options: {
        missingKey: 'default',
        maxDepth: limits.maxDepth ?? 1000,
        maxOutput: limits.maxOutput ?? 64 * 1024 * 1024,
      },
    };
    return new Template(name, common);
  }

  /** Go's t.New(name): a template sharing this one's definitions and functions. */
  new(name: string): Template {
    const t = new Template(name, this.common);
    t.leftDelim = this.leftDelim;
    t.rightDelim = this.rightDelim;
    return t;
  }

  /** Go's Funcs: adds functions (a plain function takes `fn.length` interface{} arguments). */
  funcs(map: FuncMap): this {
    for (const [k, f] of Object.entries(map)) {
      if (!/^[\p{L}_][\p{L}\p{Nd}_]*$/u.test(k)) throw new Error(`function name "${k}" is not a valid identifier`);
      this.common.funcs.set(k, toSpec(f));
    }
    return this;
  }

  /** Go's Option: `missingkey=default|invalid|zero|error`. */
  option(...opts: string[]): this {
    for (const o of opts) {
      const m = /^missingkey=(default|invalid|zero|error)$/.exec(o);
      if (!m) throw new Error(o.startsWith('missingkey=') ? `unrecognized option: ${o}` : `unrecognized option: ${o}`);
      this.common.options.missingKey = m[1] as MissingKey;
    }
    return this;
  }

  /** Go's Delims. */
  delims(left: string, right: string): this {
    this.leftDelim = left;
    this.rightDelim = right;
    return this;
  }

  /**
   * Go's Parse: parses `text` as this template's body; `{{define}}`/`{{block}}` add named templates.
   * @throws TemplateParseError
   */
  parse(text: string): this {
    const trees = parseTemplate(this.name, text, (n) => this.common.funcs.has(n), [this.leftDelim, this.rightDelim]);
    for (const [name, tree] of trees) {
      const old = this.common.trees.get(name);
      // an empty body does not replace an existing definition (Go's AddParseTree/associate)
      if (old !== undefined && isEmpty(tree) && name !== this.name) continue;
      if (old !== undefined && isEmpty(tree) && !isEmpty(old)) continue;
      this.common.trees.set(name, tree);
    }
    return this;
  }

  /** Go's Lookup. */
  lookup(name: string): Template | null {
    return this.common.trees.has(name) ? this.new(name) : null;
  }

  /** Go's DefinedTemplates: `; defined templates are: "a", "b"` or the empty string. */
  definedTemplates(): string {
    const names = [...this.common.trees.keys()];
    if (names.length === 0) return '';
    return `; defined templates are: ${names.map((n) => JSON.stringify(n)).join(', ')}`;
  }

  /**
   * Go's Execute: renders this template with `data`.
   * @throws TemplateExecError
   */
  execute(data?: unknown): string {
    const tree = this.common.trees.get(this.name);
    if (!tree) {
      throw new TemplateExecError(
        `template: ${this.name}: ${JSON.stringify(this.name)} is an incomplete or empty template`,
      );
    }
    const o = this.common.options;
    const env = {
      trees: this.common.trees,
      funcs: this.common.funcs,
      builtinNames: BUILTIN_NAMES,
      missingKey: o.missingKey,
      maxDepth: o.maxDepth,
      maxOutput: o.maxOutput,
    };
    return new State(env, tree).run(data === null ? undefined : data);
  }

  /** Go's ExecuteTemplate. */
  executeTemplate(name: string, data?: unknown): string {
    const t = this.lookup(name);
    if (!t)
      throw new TemplateExecError(
        `template: no template ${JSON.stringify(name)} associated with template ${JSON.stringify(this.name)}`,
      );
    return t.execute(data);
  }
}

const BUILTIN_NAMES: ReadonlySet<string> = new Set(Object.keys(builtins));

function isEmpty(t: Tree): boolean {
  return t.root.nodes.every((n) => (n.t === 'text' ? n.text.trim() === '' : n.t === 'comment'));
}
