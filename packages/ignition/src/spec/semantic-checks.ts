/**
 * The field checks of spec 3.x semantic validation (coreos/ignition `config/shared/validations`, `config/util` and the
 * per-type `Validate()` helpers of `config/v3_N/types`) and the report collector; `semantic.ts` walks a config with
 * them.
 */
import { finding, type Finding, type UpstreamErrorName } from './errors.js';
import {
  dataURLError,
  deserializeUnit,
  goParseURL,
  goPathClean,
  goQueryValues,
  parseARN,
  type UnitOption,
} from './goparse.js';
import type { JsonPath, ReportEntry } from './types.js';

type Obj = Record<string, unknown>;

export const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const isStr = (v: unknown): v is string => typeof v === 'string';
export const nilOrEmpty = (v: unknown): boolean => v === undefined || v === null || v === '';
export const notEmpty = (v: unknown): boolean => isStr(v) && v !== '';
export const isTrue = (v: unknown): boolean => v === true;
export const isFalse = (v: unknown): boolean => v === false;
export const present = (v: unknown): boolean => v !== undefined && v !== null;
export const str = (v: unknown): string => (isStr(v) ? v : '');

export const E = (name: UpstreamErrorName): Finding => finding(name);
export const plain = (message: string): Finding => ({ message, name: null });

/** validatePath: non-empty, absolute, clean. */
export function checkPath(p: string): Finding | null {
  if (p === '') return E('ErrNoPath');
  if (!p.startsWith('/')) return E('ErrPathRelative');
  if (goPathClean(p) !== p) return E('ErrDirtyPath');
  return null;
}

/** validateURL for a spec minor version. */
export function checkURL(s: string, minor: number): Finding | null {
  const u = goParseURL(s);
  if (!u) return E('ErrInvalidUrl');
  switch (u.scheme) {
    case 'http':
    case 'https':
    case 'tftp':
      return null;
    case 'gs':
      return minor >= 2 ? null : E('ErrInvalidScheme');
    case 's3': {
      const v = goQueryValues(u.rawQuery, 'versionId');
      if (v !== undefined && (v.length === 0 || v[0] === '')) return E('ErrInvalidS3ObjectVersionId');
      return null;
    }
    case 'arn': {
      if (minor < 4) return E('ErrInvalidScheme');
      const full = `${u.scheme}:${u.opaque}`;
      const arn = parseARN(full);
      if (!arn || arn.service !== 's3') return E('ErrInvalidS3ARN');
      const split = full.split('/');
      if (arn.resource.startsWith('accesspoint/') ? split.length < 3 : split.length < 2) return E('ErrInvalidS3ARN');
      const v = goQueryValues(u.rawQuery, 'versionId');
      if (v !== undefined && (v.length === 0 || v[0] === '')) return E('ErrInvalidS3ObjectVersionId');
      return null;
    }
    case 'data': {
      const err = dataURLError(s);
      return err === null ? null : plain(err);
    }
    default:
      return E('ErrInvalidScheme');
  }
}

/** validateURLNilOK. */
export function checkURLNilOK(s: unknown, minor: number): Finding | null {
  return nilOrEmpty(s) ? null : checkURL(str(s), minor);
}

/** validateMode: 0..07777. */
export function checkMode(m: unknown): Finding | null {
  return typeof m === 'number' && (m < 0 || m > 0o7777) ? E('ErrFileIllegalMode') : null;
}

/** validateModeSpecialBits (a warning before 3.6.0). */
export function checkModeSpecialBits(m: unknown): Finding | null {
  if (typeof m !== 'number') return null;
  return ((m >>> 0) & 0o7000) !== 0 ? E('ErrModeSpecialBits') : null;
}

/** Partition validateLabel. */
export function checkPartitionLabel(label: unknown): Finding | null {
  if (!isStr(label)) return null;
  if (Buffer.byteLength(label, 'utf8') > 36) return E('ErrLabelTooLong');
  if (label.includes(':')) return E('ErrLabelContainsColon');
  return null;
}

/** validateGUID. */
export function checkGUID(g: unknown): Finding | null {
  if (!isStr(g)) return null;
  return /^(|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$/.test(g)
    ? null
    : E('ErrDoesntMatchGUIDRegex');
}

/** Unit validateName: known unit type suffix. */
export function checkUnitName(name: string): Finding | null {
  const ext = goExt(name);
  return [
    '.service',
    '.socket',
    '.device',
    '.mount',
    '.automount',
    '.swap',
    '.target',
    '.path',
    '.timer',
    '.snapshot',
    '.slice',
    '.scope',
  ].includes(ext)
    ? null
    : E('ErrInvalidSystemdExt');
}

export function goExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

/** Verification.HashParts: splits `<function>-<sum>`. */
export function hashParts(hash: string | null | undefined): { fn: string; sum: string } | Finding {
  if (hash === null || hash === undefined) return { fn: '', sum: '' };
  const i = hash.indexOf('-');
  if (i < 0) return E('ErrHashMalformed');
  return { fn: hash.slice(0, i), sum: hash.slice(i + 1) };
}

/** Verification hash check for a spec minor version (sha256 from 3.1). */
export function checkHash(hash: unknown, minor: number): Finding | null {
  if (!isStr(hash)) return null;
  const parts = hashParts(hash);
  if ('message' in parts) return parts;
  let size: number;
  if (parts.fn === 'sha512') size = 64;
  else if (parts.fn === 'sha256' && minor >= 1) size = 32;
  else return E('ErrHashUnrecognized');
  return parts.sum.length !== size * 2 ? E('ErrHashWrongSize') : null;
}

/** HTTPHeaders.Parse: the request headers, or the first error. */
export function parseHeaders(headers: { name?: string; value?: string | null }[]): Finding | [string, string][] {
  const out: [string, string][] = [];
  for (const h of headers) {
    if (!h.name) return E('ErrEmptyHTTPHeaderName');
    if (h.value === undefined || h.value === null || h.value === '') return E('ErrInvalidHTTPHeader');
    out.push([h.name, h.value]);
  }
  return out;
}

/** Proxy URL check for one field; `httpOk` false for the https proxy field. */
export function checkProxyURL(s: unknown, httpOk: boolean): (Finding & { kind: 'error' | 'warning' }) | null {
  if (!isStr(s)) return null;
  const u = goParseURL(s);
  if (!u) return { ...E('ErrInvalidUrl'), kind: 'error' };
  if (u.scheme !== 'https' && u.scheme !== 'http') return { ...E('ErrInvalidProxy'), kind: 'error' };
  if (u.scheme === 'http' && !httpOk) return { ...E('ErrInsecureProxy'), kind: 'warning' };
  return null;
}

/** ParseUnitContents: options, or the upstream "invalid unit content" error. */
export function parseUnitContents(content: unknown): { opts: UnitOption[] | null; err: Finding | null } {
  if (!isStr(content)) return { opts: [], err: null };
  try {
    return { opts: deserializeUnit(content), err: null };
  } catch (e) {
    return { opts: null, err: plain(`invalid unit content: ${(e as Error).message}`) };
  }
}

/** Filesystem label length per format. */
export function checkFilesystemLabel(fs: Obj, minor: number, experimental: boolean): Finding | null {
  const label = fs['label'];
  if (nilOrEmpty(label)) return null;
  const format = fs['format'];
  if (nilOrEmpty(format)) return E('ErrLabelNeedsFormat');
  const len = Buffer.byteLength(str(label), 'utf8');
  switch (format) {
    case 'ext4':
      return len > 16 ? E('ErrExt4LabelTooLong') : null;
    case 'btrfs':
      return len > 256 ? E('ErrBtrfsLabelTooLong') : null;
    case 'xfs':
      return len > 12 ? E('ErrXfsLabelTooLong') : null;
    case 'swap':
      return len > 15 ? E('ErrSwapLabelTooLong') : null;
    case 'vfat':
      return len > 11 ? E('ErrVfatLabelTooLong') : null;
    case 'virtiofs':
      return experimental && minor >= 7 ? E('ErrVirtiofsCannotHaveLabel') : null;
  }
  return null;
}

/** Filesystem format rules. */
export function checkFilesystemFormat(fs: Obj, minor: number, experimental: boolean): Finding | null {
  const format = fs['format'];
  if (nilOrEmpty(format)) {
    if (
      notEmpty(fs['path']) ||
      notEmpty(fs['label']) ||
      notEmpty(fs['uuid']) ||
      isTrue(fs['wipeFilesystem']) ||
      (minor >= 1 && asList(fs['mountOptions']).length !== 0) ||
      asList(fs['options']).length !== 0
    ) {
      return E('ErrFormatNilWithOthers');
    }
    return null;
  }
  const allowed = ['ext4', 'btrfs', 'xfs', 'swap', 'vfat'];
  if (minor >= 3) allowed.push('none');
  if (experimental) allowed.push('virtiofs');
  return allowed.includes(str(format)) ? null : E('ErrFilesystemInvalidFormat');
}

/** Raid level check. */
export function checkRaidLevel(raid: Obj, minor: number): Finding | null {
  const level = raid['level'];
  if (minor >= 3 && nilOrEmpty(level)) return E('ErrRaidLevelRequired');
  switch (str(level)) {
    case 'linear':
    case 'raid0':
    case '0':
    case 'stripe':
      return typeof raid['spares'] === 'number' && raid['spares'] !== 0 ? E('ErrSparesUnsupportedForLevel') : null;
    case 'raid1':
    case '1':
    case 'mirror':
    case 'raid4':
    case '4':
    case 'raid5':
    case '5':
    case 'raid6':
    case '6':
    case 'raid10':
    case '10':
      return null;
    default:
      return E('ErrUnrecognizedRaidLevel');
  }
}

/** Collects report entries (errors and warnings) with paths. */
export class Collector {
  readonly entries: ReportEntry[] = [];
  err(path: JsonPath, f: Finding | null): void {
    if (f) this.entries.push({ kind: 'error', message: f.message, path: [...path], name: f.name });
  }
  warn(path: JsonPath, f: Finding | null): void {
    if (f) this.entries.push({ kind: 'warning', message: f.message, path: [...path], name: f.name });
  }
}

export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h}`);
}
