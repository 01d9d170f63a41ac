/**
 * @keelson/gotemplate — Go's text/template in TypeScript: the lexer, parser and executor with Go's semantics,
 * builtins (and/or short-circuit, eq/ne/lt/le/gt/ge, len, index, slice, print/printf/println with fmt verbs,
 * html/js/urlquery, call), missing-key options and Go's error messages.
 */
export { Template, type Limits } from './template.js';
export { TemplateParseError } from './parse.js';
export { TemplateExecError, type MissingKey } from './exec.js';
export {
  builtins,
  htmlEscape,
  jsEscape,
  queryEscape,
  type FuncMap,
  type FuncSpec,
  type GoParamType,
  type ParamType,
} from './funcs.js';
export { sprint, sprintf, sprintln, formatValue, goQuote } from './fmt.js';
export { GoFloat, GoFuncError, GoNil, GoStruct, GoUint, isTrue, typeName, type GoFunc } from './value.js';
