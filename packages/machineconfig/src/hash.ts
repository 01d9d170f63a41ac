import { createHash } from 'node:crypto';
import type { JsonValue, MachineConfigSpec } from './types.js';
import { type GoYamlValue, GoFloat, YamlV2Error, marshalYamlV2, parseJsonForYamlV2 } from './yamlv2.js';

/** The 80-byte salt the MCO prepends before hashing (render/hash.go). */
export const RENDERED_NAME_SALT: readonly number[] = Object.freeze([
  16, 124, 206, 228, 139, 56, 175, 175, 79, 229, 134, 118, 157, 154, 211, 110, 25, 93, 47, 253, 172, 106, 37, 7, 174,
  13, 160, 185, 110, 17, 87, 52, 219, 131, 12, 206, 218, 141, 116, 135, 188, 181, 192, 151, 233, 62, 126, 165, 64, 83,
  179, 119, 15, 168, 208, 197, 146, 107, 58, 227, 133, 188, 238, 26, 33, 26, 235, 202, 32, 173, 31, 234, 41, 144, 148,
  79, 6, 206, 23, 22,
]);

/** Raised when the spec cannot be turned into the hash input (same text as the MCO's error). */
export class RenderedNameError extends Error {
  /** Stable error code. */
  readonly code = 'MC_HASH_YAML';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RenderedNameError';
  }
}

function jsonToGo(v: JsonValue): GoYamlValue {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : new GoFloat(v);
  if (Array.isArray(v)) return v.map(jsonToGo);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, GoYamlValue> = {};
    for (const [k, x] of Object.entries(v)) o[k] = jsonToGo(x);
    return o;
  }
  return v;
}

/**
 * The exact byte string the MCO feeds to MD5 (after the salt): ghodss/yaml of the JSON of the spec.
 * @throws RenderedNameError "error converting JSON to YAML: yaml: control characters are not allowed".
 */
export function hashInputYAML(spec: MachineConfigSpec): string {
  let config: GoYamlValue = null;
  if (typeof spec.config === 'string') {
    try {
      config = parseJsonForYamlV2(spec.config);
    } catch (err) {
      throw new RenderedNameError(`error converting JSON to YAML: spec.config is not valid JSON: ${String(err)}`, {
        cause: err,
      });
    }
  } else if (spec.config !== undefined && spec.config !== null) config = jsonToGo(spec.config);
  const doc: Record<string, GoYamlValue> = {
    osImageURL: spec.osImageURL ?? '',
    baseOSExtensionsContainerImage: spec.baseOSExtensionsContainerImage ?? '',
    config,
    kernelArguments: spec.kernelArguments ?? null,
    extensions: spec.extensions ?? null,
    fips: spec.fips ?? false,
    kernelType: spec.kernelType ?? '',
  };
  try {
    return marshalYamlV2(doc);
  } catch (err) {
    if (err instanceof YamlV2Error)
      throw new RenderedNameError(`error converting JSON to YAML: ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * `rendered-<pool>-<md5hex>`: byte-identical to the MCO's getMachineConfigHashedName. The pool name is not hashed.
 * @throws RenderedNameError when the spec holds characters yaml.v2 refuses.
 */
export function renderedName(pool: string, spec: MachineConfigSpec): string {
  return renderedNameFromYAML(pool, hashInputYAML(spec));
}

/** `rendered-<pool>-<md5hex>` from an already computed {@link hashInputYAML}. */
export function renderedNameFromYAML(pool: string, y: string): string {
  const h = createHash('md5');
  h.update(Uint8Array.from(RENDERED_NAME_SALT));
  h.update(y, 'utf8');
  return `rendered-${pool}-${h.digest('hex')}`;
}
