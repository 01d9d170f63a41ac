import { finding, formatPath, IgnitionParseError, MAX_DEPTH, MESSAGES, tooDeep } from './errors.js';
import { schemaIssues, type SchemaIssue } from './schema.js';
import { resolveVersion, validateAt } from './validate.js';
import { addPositions } from './positions.js';
import { translate } from './translate.js';
import { goSemver } from './goparse.js';
import type { IgnitionConfig, ReportEntry, Spec3Version, SpecVersion } from './types.js';

/** Options of {@link parseConfig}. */
export interface ParseOptions {
  /**
   * Require exactly this version (upstream `vX_Y.Parse`): any other `ignition.version` is refused with
   * "unsupported config version".
   */
  version?: SpecVersion;
  /**
   * Accept any 3.x version up to this one and translate the config to it (upstream
   * `vX_Y.ParseCompatibleVersion`).
   */
  compatibleWith?: Spec3Version;
  /** Accept spec 3.7.0-experimental (off by default). */
  experimental?: boolean;
  /** Refuse inputs larger than this many bytes (default 64 MiB). */
  maxBytes?: number;
}

/** A parsed, valid config. */
export interface ParsedConfig {
  /** The spec version of `config`. */
  version: SpecVersion;
  /** The config (after translation when `compatibleWith` was used). */
  config: IgnitionConfig;
  /** Warnings and infos (a config with errors is refused). */
  report: ReportEntry[];
}

const decoder = new TextDecoder('utf-8', { fatal: false });

function toText(input: Uint8Array | string): string {
  return typeof input === 'string' ? input : decoder.decode(input);
}

function firstError(report: ReportEntry[]): string {
  const e = report.find((x) => x.kind === 'error');
  return e ? `: error at ${formatPath(e.path)}: ${e.message}` : '';
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const report: ReportEntry[] = [{ kind: 'error', message: (e as Error).message, path: [], name: null }];
    throw new IgnitionParseError('IGNITION_INVALID_JSON', `${MESSAGES.ErrInvalid}: ${(e as Error).message}`, {
      report,
      upstreamName: 'ErrInvalid',
    });
  }
}

function typeCheck(obj: unknown, version: SpecVersion, text = ''): SchemaIssue[] {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    const report: ReportEntry[] = [{ kind: 'error', message: 'config must be a JSON object', path: [], name: null }];
    throw new IgnitionParseError('IGNITION_INVALID', `${MESSAGES.ErrInvalid}: the document is not a JSON object`, {
      report,
      upstreamName: 'ErrInvalid',
    });
  }
  const issues = schemaIssues(obj, version);
  const types = issues.filter((i) => i.keyword === 'type');
  if (types.length > 0) {
    const report = addPositions(
      text,
      types.map(({ keyword: _k, ...e }) => e),
    );
    throw new IgnitionParseError('IGNITION_INVALID', MESSAGES.ErrInvalid + firstError(report), {
      report,
      upstreamName: 'ErrInvalid',
    });
  }
  return issues;
}

function versionOf(obj: unknown): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const ign = (obj as Record<string, unknown>)['ignition'];
  if (ign === null || typeof ign !== 'object' || Array.isArray(ign)) return undefined;
  return (ign as Record<string, unknown>)['version'];
}

function unknownVersion(v: unknown): never {
  const shown = typeof v === 'string' ? ` "${v}"` : '';
  throw new IgnitionParseError(
    'IGNITION_UNKNOWN_VERSION',
    `${MESSAGES.ErrUnknownVersion}${shown}: supported are 2.2.0 and 3.0.0-3.6.0 (3.7.0-experimental with the experimental option)`,
    {
      path: ['ignition', 'version'],
      upstreamName: 'ErrUnknownVersion',
    },
  );
}

/** Exact-version parse (upstream Parse). */
function parseExact(obj: unknown, version: SpecVersion, experimental: boolean, text: string): ParsedConfig {
  const issues = typeCheck(obj, version, text);
  const declared = versionOf(obj);
  const r = resolveVersion(declared, experimental || version === '3.7.0-experimental');
  if ('error' in r || r.version !== version) unknownVersion(declared);
  const report = addPositions(text, validateAt(obj, version, false, issues));
  if (report.some((e) => e.kind === 'error')) {
    throw new IgnitionParseError('IGNITION_INVALID', MESSAGES.ErrInvalid + firstError(report), {
      report,
      upstreamName: 'ErrInvalid',
    });
  }
  return { version, config: obj as IgnitionConfig, report };
}

/**
 * Parses and validates an Ignition config. Without options the version is detected from
 * `ignition.version` (2.2.0, 3.0.0–3.6.0; 3.7.0-experimental with `experimental`). Throws
 * {@link IgnitionParseError} with upstream wording: "not a config (empty)", "invalid config version
 * (couldn't parse)", "unsupported config version", "config is not valid" (with the report).
 */
export function parseConfig(input: Uint8Array | string, opts: ParseOptions = {}): ParsedConfig {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const size = typeof input === 'string' ? input.length : input.byteLength;
  if (size === 0) throw new IgnitionParseError('IGNITION_EMPTY', MESSAGES.ErrEmpty, { upstreamName: 'ErrEmpty' });
  if (size > maxBytes) {
    throw new IgnitionParseError(
      'IGNITION_INVALID',
      `${MESSAGES.ErrInvalid}: ${size} bytes exceeds the ${maxBytes}-byte limit (raise maxBytes)`,
      {
        upstreamName: 'ErrInvalid',
      },
    );
  }
  const text = toText(input);
  const obj = parseJSON(text);
  const deep = tooDeep(obj);
  if (deep) {
    throw new IgnitionParseError(
      'IGNITION_INVALID',
      `${MESSAGES.ErrInvalid}: the document nests deeper than ${MAX_DEPTH} levels`,
      {
        path: deep.slice(0, 8),
        upstreamName: 'ErrInvalid',
      },
    );
  }
  const experimental = opts.experimental ?? false;
  if (opts.version !== undefined) return parseExact(obj, opts.version, experimental, text);

  // version detection (upstream GetConfigVersion: a version stub must decode and parse as semver)
  const declared = versionOf(obj);
  if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) {
    const ign = (obj as Record<string, unknown>)['ignition'];
    if (
      (ign !== undefined && ign !== null && (typeof ign !== 'object' || Array.isArray(ign))) ||
      (declared !== undefined && declared !== null && typeof declared !== 'string')
    ) {
      const report: ReportEntry[] = [
        { kind: 'error', message: 'ignition.version must be a string', path: ['ignition', 'version'], name: null },
      ];
      throw new IgnitionParseError('IGNITION_INVALID', `${MESSAGES.ErrInvalid}: ignition.version must be a string`, {
        report,
        upstreamName: 'ErrInvalid',
      });
    }
  } else {
    typeCheck(obj, '3.0.0');
  }
  const parsedSemver = typeof declared === 'string' ? goSemver(declared) : null;
  if (!parsedSemver) {
    const f = finding('ErrInvalidVersion');
    throw new IgnitionParseError(
      'IGNITION_INVALID_VERSION',
      `${f.message}: set ignition.version to a spec version such as "3.4.0"`,
      {
        path: ['ignition', 'version'],
        upstreamName: 'ErrInvalidVersion',
      },
    );
  }
  const r = resolveVersion(declared, experimental || opts.compatibleWith === '3.7.0-experimental');
  if ('error' in r) unknownVersion(declared);
  if (opts.compatibleWith === undefined) return parseExact(obj, r.version, experimental, text);

  const target = opts.compatibleWith;
  if (r.version === '2.2.0' || compare3(r.version, target) > 0) unknownVersion(declared);
  const parsed = parseExact(obj, r.version, true, text);
  if (r.version === target) return parsed;
  return { version: target, config: translate(parsed.config, target), report: parsed.report };
}

function compare3(a: string, b: string): number {
  const ma = Number(a.split('.')[1]);
  const mb = Number(b.split('.')[1]);
  return ma - mb;
}
