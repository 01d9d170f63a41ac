#!/usr/bin/env node
// Adds up the vitest JSON reports of every workspace package (and the pack smoke test) and prints the
// one closing line CI reads: `Tests: N passed, N failed, N skipped`. A package with a `test` script but
// no report (its build or test run crashed) counts as one failed test. Exits 1 on any failure or none run.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
const rows = [];
// the failed tests by name, printed just above the closing line so a CI log's tail says what failed
const failures = [];

function firstLine(text) {
  const line = String(text ?? '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .find((l) => l.trim() !== '');
  return (line ?? '').trim().slice(0, 300);
}

function collectFailures(pkgName, report) {
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failedTests) {
      failures.push(`${pkgName} ${file.name.split('/').slice(-2).join('/')} > ${a.fullName ?? a.title}`);
      failures.push(`    ${firstLine((a.failureMessages ?? [])[0])}`);
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      failures.push(`${pkgName} ${file.name.split('/').slice(-2).join('/')} (file failed)`);
      failures.push(`    ${firstLine(file.message)}`);
    }
  }
}

/** The lanes' reports of one package as one report (counts added, files concatenated, success if all succeeded). */
function mergeReports(list) {
  const sum = (k) => list.reduce((n, r) => n + (r[k] ?? 0), 0);
  return {
    numPassedTests: sum('numPassedTests'),
    numFailedTests: sum('numFailedTests'),
    numPendingTests: sum('numPendingTests'),
    numTodoTests: sum('numTodoTests'),
    success: list.every((r) => r.success !== false),
    testResults: list.flatMap((r) => r.testResults ?? []),
  };
}

for (const group of ['packages', 'apps', 'tooling']) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir).sort()) {
    const pkgFile = join(dir, name, 'package.json');
    if (!existsSync(pkgFile)) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    if (!pkg.scripts?.test) continue;
    // one report per vitest run: results.json, or results-<lane>.json per lane of scripts/vitest-lanes.mjs
    const reportDir = join(dir, name, '.vitest');
    const reports = existsSync(reportDir)
      ? readdirSync(reportDir).filter((f) => /^results(-[\w-]+)?\.json$/.test(f))
      : [];
    if (reports.length === 0) {
      failed += 1;
      rows.push(`${pkg.name}: no test report (build or test run failed)`);
      continue;
    }
    const r = mergeReports(reports.map((f) => JSON.parse(readFileSync(join(reportDir, f), 'utf8'))));
    const p = r.numPassedTests ?? 0;
    // a failed test counts once (not again for its file and describe blocks); a file that failed without a failed
    // test (it did not load, a hook threw) counts as one
    const brokenFiles = (r.testResults ?? []).filter(
      (t) => t.status === 'failed' && !(t.assertionResults ?? []).some((a) => a.status === 'failed'),
    ).length;
    const f = (r.numFailedTests ?? 0) + brokenFiles;
    const s = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    if (r.success === false && f === 0) {
      // the run failed without a failing test (no test files, an unhandled error, a crashed worker)
      failed += 1;
      rows.push(`${pkg.name}: test run failed outside any test (see its log above)`);
    }
    collectFailures(pkg.name, r);
    passed += p;
    failed += f;
    skipped += s;
    rows.push(`${pkg.name}: ${p} passed, ${f} failed, ${s} skipped`);
  }
}

for (const [file, label] of [
  ['pack-smoke.json', 'pack smoke (pnpm pack, npm install, import ESM + CJS, strict tsc consumer)'],
  ['checks.json', 'static checks (typecheck, lint, stands alone, README examples, prettier)'],
]) {
  const path = join(root, '.keelson', file);
  if (!existsSync(path)) continue;
  const r = JSON.parse(readFileSync(path, 'utf8'));
  passed += r.passed;
  failed += r.failed;
  rows.push(`${label}: ${r.passed} passed, ${r.failed} failed`);
}

for (const row of rows) console.log(`  ${row}`);
if (failures.length > 0) {
  console.log('Failed:');
  for (const line of failures.slice(0, 40)) console.log(`  ${line}`);
}
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
