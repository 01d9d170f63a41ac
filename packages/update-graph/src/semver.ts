/**
 * Strict SemVer 2.0 parsing with the error messages of github.com/blang/semver (what the CVO uses),
 * and comparison (build metadata ignored, like blang's Compare).
 */
import { SemverError } from './errors.js';
import { at } from './util.js';

/** A parsed SemVer version. */
export interface SemVer {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Pre-release identifiers (numbers for numeric identifiers). */
  readonly pre: readonly (string | number)[];
  /** Build metadata identifiers. */
  readonly build: readonly string[];
  /** The input string. */
  readonly raw: string;
}

const NUM = /^[0-9]*$/;
const ALNUM = /^[0-9A-Za-z-]*$/;

function parseUint(s: string): number {
  if (s === '') throw new SemverError(s, `strconv.ParseUint: parsing "": invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n))
    throw new SemverError(s, `strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

/** Parses strict SemVer 2.0; throws {@link SemverError} with blang/semver's message. */
export function parseSemver(s: string): SemVer {
  if (s.length === 0) throw new SemverError(s, 'Version string empty');
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (first < 0 || second < 0) throw new SemverError(s, 'No Major.Minor.Patch elements found');
  const majS = s.slice(0, first);
  const minS = s.slice(first + 1, second);
  let patchS = s.slice(second + 1);
  const check = (part: string, label: string): number => {
    if (!NUM.test(part))
      throw new SemverError(s, `Invalid character(s) found in ${label} number ${JSON.stringify(part)}`);
    if (part.length > 1 && part.startsWith('0')) {
      throw new SemverError(
        s,
        `${at(label, 0).toUpperCase()}${label.slice(1)} number must not contain leading zeroes ${JSON.stringify(part)}`,
      );
    }
    return parseUint(part);
  };
  const major = check(majS, 'major');
  const minor = check(minS, 'minor');
  let build: string[] = [];
  let preParts: string[] = [];
  const plus = patchS.indexOf('+');
  if (plus >= 0) {
    build = patchS.slice(plus + 1).split('.');
    patchS = patchS.slice(0, plus);
  }
  const dash = patchS.indexOf('-');
  if (dash >= 0) {
    preParts = patchS.slice(dash + 1).split('.');
    patchS = patchS.slice(0, dash);
  }
  const patch = check(patchS, 'patch');
  const pre: (string | number)[] = [];
  for (const p of preParts) {
    if (p.length === 0) throw new SemverError(s, 'Prerelease is empty');
    if (NUM.test(p)) {
      if (p.length > 1 && p.startsWith('0')) {
        throw new SemverError(s, `Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
      }
      pre.push(parseUint(p));
    } else if (ALNUM.test(p)) {
      pre.push(p);
    } else {
      throw new SemverError(s, `Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
    }
  }
  for (const b of build) {
    if (b.length === 0) throw new SemverError(s, 'Build meta data is empty');
    if (!ALNUM.test(b)) throw new SemverError(s, `Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return { major, minor, patch, pre, build, raw: s };
}

/** True when `s` is strict SemVer 2.0. */
export function isSemver(s: string): boolean {
  try {
    parseSemver(s);
    return true;
  } catch {
    return false;
  }
}

/** Canonical string (blang's Version.String()). */
export function formatSemver(v: SemVer): string {
  let out = `${v.major}.${v.minor}.${v.patch}`;
  if (v.pre.length > 0) out += `-${v.pre.join('.')}`;
  if (v.build.length > 0) out += `+${v.build.join('.')}`;
  return out;
}

/** Compares two versions (-1, 0, 1), ignoring build metadata. */
export function compareSemver(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  const n = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < n; i++) {
    const x = at(a.pre, i);
    const y = at(b.pre, i);
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

/** Compares two version strings; non-SemVer strings sort after SemVer ones, lexically. */
export function compareVersionStrings(a: string, b: string): number {
  let pa: SemVer | undefined;
  let pb: SemVer | undefined;
  try {
    pa = parseSemver(a);
  } catch {
    /* not semver */
  }
  try {
    pb = parseSemver(b);
  } catch {
    /* not semver */
  }
  if (pa && pb) return compareSemver(pa, pb) || (a < b ? -1 : a > b ? 1 : 0);
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
