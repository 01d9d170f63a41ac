/** Text helpers shared by the `keelson upgrade` renderers: indentation, SemVer ordering, tab-aligned tables. */
import { compareSemver, parseSemver, type SemVer } from '@keelson/update-graph';
import type { ConditionalUpdate, Release } from './api-types.js';

/** Indents continuation lines of a multi-line message by two spaces (oc's `ReplaceAll(msg, "\n", "\n  ")`). */
export function indent(message: string | undefined): string {
  return (message ?? '').replaceAll('\n', '\n  ');
}

function trySemver(v: string | undefined): SemVer | undefined {
  try {
    return parseSemver(v ?? '');
  } catch {
    return undefined;
  }
}

/** Descending SemVer order; valid versions before invalid ones, invalid ones in descending byte order (oc). */
export function compareVersionsDescending(a: string | undefined, b: string | undefined): number {
  const pa = trySemver(a);
  const pb = trySemver(b);
  if (pa && !pb) return -1;
  if (pb && !pa) return 1;
  if (pa && pb) return compareSemver(pb, pa);
  const x = a ?? '';
  const y = b ?? '';
  return x > y ? -1 : x < y ? 1 : 0;
}

/** A copy of `releases` sorted by descending SemVer. */
export function sortReleasesDescending(releases: readonly Release[]): Release[] {
  return [...releases].sort((a, b) => compareVersionsDescending(a.version, b.version));
}

/** A copy of conditional updates sorted by descending SemVer of their release. */
export function sortConditionalDescending(updates: readonly ConditionalUpdate[]): ConditionalUpdate[] {
  return [...updates].sort((a, b) => compareVersionsDescending(a.release.version, b.release.version));
}

/**
 * Aligns rows like Go's text/tabwriter with the given minimum cell width and padding (the last cell of a row is
 * not padded). Cells are measured in UTF-16 code units, which equals tabwriter's runes for the ASCII shown here.
 */
export function tabulate(rows: readonly (readonly string[])[], minWidth = 0, padding = 1): string[] {
  const widths: number[] = [];
  for (const r of rows) {
    r.slice(0, -1).forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length + padding, minWidth);
    });
  }
  return rows.map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join(''));
}
