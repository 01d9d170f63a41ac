import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ButaneError, translateButane, type ButaneOptions } from '../src/index.js';
import { compareReport, normalizeConfig, type ActualEntry } from './butane/compare.js';
import { loadButaneVectors, type ButaneVector } from './butane/upstream-vectors.js';
import knownFailures from './butane/known-failures.json' with { type: 'json' };

// Runs every transcribed upstream coreos/butane test case (test/fixtures/upstream/butane, README there) through
// translateButane: real files in a real temp dir for files-dir cases, no mocks.

const root = mkdtempSync(join(tmpdir(), 'butane-upstream-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

let dirs = 0;
/** Build the files dir the upstream test sets up: directories, files (then their modes), symlinks. */
function filesDirFor(v: ButaneVector): string | undefined {
  const o = v.options;
  if (o.filesDir === undefined) return undefined;
  const dir = join(root, String(dirs++));
  mkdirSync(dir);
  for (const [rel, mode] of Object.entries(o.filesDirDirs ?? {})) {
    mkdirSync(join(dir, rel), { recursive: true });
    chmodSync(join(dir, rel), mode);
  }
  for (const [rel, contents] of Object.entries(o.filesDir)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, Buffer.from(contents, 'latin1'));
    const mode = o.filesDirModes?.[rel];
    if (mode !== undefined) chmodSync(p, mode);
  }
  for (const [rel, target] of Object.entries(o.filesDirLinks ?? {})) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    symlinkSync(target, join(dir, rel));
  }
  return dir;
}

/** Unix sockets listening in the files dir (a tree may not contain them); closed by the caller. */
async function listenSockets(dir: string, rels: readonly string[]): Promise<Server[]> {
  const servers: Server[] = [];
  for (const rel of rels) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    const srv = createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(join(dir, rel), resolve);
    });
    servers.push(srv);
  }
  return servers;
}

async function closeAll(servers: readonly Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) =>
          s.close(() => {
            resolve();
          }),
        ),
    ),
  );
}

interface Outcome {
  config?: object;
  report: ActualEntry[];
  errorCode?: string;
  /** The files dir used, substituted for `%FilesDir%` in expected messages (as upstream's tests do). */
  filesDir?: string;
}

function run(v: ButaneVector, dir: string | undefined): Outcome {
  const opts: ButaneOptions = { fileName: `${v.name}.bu` };
  if (dir !== undefined) opts.filesDir = dir;
  if (v.options.strict !== undefined) opts.strict = v.options.strict;
  if (v.options.raw !== undefined) opts.raw = v.options.raw;
  if (v.options.experimental !== undefined) opts.experimental = v.options.experimental;
  try {
    const res = translateButane(v.input, opts);
    expect(res.variant).toBe(v.variant);
    expect(res.version).toBe(v.version);
    return { config: res.config, report: res.report, ...(dir === undefined ? {} : { filesDir: dir }) };
  } catch (e) {
    if (e instanceof ButaneError)
      return { report: e.report, errorCode: e.code, ...(dir === undefined ? {} : { filesDir: dir }) };
    throw e;
  }
}

// Vectors the implementation does not pass yet, each with the one-line difference (see the README in the
// fixtures dir). They run as expected failures: when a fix makes one pass, `it.fails` turns red and the entry
// must be removed, so this list can only shrink silently by being edited.
const known: Record<string, string> = knownFailures;
const allNames = new Set<string>();

for (const file of loadButaneVectors()) {
  describe(`${file.upstream.file} (${file.fileName})`, () => {
    for (const v of file.vectors) {
      allNames.add(v.name);
      const reason = known[v.name];
      const test = reason === undefined ? it : it.fails;
      test(reason === undefined ? v.name : `${v.name} [known failure: ${reason}]`, async () => {
        const filesDir = filesDirFor(v);
        const sockets = filesDir === undefined ? [] : await listenSockets(filesDir, v.options.filesDirSockets ?? []);
        let out: Outcome;
        try {
          out = run(v, filesDir);
        } finally {
          await closeAll(sockets);
        }
        const fatal =
          v.expected.report.some((e) => e.kind === 'error') ||
          (v.options.strict === true && v.expected.report.length > 0);
        if (fatal) {
          expect(out.errorCode, 'expected translation to fail').toBeDefined();
        } else {
          expect(out.errorCode, `unexpected failure: ${JSON.stringify(out.report)}`).toBeUndefined();
        }
        const dir = out.filesDir;
        const want =
          dir === undefined
            ? v.expected.report
            : v.expected.report.map((e) => ({ ...e, message: e.message.replaceAll('%FilesDir%', dir) }));
        const diff = compareReport(want, out.report, v.expected.reportMatch);
        expect(diff, `report differs: ${JSON.stringify(diff)} (actual: ${JSON.stringify(out.report)})`).toEqual({
          missing: [],
          unexpected: [],
        });
        if (v.expected.config !== undefined) {
          expect(normalizeConfig(out.config)).toEqual(normalizeConfig(v.expected.config));
        }
      });
    }
  });
}

describe('known failures list', () => {
  it('names only existing vectors', () => {
    expect(Object.keys(known).filter((n) => !allNames.has(n))).toEqual([]);
  });
});
