/** CEL for CRD validation rules: the environment (with the Kubernetes library) and the rule evaluator. */
export { celEnvironment, NAMED_FORMATS, parseCIDR, parseIP, isRequestURI } from './library.js';
export { compileRule, ruleCompileErrors, toCel, validateCelRules } from './validate.js';
