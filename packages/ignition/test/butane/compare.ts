/**
 * Comparison rules of the upstream Butane vector runner (see test/fixtures/upstream/butane/README.md):
 * report entries compare by kind + message and, where the vector gives them, path / line / column, order-
 * insensitive; configs compare deep-equal, except that gzip data URLs compare by their decompressed payload
 * (upstream's bytes come from Go's deflate, which no other implementation reproduces byte for byte).
 */
import { gunzipSync } from 'node:zlib';
import type { ExpectedEntry } from './upstream-vectors.js';

/** An actual report entry as translateButane returns it. */
export interface ActualEntry {
  kind: string;
  message: string;
  path: string;
  line?: number;
  column?: number;
}

function matches(want: ExpectedEntry, got: ActualEntry): boolean {
  return (
    want.kind === got.kind &&
    want.message === got.message &&
    (want.path === undefined || want.path === got.path) &&
    (want.line === undefined || want.line === got.line) &&
    (want.column === undefined || want.column === got.column)
  );
}

/** Result of a report comparison: the expected entries not found and, for exact matching, the extra actual ones. */
export interface ReportDiff {
  missing: ExpectedEntry[];
  unexpected: ActualEntry[];
}

/** Compare a report with the expectation (each actual entry satisfies at most one expected entry). */
export function compareReport(
  expected: readonly ExpectedEntry[],
  actual: readonly ActualEntry[],
  mode: 'exact' | 'contains',
): ReportDiff {
  const left = [...actual];
  const missing: ExpectedEntry[] = [];
  for (const want of expected) {
    const i = left.findIndex((got) => matches(want, got));
    if (i < 0) missing.push(want);
    else left.splice(i, 1);
  }
  return { missing, unexpected: mode === 'exact' ? left : [] };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function decodeDataURL(url: string): Buffer | null {
  const m = /^data:([^,]*),(.*)$/s.exec(url);
  if (!m) return null;
  const meta = m[1] ?? '';
  const data = m[2] ?? '';
  return meta.endsWith(';base64') ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponent(data), 'latin1');
}

/**
 * Rewrite every resource `{ source: data URL, compression: "gzip" }` into `{ gunzipped: <payload> }` so that
 * two configs whose gzip streams differ but whose contents agree compare equal.
 */
export function normalizeConfig(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeConfig);
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = normalizeConfig(x);
  if (out.compression === 'gzip' && typeof out.source === 'string') {
    const raw = decodeDataURL(out.source);
    if (raw !== null) {
      delete out.source;
      delete out.compression;
      out.gunzipped = gunzipSync(raw).toString('latin1');
    }
  }
  return out;
}
