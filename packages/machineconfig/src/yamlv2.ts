/**
 * A faithful re-implementation of the subset of gopkg.in/yaml.v2 (v2.4.0) that the MCO uses to build the
 * rendered-MachineConfig hash input: `yaml.Marshal` of the generic value tree that `yaml.Unmarshal` produces
 * from JSON (ghodss/yaml JSONToYAML). Written from the behaviour of the Go code (emitter state machine, scalar
 * analysis, style selection, key sorting, tag resolution); no Go code is copied.
 */
import { GoFloat, GoUint, YamlV2Error, type GoYamlValue } from './yamlv2-types.js';
import { Emitter } from './yamlv2-emitter.js';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from './yamlv2-resolve.js';

export { GoFloat, GoUint, YamlV2Error, type GoYamlValue } from './yamlv2-types.js';
export { yamlReaderAccepts } from './yamlv2-chars.js';
export { resolvesToNonString, formatGoFloat } from './yamlv2-resolve.js';
export { yamlKeyLess } from './yamlv2-keys.js';

const REFUSED = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

function checkReadable(v: GoYamlValue): void {
  // Go's encoding/json escapes everything below 0x20, so only the other refused characters reach the reader
  const check = (s: string): void => {
    if (REFUSED.test(s)) throw new YamlV2Error('yaml: control characters are not allowed');
  };
  if (typeof v === 'string') check(v);
  else if (Array.isArray(v)) v.forEach(checkReadable);
  else if (v !== null && typeof v === 'object' && !(v instanceof GoFloat) && !(v instanceof GoUint)) {
    for (const [k, x] of Object.entries(v)) {
      check(k);
      checkReadable(x);
    }
  }
}

/**
 * `yaml.Marshal` (gopkg.in/yaml.v2 v2.4.0) of a generic value, byte for byte.
 *
 * @param value the document root (usually a map).
 * @param opts.checkReadable also refuse characters the yaml.v2 *reader* rejects, as happens when the value
 *   came from `yaml.Unmarshal` of JSON (ghodss/yaml JSONToYAML); default true.
 * @throws YamlV2Error "yaml: control characters are not allowed".
 */
export function marshalYamlV2(value: GoYamlValue, opts: { checkReadable?: boolean } = {}): string {
  if (opts.checkReadable !== false) checkReadable(value);
  const e = new Emitter();
  e.node(value, { root: true, mapping: false, simpleKey: false });
  // document end (implicit): a final indent/line break
  e.writeIndent();
  // stream end: an open-ended scalar at the very end gets a "..." document end marker
  if (e.openEnded) {
    e.writeIndicator('...', true, false, false);
    e.writeIndent();
  }
  return e.out;
}

/**
 * Parse JSON text the way yaml.v2 reads it (integers → Go int / int64 / uint64, other numbers → float64),
 * keeping the int/float distinction the emitter needs.
 * @throws SyntaxError on invalid JSON.
 */
export function parseJsonForYamlV2(text: string): GoYamlValue {
  const reviver = function (this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
    if (typeof value === 'number' && context?.source !== undefined) return goNumberFromJson(context.source);
    return value;
  };
  return JSON.parse(text, reviver) as GoYamlValue;
}

/** yaml.v2 resolution of a JSON number literal. */
export function goNumberFromJson(src: string): GoYamlValue {
  if (/^-?\d+$/.test(src)) {
    const b = BigInt(src);
    if (b >= INT64_MIN && b <= INT64_MAX) return Number.isSafeInteger(Number(b)) ? Number(b) : b;
    if (b > 0n && b <= UINT64_MAX) return new GoUint(b);
  }
  const f = Number(src);
  // strconv.ParseFloat reports a range error for overflowing literals: yaml.v2 then keeps the text as a string
  return Number.isFinite(f) ? new GoFloat(f) : src;
}
