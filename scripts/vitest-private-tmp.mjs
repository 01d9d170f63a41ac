// Vitest global setup shared by every workspace package (`globalSetup` in each vitest.config.ts): tests
// leave nothing behind. The run gets a private temporary directory (TMPDIR, inherited by the test workers
// and every child process they start: CLIs, gpg, skopeo, registries); at teardown the gpg-agent of every
// GNUPGHOME created inside it is stopped (`gpgconf --homedir H --kill all`) and the directory is removed,
// whatever the individual tests did or forgot to do.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Files that mark a directory as a GnuPG home. */
const GNUPG_MARKERS = ['pubring.kbx', 'pubring.gpg', 'private-keys-v1.d', 'trustdb.gpg'];

/** GnuPG home directories below dir (bounded depth: test layouts are shallow). */
export function findGnupgHomes(dir, depth = 6) {
  if (depth < 0) return [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const homes = entries.some((e) => GNUPG_MARKERS.includes(e.name)) ? [dir] : [];
  for (const e of entries) {
    if (e.isDirectory() && !e.isSymbolicLink() && e.name !== 'private-keys-v1.d')
      homes.push(...findGnupgHomes(join(dir, e.name), depth - 1));
  }
  return homes;
}

/** Stops the agents (gpg-agent, keyboxd, dirmngr) of a GnuPG home; quiet when gpg is not installed. */
export function killGnupgAgents(home) {
  try {
    execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    // gpgconf missing or the agent already gone
  }
}

export default function setup() {
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'keelson-test-'));
  process.env.TMPDIR = dir;
  return () => {
    for (const home of findGnupgHomes(dir)) killGnupgAgents(home);
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  };
}
