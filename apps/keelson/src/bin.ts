#!/usr/bin/env node
import { main } from './cli.js';
import { EXIT_OK, reportError } from './output.js';

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
