#!/usr/bin/env node
// the Node check runs before anything else is loaded (hence the dynamic imports below)
import { assertNodeVersion } from './node-version.js';

assertNodeVersion('keelson');
const { main } = await import('./cli.js');
const { EXIT_OK, reportError } = await import('./output.js');

// `keelson ... | head`: the reader went away; stop quietly like other Unix tools
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT_OK);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.exitCode = reportError(err);
  },
);
