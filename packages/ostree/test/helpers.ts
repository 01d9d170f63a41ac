import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Upstream data copied into this package (test/fixtures/upstream; each folder's README gives provenance). */
export const UPSTREAM = fileURLToPath(new URL('./fixtures/upstream/', import.meta.url));
export const FIXTURE_DIR = join(UPSTREAM, 'rpm-ostree');

/** Every `rpm-ostree status --json` fixture: [relative name, text]. */
export function fixtures(): [string, string][] {
  const out: [string, string][] = [];
  for (const dir of readdirSync(FIXTURE_DIR, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of readdirSync(join(FIXTURE_DIR, dir.name))) {
      if (f.endsWith('.json')) out.push([`${dir.name}/${f}`, readFileSync(join(FIXTURE_DIR, dir.name, f), 'utf8')]);
    }
  }
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

export function fixture(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8');
}

export interface Vector {
  name: string;
  function: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

export function mcoVectors(prefix: string): Vector[] {
  const doc = JSON.parse(readFileSync(join(UPSTREAM, 'vectors', 'mco-vectors.json'), 'utf8')) as { vectors: Vector[] };
  return doc.vectors.filter((v) => v.function.startsWith(prefix));
}
