/**
 * The machine-config-operator's Ignition helpers (pkg/controller/common): its `IgnitionConverter`
 * (which spec conversions the machine-config-server can serve) and `ParseAndConvertConfig`
 * (accept any supported spec, return spec 3.5.0), with the MCO's error texts.
 */
import { IgnitionError, IgnitionParseError, IgnitionTranslateError, MESSAGES } from './errors.js';
import { goSemver } from './goparse.js';
import { parseConfig } from './parse.js';
import { translate } from './translate.js';
import type { IgnitionConfig, IgnitionConfigV3, SpecVersion } from './types.js';

/** The spec the MCO works in internally. */
export const MCO_IGNITION_VERSION = '3.5.0';

/** Minor versions the MCO's converter reports as supported. */
export const MCO_SUPPORTED_MINOR_VERSIONS: readonly string[] = ['2.2', '3.0', '3.1', '3.2', '3.3', '3.4', '3.5'];

const SUPPORTED_FULL: readonly SpecVersion[] = ['2.2.0', '3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0', '3.5.0'];

// Direct conversions the MCO registers; a conversion is supported when a chain of them exists.
const EDGES: Record<string, string[]> = {
  '2.2.0': ['3.5.0'],
  '3.5.0': ['3.4.0'],
  '3.4.0': ['3.3.0'],
  '3.3.0': ['3.2.0'],
  '3.2.0': ['3.1.0', '2.2.0'],
};

/** Error of the MCO converter helpers (`code` IGNITION_TRANSLATE). */
export class IgnitionConverterError extends IgnitionError {
  constructor(message: string) {
    super('IGNITION_TRANSLATE', message);
    this.name = 'IgnitionConverterError';
  }
}

/** `IgnitionConverter.GetSupportedMinorVersions`. */
export function getSupportedMinorVersions(): string[] {
  return [...MCO_SUPPORTED_MINOR_VERSIONS];
}

/** `IgnitionConverter.GetSupportedMinorVersion`: maps e.g. 3.5.2 → 3.5.0; throws "the requested version is unknown". */
export function getSupportedMinorVersion(version: string): SpecVersion {
  const v = goSemver(version);
  const hit = v && SUPPORTED_FULL.find((s) => s === `${v.major}.${v.minor}.0`);
  if (!hit) throw new IgnitionConverterError('the requested version is unknown');
  return hit;
}

/** Whether the MCO converter can convert `from` → `to` (both full versions). */
export function isConversionSupported(from: string, to: string): boolean {
  const seen = new Set<string>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const cur = queue.shift();
    if (cur === undefined) break;
    if (cur === to) return true;
    for (const n of EDGES[cur] ?? []) {
      if (seen.has(n)) continue;
      seen.add(n);
      queue.push(n);
    }
  }
  return false;
}

/** `IgnitionConverter.Convert`: converts along the MCO's graph or throws "the requested conversion is not supported". */
export function convertIgnition(config: IgnitionConfig, from: SpecVersion, to: SpecVersion): IgnitionConfig {
  if (!SUPPORTED_FULL.includes(from) || !SUPPORTED_FULL.includes(to))
    throw new IgnitionConverterError('the requested version is unknown');
  if (!isConversionSupported(from, to)) throw new IgnitionConverterError('the requested conversion is not supported');
  return translate(config, to);
}

const SUPPORTED_LIST = 'Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5';

/**
 * MCO `ParseAndConvertConfig`: empty input gives an empty 3.5.0 config; 3.0–3.5 are parsed and
 * translated up; 2.2 is parsed, de-duplicated, core-user collapsed and converted. Errors carry the MCO's
 * wording ("parsing Ignition config failed: unknown version. Supported spec versions: …").
 */
export function parseAndConvertConfig(raw: Uint8Array | string): IgnitionConfigV3 {
  const size = typeof raw === 'string' ? raw.length : raw.byteLength;
  if (size === 0) return { ignition: { version: MCO_IGNITION_VERSION } };
  try {
    return parseConfig(raw, { compatibleWith: '3.5.0' }).config as IgnitionConfigV3;
  } catch (e) {
    if (!(e instanceof IgnitionParseError)) throw e;
    if (e.code === 'IGNITION_INVALID_VERSION') {
      throw new IgnitionParseError(
        'IGNITION_INVALID_VERSION',
        `parsing Ignition config failed: invalid version. ${SUPPORTED_LIST}`,
        {
          path: ['ignition', 'version'],
          upstreamName: 'ErrInvalidVersion',
        },
      );
    }
    if (e.code !== 'IGNITION_UNKNOWN_VERSION') {
      throw new IgnitionParseError(e.code, `parsing Ignition config spec v3 failed with error: ${e.message}`, {
        report: e.report,
        path: e.path,
        upstreamName: e.upstreamName,
      });
    }
  }
  let v2;
  try {
    v2 = parseConfig(raw, { version: '2.2.0' });
  } catch (e) {
    if (e instanceof IgnitionParseError && e.code === 'IGNITION_UNKNOWN_VERSION') {
      throw new IgnitionParseError(
        'IGNITION_UNKNOWN_VERSION',
        `parsing Ignition config failed: unknown version. ${SUPPORTED_LIST}`,
        {
          path: ['ignition', 'version'],
          upstreamName: 'ErrUnknownVersion',
        },
      );
    }
    if (e instanceof IgnitionParseError) {
      throw new IgnitionParseError(e.code, `parsing Ignition config spec v2 failed with error: ${e.message}`, {
        report: e.report,
        path: e.path,
        upstreamName: e.upstreamName,
      });
    }
    throw e;
  }
  try {
    return translate(v2.config, '3.5.0') as IgnitionConfigV3;
  } catch (e) {
    if (e instanceof IgnitionTranslateError) {
      throw new IgnitionTranslateError(
        `failed to convert Ignition config spec v2 to v3: ${e.message}`,
        e.from,
        e.to,
        e.path,
      );
    }
    throw e;
  }
}

export { MESSAGES };
