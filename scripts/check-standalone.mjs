#!/usr/bin/env node
// The repository stands alone: fails (exit 1) when a file of the project refers to data outside the
// repository, i.e. the upstream data folder that once sat beside the checkout (a relative path climbing
// out of the repository into it, its absolute path) or the environment variable that pointed there, and
// citations of the reference documents that sat there (a `§4` of those notes, their numbered items).
// Scans packages/, apps/, tooling/, scripts/, .ci/ and the root configuration files; skips installed and
// generated folders, and the README of a data folder (below a package's root), whose prose may tell where
// the data was copied from. Package and root READMEs are checked: users run their commands.
// Prints every offending line as `path:line: text`. Usage: node scripts/check-standalone.mjs [root]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const TREES = ['packages', 'apps', 'tooling', 'scripts', '.ci'];
const ROOT_FILES = ['package.json', 'turbo.json', 'pnpm-workspace.yaml', 'eslint.config.js', 'README.md'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.turbo', '.vitest', 'coverage', '.keelson', '.git', 'generated']);
const MAX_BYTES = 4 * 1024 * 1024;
// Built from parts so that this file does not match itself.
const SHARED = 'shared';
const PATTERNS = [
  { re: new RegExp(`\\.\\./(?:\\.\\./)*${SHARED}\\b`), what: `a relative path to ../${SHARED}` },
  { re: new RegExp(`/work/${SHARED}\\b`), what: `the absolute path /work/${SHARED}` },
  { re: /\/work\/\.mirror\b/, what: 'a local mirror of an upstream repository' },
  { re: new RegExp(`KEELSON_${SHARED.toUpperCase()}`), what: `the KEELSON_${SHARED.toUpperCase()} variable` },
  // the reading material that sat beside the checkout: cite upstream by repository, file and function instead
  {
    re: new RegExp(`\\b(?:cvo|mco|formats|toolchain|DESIGN|upstream-${'parity'})\\.md\\b`),
    what: 'a reference document that is not in the repository',
  },
  {
    re: new RegExp(`\\b${'conformance'} (?:item )?\\d`),
    what: 'a numbered conformance item of a document not in the repository',
  },
];

/** Every regular file under dir, skipping installed/generated folders. */
function* walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) yield* walk(p);
    } else if (e.isFile()) {
      yield p;
    }
  }
}

/** A README.md deeper than `<tree>/<package>/README.md`: provenance prose of a copied data folder. */
function isDataReadme(file) {
  const parts = relative(root, file).split(sep);
  return parts.at(-1) === 'README.md' && parts.length > 3;
}

function* candidates() {
  for (const t of TREES) for (const f of walk(join(root, t))) if (!isDataReadme(f)) yield f;
  for (const f of ROOT_FILES) {
    const p = join(root, f);
    try {
      if (statSync(p).isFile()) yield p;
    } catch {
      // absent root file: nothing to check
    }
  }
}

const findings = [];
let scanned = 0;
for (const file of candidates()) {
  if (statSync(file).size > MAX_BYTES) continue;
  const text = readFileSync(file, 'utf8');
  if (text.includes('\0')) continue; // binary
  scanned += 1;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const { re, what } of PATTERNS) {
      if (re.test(line)) findings.push(`${relative(root, file)}:${i + 1}: ${what}: ${line.trim().slice(0, 160)}`);
    }
  });
}

if (findings.length > 0) {
  console.error(`check-standalone: ${findings.length} reference(s) to data outside the repository:`);
  for (const f of findings) console.error(`  ${f}`);
  console.error(
    'Copy the data into the package that uses it (with a README naming upstream repo, revision and license); ' +
      'cite upstream behaviour by repository, file and function.',
  );
  process.exit(1);
}
console.log(`check-standalone: ${scanned} files, no reference outside the repository`);
