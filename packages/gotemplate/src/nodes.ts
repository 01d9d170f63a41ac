/** The parse tree (text/template/parse/node.go); `String()` of each node as Go prints it (used in error context). */

export type Node =
  | TextNode
  | ActionNode
  | IfNode
  | RangeNode
  | WithNode
  | TemplateNode
  | BreakNode
  | ContinueNode
  | ListNode
  | CommentNode;

export type ArgNode =
  | FieldNode
  | VariableNode
  | IdentifierNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode
  | ChainNode
  | PipeNode;

interface Base {
  pos: number;
}

export interface ListNode extends Base {
  t: 'list';
  nodes: Node[];
}
export interface TextNode extends Base {
  t: 'text';
  text: string;
}
export interface CommentNode extends Base {
  t: 'comment';
  text: string;
}
export interface PipeNode extends Base {
  t: 'pipe';
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode extends Base {
  t: 'command';
  args: ArgNode[];
}
export interface ActionNode extends Base {
  t: 'action';
  line: number;
  pipe: PipeNode;
}
export interface BranchFields extends Base {
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList: ListNode | null;
}
export interface IfNode extends BranchFields {
  t: 'if';
}
export interface RangeNode extends BranchFields {
  t: 'range';
}
export interface WithNode extends BranchFields {
  t: 'with';
}
export interface TemplateNode extends Base {
  t: 'template';
  line: number;
  name: string;
  pipe: PipeNode | null;
}
export interface BreakNode extends Base {
  t: 'break';
  line: number;
}
export interface ContinueNode extends Base {
  t: 'continue';
  line: number;
}
export interface FieldNode extends Base {
  t: 'field';
  ident: string[];
}
export interface VariableNode extends Base {
  t: 'variable';
  ident: string[];
}
export interface IdentifierNode extends Base {
  t: 'identifier';
  ident: string;
}
export interface DotNode extends Base {
  t: 'dot';
}
export interface NilNode extends Base {
  t: 'nil';
}
export interface BoolNode extends Base {
  t: 'bool';
  value: boolean;
}
export interface NumberNode extends Base {
  t: 'number';
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  int: bigint;
  uint: bigint;
  float: number;
}
export interface StringNode extends Base {
  t: 'string';
  quoted: string;
  text: string;
}
export interface ChainNode extends Base {
  t: 'chain';
  node: ArgNode;
  field: string[];
}

type Any = Node | ArgNode | CommandNode;

export function nodeString(n: Any): string {
  switch (n.t) {
    case 'text':
      return JSON.stringify(n.text);
    case 'comment':
      return `{{${n.text}}}`;
    case 'list':
      return n.nodes.map(nodeString).join('');
    case 'action':
      return `{{${nodeString(n.pipe)}}}`;
    case 'if':
    case 'range':
    case 'with': {
      const els = n.elseList ? `{{else}}${nodeString(n.elseList)}` : '';
      return `{{${n.t} ${nodeString(n.pipe)}}}${nodeString(n.list)}${els}{{end}}`;
    }
    case 'template':
      return n.pipe
        ? `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}`
        : `{{template ${JSON.stringify(n.name)}}}`;
    case 'break':
      return '{{break}}';
    case 'continue':
      return '{{continue}}';
    case 'pipe': {
      const decl = n.decl.length > 0 ? `${n.decl.map(nodeString).join(', ')} ${n.isAssign ? '=' : ':='} ` : '';
      return decl + n.cmds.map(nodeString).join(' | ');
    }
    case 'command':
      return n.args.map((a) => (a.t === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'field':
      return n.ident.map((i) => `.${i}`).join('');
    case 'variable':
      return n.ident.join('.');
    case 'identifier':
      return n.ident;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return n.value ? 'true' : 'false';
    case 'number':
      return n.text;
    case 'string':
      return n.quoted;
    case 'chain': {
      const inner = n.node.t === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node);
      return inner + n.field.map((f) => `.${f}`).join('');
    }
  }
}
