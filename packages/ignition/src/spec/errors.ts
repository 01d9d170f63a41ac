import type { JsonPath, ReportEntry } from './types.js';

/**
 * Upstream error texts (coreos/ignition config/shared/errors), keyed by their Go identifier.
 * Report entries carry both so callers can match on `name`.
 */
export const MESSAGES = {
  ErrInvalid: 'config is not valid',
  ErrEmpty: 'not a config (empty)',
  ErrDuplicate: 'duplicate entry defined',
  ErrInvalidVersion: "invalid config version (couldn't parse)",
  ErrUnknownVersion: 'unsupported config version',
  ErrDeprecated: 'config format deprecated',
  ErrCompressionInvalid: 'invalid compression method',
  ErrFileUsedSymlink: 'file path includes link in config',
  ErrDirectoryUsedSymlink: 'directory path includes link in config',
  ErrLinkUsedSymlink: 'link path includes link in config',
  ErrLinkTargetRequired: 'link target is required',
  ErrHardLinkToDirectory: 'hard link target is a directory',
  ErrHardLinkSpecifiesOwner: 'user/group ignored for hard link',
  ErrDiskDeviceRequired: 'disk device is required',
  ErrPartitionNumbersCollide: 'partition numbers collide',
  ErrPartitionsOverlap: 'partitions overlap',
  ErrOverwriteAndNilSource: 'overwrite must be false if source is unspecified',
  ErrVerificationAndNilSource: 'source must be specified if verification is specified',
  ErrFilesystemInvalidFormat: 'invalid filesystem format',
  ErrLabelNeedsFormat: 'filesystem must specify format if label is specified',
  ErrFormatNilWithOthers:
    'format cannot be empty when path, label, uuid, wipeFilesystem, options, or mountOptions is specified',
  ErrExt4LabelTooLong: 'filesystem labels cannot be longer than 16 characters when using ext4',
  ErrBtrfsLabelTooLong: 'filesystem labels cannot be longer than 256 characters when using btrfs',
  ErrXfsLabelTooLong: 'filesystem labels cannot be longer than 12 characters when using xfs',
  ErrSwapLabelTooLong: 'filesystem labels cannot be longer than 15 characters when using swap',
  ErrVfatLabelTooLong: 'filesystem labels cannot be longer than 11 characters when using vfat',
  ErrVirtiofsCannotHaveLabel: 'filesystem labels cannot be set when using virtiofs',
  ErrVirtiofsDeviceTagTooLong: 'virtiofs device tag cannot be longer than 36 bytes',
  ErrUUIDNotSupportedForFormat: 'filesystem uuid cannot be set for non-block-device filesystems',
  ErrWipeNotSupportedForFormat: 'wipeFilesystem cannot be set for non-block-device filesystems',
  ErrMkfsOptionsNotSupportedForFormat: 'filesystem options (mkfs) cannot be set for non-block-device filesystems',
  ErrLuksLabelTooLong: 'luks device labels cannot be longer than 47 characters',
  ErrLuksNameContainsSlash: 'device names cannot contain slashes',
  ErrInvalidLuksKeyFile: 'invalid key-file source',
  ErrClevisPinRequired: 'missing required custom clevis pin',
  ErrUnknownClevisPin: 'unsupported clevis pin',
  ErrClevisConfigRequired: 'missing required custom clevis config',
  ErrClevisCustomWithOthers: 'cannot use custom clevis config with tpm2, tang, or threshold',
  ErrTangThumbprintRequired: 'thumbprint is required',
  ErrInvalidTangAdvertisement: 'advertisement is not valid JSON',
  ErrFileIllegalMode: 'illegal file mode',
  ErrModeSpecialBits: 'setuid/setgid/sticky bits are not supported or functional in spec versions older than 3.6.0',
  ErrBothIDAndNameSet: 'cannot set both id and name',
  ErrLabelTooLong: 'partition labels may not exceed 36 characters',
  ErrDoesntMatchGUIDRegex: 'doesn\'t match the form "01234567-89AB-CDEF-EDCB-A98765432101"',
  ErrLabelContainsColon: 'partition label will be truncated to text before the colon',
  ErrNoPath: 'path not specified',
  ErrPathRelative: 'path not absolute',
  ErrDirtyPath: 'path is not fully simplified',
  ErrNoDevice: 'device not specified',
  ErrPartitionsOverwritten: 'filesystem overwrites partitioned device',
  ErrFilesystemImplicitWipe: 'device matches disk with wipeTable enabled; filesystem will be wiped',
  ErrRaidLevelRequired: 'raid level is required',
  ErrSparesUnsupportedForLevel: 'spares unsupported for linear and raid0 arrays',
  ErrUnrecognizedRaidLevel: 'unrecognized raid level',
  ErrRaidDevicesRequired: 'raid devices required',
  ErrShouldNotExistWithOthers: 'shouldExist specified false with other options also specified',
  ErrZeroesWithShouldNotExist: 'shouldExist is false for a partition and other partition(s) has start or size 0',
  ErrNeedLabelOrNumber: 'a partition number >= 1 or a label must be specified',
  ErrDuplicateLabels: 'cannot use the same partition label twice',
  ErrInvalidProxy: 'proxies must be http(s)',
  ErrInsecureProxy: 'insecure plaintext HTTP proxy specified for HTTPS resources',
  ErrPathConflictsSystemd: 'path conflicts with systemd unit or dropin',
  ErrCexWithClevis: 'cannot use cex with clevis',
  ErrCexWithKeyFile: 'cannot use key file with cex',
  ErrInvalidSystemdExt: 'invalid systemd unit extension',
  ErrInvalidSystemdDropinExt: 'invalid systemd drop-in extension',
  ErrNoSystemdExt: 'no systemd unit extension',
  ErrInvalidInstantiatedUnit: 'invalid systemd instantiated unit',
  ErrSourceRequired: 'source is required',
  ErrInvalidScheme: 'invalid url scheme',
  ErrInvalidUrl: 'unable to parse url',
  ErrInvalidHTTPHeader: 'unable to parse HTTP header',
  ErrEmptyHTTPHeaderName: "HTTP header name can't be empty",
  ErrUnsupportedSchemeForHTTPHeaders: 'cannot use HTTP headers with this source scheme',
  ErrHashMalformed: 'malformed hash specifier',
  ErrHashWrongSize: 'incorrect size for hash sum',
  ErrHashUnrecognized: 'unrecognized hash function',
  ErrInvalidS3ARN: 'invalid S3 ARN format',
  ErrInvalidS3ObjectVersionId: 'invalid S3 object VersionId',
} as const;

/** Name of an upstream error. */
export type UpstreamErrorName = keyof typeof MESSAGES;

/** A single upstream-style finding: message plus optional upstream error name. */
export interface Finding {
  message: string;
  name: string | null;
}

/** Builds a {@link Finding} for a named upstream error. */
export function finding(name: UpstreamErrorName): Finding {
  return { message: MESSAGES[name], name };
}

/** Codes of the errors this package throws. */
export type IgnitionErrorCode =
  | 'IGNITION_EMPTY'
  | 'IGNITION_INVALID_JSON'
  | 'IGNITION_INVALID_VERSION'
  | 'IGNITION_UNKNOWN_VERSION'
  | 'IGNITION_INVALID'
  | 'IGNITION_MERGE'
  | 'IGNITION_TRANSLATE';

/** Base class of every error thrown by the Ignition spec API. */
export class IgnitionError extends Error {
  /** Stable machine-readable code. */
  readonly code: IgnitionErrorCode;
  /** JSON path of the offending field, when one is known. */
  readonly path: JsonPath;
  /** Report entries explaining the failure (for `IGNITION_INVALID` and `IGNITION_INVALID_JSON`). */
  readonly report: ReportEntry[];
  /** Upstream error name (config/shared/errors) this corresponds to, when any. */
  readonly upstreamName: string | null;

  constructor(
    code: IgnitionErrorCode,
    message: string,
    opts: { path?: JsonPath; report?: ReportEntry[]; upstreamName?: string | null } = {},
  ) {
    super(message);
    this.name = 'IgnitionError';
    this.code = code;
    this.path = opts.path ?? [];
    this.report = opts.report ?? [];
    this.upstreamName = opts.upstreamName ?? null;
  }
}

/** Thrown by `parseConfig` when the input cannot be used (empty, bad JSON, bad/unknown version, invalid). */
export class IgnitionParseError extends IgnitionError {
  constructor(
    code: IgnitionErrorCode,
    message: string,
    opts: { path?: JsonPath; report?: ReportEntry[]; upstreamName?: string | null } = {},
  ) {
    super(code, message, opts);
    this.name = 'IgnitionParseError';
  }
}

/** Thrown by `translate` when a field cannot be expressed in the target version. */
export class IgnitionTranslateError extends IgnitionError {
  /** Source and target spec versions. */
  readonly from: string;
  readonly to: string;
  constructor(message: string, from: string, to: string, path: JsonPath = []) {
    super('IGNITION_TRANSLATE', message, { path });
    this.name = 'IgnitionTranslateError';
    this.from = from;
    this.to = to;
  }
}

/** Thrown by `merge` for inputs it cannot merge (e.g. a spec 2.x config). */
export class IgnitionMergeError extends IgnitionError {
  constructor(message: string, path: JsonPath = []) {
    super('IGNITION_MERGE', message, { path });
    this.name = 'IgnitionMergeError';
  }
}

/** Formats a JSON path the way upstream prints it (`$.storage.files.0.path`). */
export function formatPath(path: JsonPath): string {
  return path.length === 0 ? '$' : '$.' + path.join('.');
}

/** Deepest nesting accepted anywhere in a document (real configs nest about 8 levels). */
export const MAX_DEPTH = 256;

/** Returns the path of the first value nested deeper than `max`, or null; iterative, so safe on hostile input. */
export function tooDeep(value: unknown, max: number = MAX_DEPTH): JsonPath | null {
  interface Frame {
    v: unknown;
    depth: number;
    parent: Frame | null;
    key: string | number;
  }
  const stack: Frame[] = [{ v: value, depth: 0, parent: null, key: '' }];
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    const v = f.v;
    if (v === null || typeof v !== 'object') continue;
    if (f.depth >= max) {
      const path: JsonPath = [];
      for (let p: Frame | null = f; p && p.parent; p = p.parent) path.unshift(p.key);
      return path;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as unknown;
        if (x !== null && typeof x === 'object') stack.push({ v: x, depth: f.depth + 1, parent: f, key: i });
      }
    } else {
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === 'object') stack.push({ v: x, depth: f.depth + 1, parent: f, key: k });
      }
    }
  }
  return null;
}

/**
 * A deep copy of a JSON value without own `__proto__` keys. `JSON.parse` makes `"__proto__"` an ordinary own key, but
 * copying it with `out[key] = value` would replace the copy's prototype and hide the content (then surface it through
 * inheritance). Such a key is never part of an Ignition spec: `validate` reports it as unused, and translate and merge
 * drop it, like every unknown key, in every target version. Iterative, so safe on deep input.
 */
export function withoutProtoKeys<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: [unknown, unknown][] = [[value, root]];
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    const [src, dst] = f;
    if (Array.isArray(src)) {
      const out = dst as unknown[];
      for (const x of src as unknown[]) {
        if (x !== null && typeof x === 'object') {
          const c: unknown = Array.isArray(x) ? [] : {};
          out.push(c);
          stack.push([x, c]);
        } else out.push(x);
      }
      continue;
    }
    const out = dst as Record<string, unknown>;
    for (const k of Object.keys(src as object)) {
      if (k === '__proto__') continue;
      const x = (src as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object') {
        const c: unknown = Array.isArray(x) ? [] : {};
        out[k] = c;
        stack.push([x, c]);
      } else out[k] = x;
    }
  }
  return root as T;
}
