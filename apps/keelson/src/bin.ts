#!/usr/bin/env node
// the Node check runs before anything else is loaded (hence the dynamic imports below)
import { assertNodeVersion } from '@keelson/kube/node-version';

assertNodeVersion('keelson');

// Node's on-disk compile cache: the V8 code of every module this process loads is kept and later runs skip parsing
// and compiling it. Kept in $NODE_COMPILE_CACHE, else beside the blob cache in ~/.cache/keelson (never in TMPDIR: a
// command leaves nothing there); NODE_DISABLE_COMPILE_CACHE=1 turns it off. Enabled before the CLI is imported, so it
// covers the whole CLI; a cache that cannot be written is skipped silently.
const [nodeModule, os, path] = await Promise.all([import('node:module'), import('node:os'), import('node:path')]);
nodeModule.enableCompileCache(
  process.env['NODE_COMPILE_CACHE'] ||
    path.join(process.env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache'), 'keelson', 'node-compile-cache'),
);

const [{ main }, { EXIT_OK, reportError }] = await Promise.all([import('./cli.js'), import('./output.js')]);

// `keelson ... | head`: the reader went away; stop quietly like other Unix tools
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT_OK);
  throw err;
});

/**
 * Once the command is done the process should end by itself; if a handle was left open (a bug: a watch, a socket, a
 * timer nobody stopped) it exits anyway after a grace period, naming what was left, instead of hanging forever.
 */
function exitEvenIfHandlesRemain(graceMs = 10_000): void {
  setTimeout(() => {
    const left = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
    process.stderr.write(`keelson: exiting; still open after the command ended: ${left.join(', ') || 'nothing'}\n`);
    process.exit();
  }, graceMs).unref();
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    exitEvenIfHandlesRemain();
  },
  (err: unknown) => {
    process.exitCode = reportError(err);
    exitEvenIfHandlesRemain();
  },
);
