#!/usr/bin/env node
import { main } from './cli.js';
import { reportError } from './output.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.exitCode = reportError(err);
  },
);
