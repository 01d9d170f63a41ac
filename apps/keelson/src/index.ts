export { buildProgram, main } from './cli.js';
export { CliError } from './errors.js';
