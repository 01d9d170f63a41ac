import { finding, MAX_DEPTH, tooDeep } from './errors.js';
import { goSemver } from './goparse.js';
import { schemaIssues, unusedKeys, type SchemaIssue } from './schema.js';
import { validateSemantics3 } from './semantic.js';
import { SPEC_VERSIONS, type JsonPath, type ReportEntry, type SpecVersion } from './types.js';
import { validateSemantics2 } from './v2.js';

/** Options of {@link validate}. */
export interface ValidateOptions {
  /** Validate against this version instead of the config's `ignition.version`. */
  version?: SpecVersion;
  /** Accept spec 3.7.0-experimental. Off by default: experimental configs are refused as unsupported. */
  experimental?: boolean;
}

/** Result of {@link validate}. */
export interface ValidationResult {
  /** Spec version validated against, or null when the config's version is unusable. */
  version: SpecVersion | null;
  /** True when there is no error entry. */
  valid: boolean;
  /** Errors, warnings and infos in upstream order: node rules, duplicates, schema, unused keys. */
  entries: ReportEntry[];
}

/** Resolves a version string to a supported spec version, or an upstream error name. */
export function resolveVersion(
  version: unknown,
  experimental: boolean,
): { version: SpecVersion } | { error: 'ErrInvalidVersion' | 'ErrUnknownVersion' } {
  const v = typeof version === 'string' ? goSemver(version) : null;
  if (!v) return { error: 'ErrInvalidVersion' };
  const hit = SPEC_VERSIONS.find((s) => {
    const p = goSemver(s);
    if (!p) return false;
    return p.major === v.major && p.minor === v.minor && p.patch === v.patch && p.pre === v.pre && p.meta === v.meta;
  });
  if (!hit) return { error: 'ErrUnknownVersion' };
  if (hit === '3.7.0-experimental' && !experimental) return { error: 'ErrUnknownVersion' };
  return { version: hit };
}

function samePath(a: JsonPath, b: JsonPath): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Semantic + schema + unused-key entries for a config at a known version. */
export function validateAt(
  config: unknown,
  version: SpecVersion,
  withTypes = true,
  issues?: SchemaIssue[],
): ReportEntry[] {
  const semantic = version === '2.2.0' ? validateSemantics2(config) : validateSemantics3(config, { version, minor: 0 });
  const schema = (issues ?? schemaIssues(config, version)).filter((s) => {
    if (!withTypes && s.keyword === 'type') return false;
    // a missing required field is already reported by the node rules with upstream's message
    if (s.keyword === 'required') return !semantic.some((e) => e.kind === 'error' && samePath(e.path, s.path));
    return true;
  });
  const out: ReportEntry[] = [...semantic, ...schema.map(({ keyword: _k, ...e }) => e), ...unusedKeys(config, version)];
  return out;
}

/**
 * Validates a config object: the upstream JSON schema for its version (ajv) plus the semantic rules
 * of coreos/ignition's per-version `Validate()` methods and duplicate checks. Never throws for bad
 * content; every problem is an entry with a JSON path.
 */
export function validate(config: unknown, opts: ValidateOptions = {}): ValidationResult {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    return {
      version: null,
      valid: false,
      entries: [{ kind: 'error', message: 'config must be a JSON object', path: [], name: null }],
    };
  }
  const deep = tooDeep(config);
  if (deep) {
    return {
      version: null,
      valid: false,
      entries: [
        {
          kind: 'error',
          message: `config nests deeper than ${MAX_DEPTH} levels; refusing to validate it`,
          path: deep.slice(0, 8),
          name: null,
        },
      ],
    };
  }
  const declared = (config as { ignition?: { version?: unknown } }).ignition?.version;
  const resolved = resolveVersion(opts.version ?? declared, opts.experimental ?? false);
  if ('error' in resolved) {
    const f = finding(resolved.error);
    return {
      version: null,
      valid: false,
      entries: [{ kind: 'error', message: f.message, path: ['ignition', 'version'], name: f.name }],
    };
  }
  let entries: ReportEntry[];
  try {
    entries = validateAt(config, resolved.version);
  } catch (e) {
    // documented never to throw: an internal failure on hostile content is reported, not raised
    entries = [
      { kind: 'error', message: `config could not be validated: ${(e as Error).message}`, path: [], name: null },
    ];
  }
  return { version: resolved.version, valid: !entries.some((e) => e.kind === 'error'), entries };
}
