import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onShutdown } from '../src/index.js';

const child = fileURLToPath(new URL('./fixtures/shutdown-child.mjs', import.meta.url));

function run(mode: string, signals: NodeJS.Signals[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.setEncoding('utf8');
    p.stdout.on('data', (d: string) => {
      const first = !out.includes('READY');
      out += d;
      if (first && out.includes('READY')) for (const s of signals) p.kill(s);
    });
    p.on('error', reject);
    p.on('exit', (code) => resolve({ code, out }));
  });
}

describe.concurrent('onShutdown (real child processes)', { timeout: 30_000 }, () => {
  it('runs the handler on SIGTERM and exits 0', async () => {
    const r = await run('ok', ['SIGTERM']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('"msg":"handler start","reason":"SIGTERM","aborted":true');
    expect(r.out).toContain('"msg":"handler done"');
  });

  it('exits 1 when the handler throws', async () => {
    const r = await run('fail', ['SIGINT']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('shutdown handler failed');
  });

  it('exits 1 when the handler exceeds the timeout', async () => {
    const r = await run('hang', ['SIGTERM']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('shutdown timed out');
  });

  it('trigger() runs the handler once without exiting when exit=false', async () => {
    let calls = 0;
    const h = onShutdown(
      () => {
        calls++;
      },
      { exit: false, signals: ['SIGUSR2'] },
    );
    const [a, b] = await Promise.all([h.trigger('test'), h.trigger('again')]);
    expect([a, b, calls, h.signal.aborted]).toEqual([0, 0, 1, true]);
    h.dispose();
  });
});
