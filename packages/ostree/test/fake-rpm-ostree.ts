import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A stand-in `rpm-ostree` executable (rpm-ostree cannot run on this Debian machine): a real child process that
 * logs its argv and RPMOSTREE_CLIENT_ID, answers `status --json` with a fixture, and can be told to be busy,
 * fail or hang. This is the only mocked boundary of the driver tests.
 */
export interface FakeRpmOstree {
  dir: string;
  bin: string;
  calls(): { argv: string[]; clientId: string | undefined }[];
  setStatus(text: string): void;
  setBusy(n: number): void;
  setFail(sub: string, stderr: string, code?: number): void;
  setHang(): void;
  setVersion(yaml: string): void;
}

const SCRIPT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const dir = process.env.FAKE_RPMOSTREE_DIR;
const args = process.argv.slice(2);
fs.appendFileSync(path.join(dir, 'calls.jsonl'), JSON.stringify({ argv: args, clientId: process.env.RPMOSTREE_CLIENT_ID }) + '\n');
if (fs.existsSync(path.join(dir, 'hang'))) { setInterval(() => {}, 1000); return; }
const busyFile = path.join(dir, 'busy');
if (fs.existsSync(busyFile)) {
  const n = Number(fs.readFileSync(busyFile, 'utf8'));
  if (n > 0) {
    fs.writeFileSync(busyFile, String(n - 1));
    process.stderr.write('error: Transaction in progress: upgrade\n You can cancel the current transaction with ' + '\u0060rpm-ostree cancel\u0060' + '\n');
    process.exit(1);
  }
}
const failFile = path.join(dir, 'fail-' + (args[0] || 'none'));
if (fs.existsSync(failFile)) {
  const { stderr, code } = JSON.parse(fs.readFileSync(failFile, 'utf8'));
  process.stderr.write(stderr);
  process.exit(code);
}
if (args[0] === 'status' && args[1] === '--json') { process.stdout.write(fs.readFileSync(path.join(dir, 'status.json'))); return; }
if (args[0] === '--version') { process.stdout.write(fs.readFileSync(path.join(dir, 'version.yaml'))); return; }
if (args[0] === 'kargs' && args.length === 1) { process.stdout.write('rw root=UUID=abc quiet mitigations="auto nosmt"\n'); return; }
process.stdout.write('ok\n');
`;

export function makeFakeRpmOstree(): FakeRpmOstree {
  const dir = mkdtempSync(join(tmpdir(), 'fake-rpm-ostree-'));
  const bin = join(dir, 'rpm-ostree');
  writeFileSync(bin, `#!${process.execPath}\n${SCRIPT}`);
  chmodSync(bin, 0o755);
  writeFileSync(
    join(dir, 'version.yaml'),
    "rpm-ostree:\n Version: '2024.3'\n Git: abcdef\n Features:\n  - rust\n  - compose\n  - container\n",
  );
  return {
    dir,
    bin,
    calls: () =>
      existsSync(join(dir, 'calls.jsonl'))
        ? readFileSync(join(dir, 'calls.jsonl'), 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { argv: string[]; clientId: string | undefined })
        : [],
    setStatus: (t) => writeFileSync(join(dir, 'status.json'), t),
    setBusy: (n) => writeFileSync(join(dir, 'busy'), String(n)),
    setFail: (sub, stderr, code = 1) => writeFileSync(join(dir, `fail-${sub}`), JSON.stringify({ stderr, code })),
    setHang: () => writeFileSync(join(dir, 'hang'), ''),
    setVersion: (y) => writeFileSync(join(dir, 'version.yaml'), y),
  };
}
