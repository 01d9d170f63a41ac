/**
 * Loader for the upstream coreos/butane test vectors in test/fixtures/upstream/butane (see the README there).
 * Each JSON file transcribes one upstream Go test file; this module reads them and checks their shape, so a
 * malformed vector fails loudly instead of being silently skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directory holding the vector files. */
export const BUTANE_VECTOR_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'upstream', 'butane');

/** One expected report entry: kind and message always; path, line and column only where upstream fixes them. */
export interface ExpectedEntry {
  kind: 'error' | 'warning';
  message: string;
  path?: string;
  line?: number;
  column?: number;
}

/** Options of a vector: translateButane's, and how to build the files dir upstream's test sets up. */
export interface ButaneVectorOptions {
  /** Files (relative path -> contents, latin1) written to a fresh files dir; `{}` is an empty dir. */
  filesDir?: Record<string, string>;
  /** Modes (e.g. 0o600) of files of `filesDir`, set after writing. */
  filesDirModes?: Record<string, number>;
  /** Directories (relative path -> mode) created in the files dir. */
  filesDirDirs?: Record<string, number>;
  /** Symbolic links (relative path -> target) created in the files dir. */
  filesDirLinks?: Record<string, string>;
  /** Unix sockets (relative paths) listening in the files dir while the vector runs. */
  filesDirSockets?: string[];
  strict?: boolean;
  raw?: boolean;
  /** Set for `-experimental` versions, which are only translated on request. */
  experimental?: boolean;
}

/** One upstream test case, as data. */
export interface ButaneVector {
  name: string;
  source: { file: string; test: string };
  variant: 'fcos' | 'openshift';
  version: string;
  input: string;
  options: ButaneVectorOptions;
  expected: {
    config?: Record<string, unknown>;
    report: ExpectedEntry[];
    /** exact: the report equals `report` (order-insensitive); contains: every entry of `report` is in it. */
    reportMatch: 'exact' | 'contains';
  };
  note?: string;
}

/** One vector file: its upstream provenance and its vectors. */
export interface ButaneVectorFile {
  fileName: string;
  upstream: { repo: string; revision: string; file: string; license: string };
  vectors: ButaneVector[];
}

/** Thrown when a vector file does not have the documented shape. */
export class ButaneVectorShapeError extends Error {
  readonly code = 'BUTANE_VECTOR_SHAPE';
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${file}: ${field}: ${detail} (fix the vector file; see test/fixtures/upstream/butane/README.md)`);
    this.name = 'ButaneVectorShapeError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function need(cond: boolean, file: string, field: string, detail: string): void {
  if (!cond) throw new ButaneVectorShapeError(file, field, detail);
}

function checkEntry(e: unknown, file: string, field: string): ExpectedEntry {
  need(isRecord(e), file, field, 'must be an object');
  const r = e as Record<string, unknown>;
  need(r.kind === 'error' || r.kind === 'warning', file, `${field}.kind`, 'must be "error" or "warning"');
  need(typeof r.message === 'string' && r.message !== '', file, `${field}.message`, 'must be a non-empty string');
  need(
    r.path === undefined || (typeof r.path === 'string' && r.path.startsWith('$')),
    file,
    `${field}.path`,
    'must start with $',
  );
  for (const k of ['line', 'column'] as const) {
    need(
      r[k] === undefined || (Number.isInteger(r[k]) && (r[k] as number) > 0),
      file,
      `${field}.${k}`,
      'must be a positive integer',
    );
  }
  return r as unknown as ExpectedEntry;
}

function isRel(p: string): boolean {
  return p !== '' && !p.startsWith('/') && !p.split('/').includes('..');
}

function checkRelPaths(m: unknown, file: string, field: string, ok: (v: unknown) => boolean): void {
  if (m === undefined) return;
  need(isRecord(m), file, field, 'must map relative paths to values');
  for (const [p, v] of Object.entries(m as Record<string, unknown>)) {
    need(isRel(p) && ok(v), file, `${field}.${p}`, 'must be a relative path inside the dir with a valid value');
  }
}

function checkOptions(o: unknown, file: string, field: string): void {
  need(isRecord(o), file, field, 'must be an object');
  const r = o as Record<string, unknown>;
  const known = [
    'filesDir',
    'filesDirModes',
    'filesDirDirs',
    'filesDirLinks',
    'filesDirSockets',
    'strict',
    'raw',
    'experimental',
  ];
  for (const k of Object.keys(r)) need(known.includes(k), file, `${field}.${k}`, 'unknown option');
  for (const k of ['filesDirModes', 'filesDirDirs', 'filesDirLinks', 'filesDirSockets']) {
    need(r[k] === undefined || r.filesDir !== undefined, file, `${field}.${k}`, 'needs filesDir');
  }
  checkRelPaths(r.filesDirModes, file, `${field}.filesDirModes`, (v) => Number.isInteger(v));
  checkRelPaths(r.filesDirDirs, file, `${field}.filesDirDirs`, (v) => Number.isInteger(v));
  checkRelPaths(r.filesDirLinks, file, `${field}.filesDirLinks`, (v) => typeof v === 'string');
  need(
    r.filesDirSockets === undefined ||
      (Array.isArray(r.filesDirSockets) && r.filesDirSockets.every((p) => typeof p === 'string' && isRel(p))),
    file,
    `${field}.filesDirSockets`,
    'must be relative paths inside the dir',
  );
  need(r.strict === undefined || typeof r.strict === 'boolean', file, `${field}.strict`, 'must be a boolean');
  need(r.raw === undefined || typeof r.raw === 'boolean', file, `${field}.raw`, 'must be a boolean');
  need(
    r.experimental === undefined || typeof r.experimental === 'boolean',
    file,
    `${field}.experimental`,
    'must be a boolean',
  );
  if (r.filesDir !== undefined) {
    need(isRecord(r.filesDir), file, `${field}.filesDir`, 'must map relative paths to contents');
    for (const [p, c] of Object.entries(r.filesDir as Record<string, unknown>)) {
      need(typeof c === 'string', file, `${field}.filesDir.${p}`, 'contents must be a string');
      need(isRel(p), file, `${field}.filesDir.${p}`, 'must be relative and stay inside the dir');
    }
  }
}

function checkVector(v: unknown, file: string, i: number): ButaneVector {
  const f = `vectors[${String(i)}]`;
  need(isRecord(v), file, f, 'must be an object');
  const r = v as Record<string, unknown>;
  need(typeof r.name === 'string' && r.name !== '', file, `${f}.name`, 'must be a non-empty string');
  const src = r.source;
  need(
    isRecord(src) && typeof src.file === 'string' && typeof src.test === 'string',
    file,
    `${f}.source`,
    'needs file and test',
  );
  need(r.variant === 'fcos' || r.variant === 'openshift', file, `${f}.variant`, 'must be fcos or openshift');
  need(
    typeof r.version === 'string' && /^\d+\.\d+\.\d+(-experimental)?$/.test(r.version),
    file,
    `${f}.version`,
    'must be x.y.z',
  );
  need(typeof r.input === 'string', file, `${f}.input`, 'must be the Butane YAML text');
  checkOptions(r.options, file, `${f}.options`);
  const ex = r.expected;
  need(isRecord(ex), file, `${f}.expected`, 'must be an object');
  const e = ex as Record<string, unknown>;
  need(e.config === undefined || isRecord(e.config), file, `${f}.expected.config`, 'must be an object');
  need(Array.isArray(e.report), file, `${f}.expected.report`, 'must be an array');
  (e.report as unknown[]).forEach((x, j) => checkEntry(x, file, `${f}.expected.report[${String(j)}]`));
  need(
    e.reportMatch === 'exact' || e.reportMatch === 'contains',
    file,
    `${f}.expected.reportMatch`,
    'must be exact or contains',
  );
  return r as unknown as ButaneVector;
}

/** Parse and shape-check one vector file's text. */
export function parseVectorFile(fileName: string, text: string): ButaneVectorFile {
  const doc: unknown = JSON.parse(text);
  need(isRecord(doc), fileName, '$', 'must be an object');
  const d = doc as Record<string, unknown>;
  const up = d.upstream;
  need(
    isRecord(up) &&
      up.repo === 'coreos/butane' &&
      typeof up.revision === 'string' &&
      /^[0-9a-f]{40}$/.test(up.revision),
    fileName,
    'upstream',
    'needs repo coreos/butane and a 40-hex revision',
  );
  need(Array.isArray(d.vectors) && d.vectors.length > 0, fileName, 'vectors', 'must be a non-empty array');
  const vectors = (d.vectors as unknown[]).map((v, i) => checkVector(v, fileName, i));
  return { fileName, upstream: up as ButaneVectorFile['upstream'], vectors };
}

/** Load every vector file, in file-name order. */
export function loadButaneVectors(dir: string = BUTANE_VECTOR_DIR): ButaneVectorFile[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => parseVectorFile(n, readFileSync(join(dir, n), 'utf8')));
}
