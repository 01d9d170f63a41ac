import { StatusParseError } from './errors.js';
import { parseOstreeImageReference, type OstreeImageReference } from './imageref.js';

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** One deployment of `rpm-ostree status --json`, typed; `raw` is the untouched object, `unknown` its unmodelled keys. */
export interface Deployment {
  /** `<osname>-<checksum>.<serial>`. */
  readonly id: string;
  readonly osname: string;
  readonly serial: number;
  /** Deployed commit (the client-side layer on layered systems). */
  readonly checksum: string;
  /** Base commit when packages are layered, else undefined. */
  readonly baseChecksum: string | undefined;
  readonly version: string | undefined;
  /** Unix seconds. */
  readonly timestamp: number | undefined;
  readonly baseVersion: string | undefined;
  readonly baseTimestamp: number | undefined;
  readonly booted: boolean;
  /** `staged` (absent ⇒ false). */
  readonly staged: boolean;
  readonly pinned: boolean;
  /** First in boot order and not booted: what the next boot will use. */
  readonly pending: boolean;
  /** Directly after the booted deployment in boot order. */
  readonly rollback: boolean;
  /** Staged with `--lock-finalization`. */
  readonly finalizationLocked: boolean;
  readonly unlocked: string | undefined;
  readonly regenerateInitramfs: boolean | undefined;
  /** ostree refspec or checksum origin. */
  readonly origin: string | undefined;
  /** `[url, description]` custom origin. */
  readonly customOrigin: readonly string[] | undefined;
  readonly containerImageReference: string | undefined;
  readonly containerImageReferenceDigest: string | undefined;
  /** Parsed `container-image-reference` (undefined for ostree origins or unparseable references). */
  readonly imageReference: OstreeImageReference | undefined;
  readonly packages: readonly string[];
  readonly requestedPackages: readonly string[];
  readonly requestedLocalPackages: readonly string[];
  readonly requestedBaseRemovals: readonly string[];
  /** NEVRA tuples `[nevra, name, epoch, version, release, arch]` (kept as JSON). */
  readonly baseRemovals: readonly JsonValue[];
  readonly requestedBaseLocalReplacements: readonly JsonValue[];
  readonly baseLocalReplacements: readonly JsonValue[];
  readonly baseCommitMeta: JsonObject | undefined;
  readonly layeredCommitMeta: JsonObject | undefined;
  readonly pendingBaseChecksum: string | undefined;
  readonly pendingBaseVersion: string | undefined;
  readonly pendingBaseTimestamp: number | undefined;
  readonly gpgEnabled: boolean | undefined;
  /** Keys this type does not model, with their values. */
  readonly unknown: JsonObject;
  /** The deployment object exactly as received. */
  readonly raw: JsonObject;
}

/** `update-driver`, present when a driver such as Zincati registered. */
export interface UpdateDriver {
  readonly driverName: string;
  readonly driverSdUnit: string;
}

/** A parsed `rpm-ostree status --json` document. */
export interface RpmOstreeStatus {
  /** Boot order: index 0 is the next boot's default; a staged deployment is first. */
  readonly deployments: readonly Deployment[];
  /** Running transaction description, or null. */
  readonly transaction: readonly string[] | null;
  /** `cached-update` (kept as JSON), or null. */
  readonly cachedUpdate: JsonObject | null;
  readonly updateDriver: UpdateDriver | undefined;
  /** Top-level keys not modelled. */
  readonly unknown: JsonObject;
  /** The whole document exactly as received. */
  readonly raw: JsonObject;
}

const DEPLOYMENT_KEYS = new Set([
  'id',
  'osname',
  'serial',
  'checksum',
  'base-checksum',
  'version',
  'timestamp',
  'base-version',
  'base-timestamp',
  'booted',
  'staged',
  'pinned',
  'finalization-locked',
  'unlocked',
  'regenerate-initramfs',
  'origin',
  'custom-origin',
  'container-image-reference',
  'container-image-reference-digest',
  'packages',
  'requested-packages',
  'requested-local-packages',
  'requested-base-removals',
  'base-removals',
  'requested-base-local-replacements',
  'base-local-replacements',
  'base-commit-meta',
  'layered-commit-meta',
  'pending-base-checksum',
  'pending-base-version',
  'pending-base-timestamp',
  'gpg-enabled',
]);
const TOP_KEYS = new Set(['deployments', 'transaction', 'cached-update', 'update-driver']);

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Reader {
  constructor(
    readonly obj: JsonObject,
    readonly path: string,
    readonly source: string | undefined,
  ) {}
  fail(key: string, want: string): never {
    throw new StatusParseError(
      `${this.path}.${key}`,
      `expected ${want}, got ${JSON.stringify(this.obj[key])?.slice(0, 80)}`,
      this.source,
    );
  }
  str(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.fail(key, 'a string');
    return v;
  }
  reqStr(key: string): string {
    const v = this.str(key);
    if (v === undefined) this.fail(key, 'a string (required)');
    return v;
  }
  num(key: string): number | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(key, 'a number');
    return v;
  }
  bool(key: string): boolean | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') this.fail(key, 'a boolean');
    return v;
  }
  strs(key: string): string[] | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) this.fail(key, 'an array of strings');
    return v as string[];
  }
  arr(key: string): JsonValue[] | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.fail(key, 'an array');
    return v;
  }
  obj_(key: string): JsonObject | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) this.fail(key, 'an object');
    return v;
  }
}

function parseDeployment(raw: JsonValue, index: number, bootedIndex: number, source: string | undefined): Deployment {
  const path = `$.deployments[${index}]`;
  if (!isObject(raw)) throw new StatusParseError(path, 'expected an object', source);
  const r = new Reader(raw, path, source);
  const unknown: JsonObject = {};
  for (const [k, v] of Object.entries(raw)) if (!DEPLOYMENT_KEYS.has(k)) unknown[k] = v;
  const containerImageReference = r.str('container-image-reference');
  let imageReference: OstreeImageReference | undefined;
  if (containerImageReference !== undefined) {
    try {
      imageReference = parseOstreeImageReference(containerImageReference);
    } catch {
      imageReference = undefined;
    }
  }
  const booted = r.bool('booted') ?? false;
  const serialRaw = r.num('serial');
  const serial =
    serialRaw !== undefined && Number.isInteger(serialRaw) && serialRaw >= 0
      ? serialRaw
      : r.fail('serial', 'a non-negative integer');
  return {
    id: r.reqStr('id'),
    osname: r.reqStr('osname'),
    serial,
    checksum: r.reqStr('checksum'),
    baseChecksum: r.str('base-checksum'),
    version: r.str('version'),
    timestamp: r.num('timestamp'),
    baseVersion: r.str('base-version'),
    baseTimestamp: r.num('base-timestamp'),
    booted,
    staged: r.bool('staged') ?? false,
    pinned: r.bool('pinned') ?? false,
    pending: index === 0 && !booted,
    rollback: bootedIndex >= 0 && index === bootedIndex + 1,
    finalizationLocked: r.bool('finalization-locked') ?? false,
    unlocked: r.str('unlocked'),
    regenerateInitramfs: r.bool('regenerate-initramfs'),
    origin: r.str('origin'),
    customOrigin: r.strs('custom-origin'),
    containerImageReference,
    containerImageReferenceDigest: r.str('container-image-reference-digest'),
    imageReference,
    packages: r.strs('packages') ?? [],
    requestedPackages: r.strs('requested-packages') ?? [],
    requestedLocalPackages: r.strs('requested-local-packages') ?? [],
    requestedBaseRemovals: r.strs('requested-base-removals') ?? [],
    baseRemovals: r.arr('base-removals') ?? [],
    requestedBaseLocalReplacements: r.arr('requested-base-local-replacements') ?? [],
    baseLocalReplacements: r.arr('base-local-replacements') ?? [],
    baseCommitMeta: r.obj_('base-commit-meta'),
    layeredCommitMeta: r.obj_('layered-commit-meta'),
    pendingBaseChecksum: r.str('pending-base-checksum'),
    pendingBaseVersion: r.str('pending-base-version'),
    pendingBaseTimestamp: r.num('pending-base-timestamp'),
    gpgEnabled: r.bool('gpg-enabled'),
    unknown,
    raw,
  };
}

/** Largest status document accepted (bytes of text). */
export const MAX_STATUS_BYTES = 64 * 1024 * 1024;

/**
 * Parses `rpm-ostree status --json` output (text or an already-parsed value) into {@link RpmOstreeStatus}.
 * Throws {@link StatusParseError} naming the JSON path at fault. Nothing is dropped: `raw` keeps every field.
 */
export function parseRpmOstreeStatus(input: string | JsonValue, source?: string): RpmOstreeStatus {
  let doc: JsonValue;
  if (typeof input === 'string') {
    if (input.length > MAX_STATUS_BYTES)
      throw new StatusParseError('$', `document larger than ${MAX_STATUS_BYTES} bytes`, source);
    try {
      doc = JSON.parse(input) as JsonValue;
    } catch (e) {
      throw new StatusParseError(
        '$',
        `not valid JSON (${(e as Error).message}); run "rpm-ostree status --json" and check its output`,
        source,
      );
    }
  } else {
    doc = input;
  }
  if (!isObject(doc)) throw new StatusParseError('$', 'expected a JSON object with "deployments"', source);
  const deps = doc['deployments'];
  if (!Array.isArray(deps)) throw new StatusParseError('$.deployments', 'expected an array', source);
  const bootedIndex = deps.findIndex((d) => isObject(d) && d['booted'] === true);
  const deployments = deps.map((d, i) => parseDeployment(d, i, bootedIndex, source));
  const r = new Reader(doc, '$', source);
  const transaction = r.strs('transaction') ?? null;
  const cachedUpdate = r.obj_('cached-update') ?? null;
  const driver = r.obj_('update-driver');
  let updateDriver: UpdateDriver | undefined;
  if (driver !== undefined) {
    const dr = new Reader(driver, '$.update-driver', source);
    updateDriver = { driverName: dr.reqStr('driver-name'), driverSdUnit: dr.reqStr('driver-sd-unit') };
  }
  const unknown: JsonObject = {};
  for (const [k, v] of Object.entries(doc)) if (!TOP_KEYS.has(k)) unknown[k] = v;
  return { deployments, transaction, cachedUpdate, updateDriver, unknown, raw: doc };
}

/** The status as JSON again (a deep copy of what was parsed; field order kept). */
export function statusToJson(status: RpmOstreeStatus): JsonObject {
  return structuredClone(status.raw);
}

/** The booted deployment, or undefined (not booted into ostree). */
export function bootedDeployment(status: RpmOstreeStatus): Deployment | undefined {
  return status.deployments.find((d) => d.booted);
}
/** The staged deployment, or undefined. */
export function stagedDeployment(status: RpmOstreeStatus): Deployment | undefined {
  return status.deployments.find((d) => d.staged);
}
/** The pending deployment (first in boot order and not booted, staged or not), or undefined. */
export function pendingDeployment(status: RpmOstreeStatus): Deployment | undefined {
  return status.deployments.find((d) => d.pending);
}
/** The rollback deployment (right after the booted one), or undefined. */
export function rollbackDeployment(status: RpmOstreeStatus): Deployment | undefined {
  return status.deployments.find((d) => d.rollback);
}

/** The base commit: `base-checksum` when layered, else `checksum`. */
export function baseChecksumOf(d: Deployment): string {
  return d.baseChecksum ?? d.checksum;
}

/**
 * The OS image URL a deployment runs, as the machine-config-daemon computes it: the image name of the container
 * image reference (without `ostree-…:` and `docker://`), else a `pivot://` custom origin, else undefined.
 */
export function osImageUrlOf(d: Deployment): string | undefined {
  if (d.containerImageReference !== undefined) return d.imageReference?.imgref.name;
  const url = d.customOrigin?.[0];
  if (url?.startsWith('pivot://')) return url.slice('pivot://'.length);
  return undefined;
}

function parseEmbeddedJson(v: JsonValue | undefined): JsonObject | undefined {
  if (typeof v !== 'string') return isObject(v) ? v : undefined;
  try {
    const o = JSON.parse(v) as JsonValue;
    return isObject(o) ? o : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Fedora CoreOS update stream of a deployment as Zincati finds it: image-config label `com.coreos.stream`,
 * then manifest annotation `fedora-coreos.stream`, then the commit metadata key `fedora-coreos.stream`.
 */
export function coreosStreamOf(d: Deployment): string | undefined {
  const meta = d.baseCommitMeta;
  if (meta === undefined) return undefined;
  const config = parseEmbeddedJson(meta['ostree.container.image-config']);
  const cfg = config?.['config'];
  const labels = isObject(cfg) ? cfg['Labels'] : undefined;
  const label = isObject(labels) ? labels['com.coreos.stream'] : undefined;
  if (typeof label === 'string') return label;
  const manifest = parseEmbeddedJson(meta['ostree.manifest']);
  const ann = manifest?.['annotations'];
  const a = isObject(ann) ? ann['fedora-coreos.stream'] : undefined;
  if (typeof a === 'string') return a;
  const direct = meta['fedora-coreos.stream'];
  return typeof direct === 'string' ? direct : undefined;
}
