/** A persisting sandbox in a child process (the built package), for kill -9 tests. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const DIST = new URL('../../dist/index.js', import.meta.url);

/** A running child sandbox: its URL and a SIGKILL that resolves once it is gone. */
export interface ChildSandbox {
  url: string;
  kill: () => Promise<void>;
}

/** Starts `startSandbox({ persistDir: dir, token, ...options })` in a child process and resolves with its URL. */
export function startChild(dir: string, token: string, options: Record<string, number> = {}): Promise<ChildSandbox> {
  if (!existsSync(DIST))
    throw new Error(
      'build @keelson/kube-sandbox first (pnpm --filter @keelson/kube-sandbox build): this test runs the built server in a child process',
    );
  const code = `const { startSandbox } = await import(${JSON.stringify(pathToFileURL(DIST.pathname).href)});
const sb = await startSandbox({ persistDir: process.argv[1], token: process.argv[2], ...JSON.parse(process.argv[3]) });
process.stdout.write(sb.url + '\\n');
setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, dir, token, JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) =>
    child.once('exit', () => {
      r();
    }),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line)
        resolve({
          url: line,
          kill: async () => {
            child.kill('SIGKILL');
            await exited;
          },
        });
    });
    child.once('exit', (c) => {
      reject(new Error(`sandbox child exited early (${String(c)})`));
    });
  });
}
