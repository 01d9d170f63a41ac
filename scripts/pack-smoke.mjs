#!/usr/bin/env node
// Packs every public @keelson/* package (packages/* and the published operator apps) with `pnpm pack`, installs the
// tarballs into a temp project with npm (as a user would), runs each `bin` (`--help` prints its usage, as
// `go install` gives the binaries), imports each one from plain Node as ESM and as CJS, and type-checks a strict
// TypeScript consumer of each (ESM and CJS resolution, `strict`, no `skipLibCheck`: every type a package
// exports must resolve from its own dependencies). Writes .keelson/pack-smoke.json ({passed, failed}).
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const pkgs = [];
/** Every `bin` of the published packages: name → package. */
const bins = [];
const dirs = [
  ...readdirSync(join(root, 'packages'))
    .sort()
    .map((n) => join(root, 'packages', n)),
  // the operator apps are published too (npm install @keelson/machine-config-operator gives its four binaries)
  join(root, 'apps', 'cluster-version-operator'),
  join(root, 'apps', 'machine-config-operator'),
];
for (const dir of dirs) {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (pkg.private) continue;
  // every entry point: the package root and each subpath export (e.g. @keelson/ignition/butane)
  const subpaths = Object.keys(pkg.exports ?? { '.': null }).filter((k) => k !== './package.json' && !k.includes('*'));
  for (const sub of subpaths)
    pkgs.push({
      dir,
      name: sub === '.' ? pkg.name : `${pkg.name}${sub.slice(1)}`,
      pkgName: pkg.name,
    });
  for (const b of Object.keys(pkg.bin ?? {})) bins.push({ bin: b, pkgName: pkg.name });
}

const work = mkdtempSync(join(tmpdir(), 'keelson-pack-'));
const tarballs = join(work, 'tarballs');
const project = join(work, 'project');
mkdirSync(tarballs);
mkdirSync(project);
let passed = 0;
let failed = 0;
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

try {
  for (const p of pkgs) if (p.name === p.pkgName) run('pnpm', ['pack', '--pack-destination', tarballs], p.dir);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'smoke', private: true, version: '0.0.0' }));
  const files = readdirSync(tarballs)
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => join(tarballs, f));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], project);
  for (const p of pkgs) {
    for (const mode of ['esm', 'cjs']) {
      const code =
        mode === 'esm'
          ? `const m = await import(${JSON.stringify(p.name)}); if (Object.keys(m).length < 2) throw new Error('no exports');`
          : `const m = require(${JSON.stringify(p.name)}); if (Object.keys(m).length < 2) throw new Error('no exports');`;
      try {
        run(process.execPath, mode === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code], project);
        passed += 1;
        console.log(`pack smoke ok: ${p.name} (${mode})`);
      } catch (err) {
        failed += 1;
        console.error(`pack smoke FAILED: ${p.name} (${mode}): ${err.stderr || err.message}`);
      }
    }
  }
  runBins();
  typecheckConsumers();
} catch (err) {
  failed += 1;
  console.error(`pack smoke FAILED: ${err.stderr || err.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
/** Each installed `bin` prints its usage for `--help` (exit 0, or 2 where the binary treats it as a usage error). */
function runBins() {
  for (const { bin, pkgName } of bins) {
    const path = join(project, 'node_modules', '.bin', bin);
    let out = '';
    try {
      out = execFileSync(path, ['--help'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    } catch (err) {
      out = err.status === 2 ? `${err.stdout ?? ''}${err.stderr ?? ''}` : '';
      if (out === '') {
        failed += 1;
        console.error(`pack smoke FAILED: ${bin} (${pkgName}) --help: ${err.stderr || err.message}`);
        continue;
      }
    }
    if (/usage/i.test(out) && out.includes(bin)) {
      passed += 1;
      console.log(`pack smoke ok: ${bin} (${pkgName} bin)`);
    } else {
      failed += 1;
      console.error(`pack smoke FAILED: ${bin} (${pkgName}) --help printed no usage: ${out.slice(0, 200)}`);
    }
  }
}

/**
 * A consumer project as a user writes it: TypeScript and @types/node (taken from this workspace, so no
 * registry access), `strict`, `skipLibCheck: false`, NodeNext resolution (require of ESM as Node >= 22.12); one ESM and one CJS file per package.
 */
function typecheckConsumers() {
  const rootRequire = createRequire(join(root, 'package.json'));
  const tsc = rootRequire.resolve('typescript/bin/tsc');
  const typesNode = join(rootRequire.resolve('@types/node/package.json'), '..');
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  // a dependency may have brought @types/node already
  if (!existsSync(join(project, 'node_modules', '@types', 'node')))
    symlinkSync(typesNode, join(project, 'node_modules', '@types', 'node'), 'dir');
  const tsconfig = {
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      types: ['node'],
      exactOptionalPropertyTypes: true,
    },
    include: ['consumer'],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  mkdirSync(join(project, 'consumer'));
  pkgs.forEach((p, i) => {
    writeFileSync(
      join(project, 'consumer', `esm${i}.mts`),
      `import * as m from ${JSON.stringify(p.name)};
export const loaded: object = m;
`,
    );
    writeFileSync(
      join(project, 'consumer', `cjs${i}.cts`),
      `import m = require(${JSON.stringify(p.name)});
export const loaded: object = m;
`,
    );
  });
  try {
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    passed += 1;
    console.log(`pack smoke ok: strict TypeScript consumer (tsc --strict, no skipLibCheck) of ${pkgs.length} packages`);
  } catch (err) {
    failed += 1;
    console.error(
      `pack smoke FAILED: strict TypeScript consumer (tsc --strict, no skipLibCheck):\n${err.stdout || ''}${err.stderr || err.message}`,
    );
  }
}

mkdirSync(join(root, '.keelson'), { recursive: true });
writeFileSync(join(root, '.keelson', 'pack-smoke.json'), JSON.stringify({ passed, failed }));
process.exit(failed ? 1 : 0);
