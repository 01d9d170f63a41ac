import { describe, expect, it } from 'vitest';
import { ChildProcessRunner, RpmOstreeError } from '../src/index.js';

const node = process.execPath;

describe('ChildProcessRunner (real child processes)', () => {
  it('captures stdout, stderr and the exit code', async () => {
    const r = await new ChildProcessRunner().run(node, [
      '-e',
      'process.stdout.write("out");process.stderr.write("err");process.exit(3)',
    ]);
    expect(r).toMatchObject({ exitCode: 3, stdout: 'out', stderr: 'err', timedOut: false, signal: null });
  });
  it('passes extra environment over the base one and writes stdin', async () => {
    const runner = new ChildProcessRunner({ env: { BASE: 'b', PATH: process.env['PATH'] ?? '' } });
    const r = await runner.run(
      node,
      [
        '-e',
        'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify([process.env.BASE,process.env.RPMOSTREE_CLIENT_ID,s,process.env.HOME===undefined])))',
      ],
      {
        env: { RPMOSTREE_CLIENT_ID: 'machine-config-daemon' },
        stdin: 'hello',
      },
    );
    expect(JSON.parse(r.stdout)).toStrictEqual(['b', 'machine-config-daemon', 'hello', true]);
  });
  it('kills the child on timeout (even when it ignores SIGTERM)', async () => {
    const runner = new ChildProcessRunner({ killGraceMs: 200 });
    const t0 = Date.now();
    // the deadline leaves the child time to install its SIGTERM handler even on a loaded machine (node starts in
    // ~0.05 s idle, over 1 s under a full-suite load); before that, SIGTERM would end it and the test would prove nothing
    const r = await runner.run(node, ['-e', 'process.on("SIGTERM",()=>{});setInterval(()=>{},1000)'], {
      timeoutMs: 3000,
    });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    expect(Date.now() - t0).toBeLessThan(20_000);
  });
  it('terminates a cooperative child with SIGTERM', async () => {
    const r = await new ChildProcessRunner().run(node, ['-e', 'setInterval(()=>{},1000)'], { timeoutMs: 200 });
    expect(r).toMatchObject({ timedOut: true, signal: 'SIGTERM', exitCode: null });
  });
  it('rejects with RPMOSTREE_NOT_FOUND for a missing binary', async () => {
    await expect(new ChildProcessRunner().run('/nonexistent/rpm-ostree', ['status'])).rejects.toMatchObject({
      code: 'RPMOSTREE_NOT_FOUND',
      commandLine: '/nonexistent/rpm-ostree status',
    });
    await expect(new ChildProcessRunner().run('/nonexistent/rpm-ostree', [])).rejects.toBeInstanceOf(RpmOstreeError);
  });
  it('kills a child whose output exceeds the cap', async () => {
    const r = await new ChildProcessRunner({ maxOutputBytes: 1000 }).run(node, [
      '-e',
      'setInterval(()=>process.stdout.write("x".repeat(500)),1)',
    ]);
    expect(r.stderr).toContain('exceeded 1000 bytes');
    expect(r.stdout.length).toBeLessThanOrEqual(1000);
  });
});
