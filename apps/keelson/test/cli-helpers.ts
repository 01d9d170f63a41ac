import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI; KEELSON_TEST_BIN may point at another build of the same sources. */
export const BIN = process.env['KEELSON_TEST_BIN'] ?? fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The upstream CVO payload trees copied into this app's test fixtures (see the README there). */
export const UPSTREAM_PAYLOADS = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));

/** Outcome of one CLI run as a child process. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `keelson <args>` with the current Node as a real child process; never rejects. */
export function cli(...args: string[]): Promise<Run> {
  return cliIn(process.cwd(), ...args);
}

/** {@link cli} with another working directory. */
export function cliIn(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}
