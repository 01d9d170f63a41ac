/**
 * Kill test of the ostree sysroot backend (issue 14 item 13): `keelson os apply` on a REAL ostree sysroot (Debian
 * ostree) is killed with SIGKILL at 20 points spread over its run; afterwards `os status` must work, and `os reboot`
 * and `os apply` must always reach a consistent state: every fact of the booted deployment (image, kernel arguments,
 * layered packages) from the old MachineConfig, or every fact from the new one — never a mix.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRpmOstreeStatus, SysrootRpmOstree } from '@keelson/ostree';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'keelson-os-kill-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function keelson(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

const IMG = (d: string) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${d.repeat(64)}`;
const A = join(dir, 'a.yaml');
const B = join(dir, 'b.yaml');
writeFileSync(
  A,
  `kind: MachineConfig\nmetadata: {name: rendered-worker-a}\nspec:\n  osImageURL: ${IMG('1')}\n  kernelArguments: ["nosmt"]\n`,
);
writeFileSync(
  B,
  `kind: MachineConfig\nmetadata: {name: rendered-worker-b}\nspec:\n  osImageURL: ${IMG('2')}\n  kernelArguments: ["hugepages=8"]\n  extensions: [usbguard]\n`,
);

/** Which MachineConfig the booted deployment matches: 'a', 'b', or 'mixed' (a half-applied deployment). */
async function bootedState(node: string): Promise<'a' | 'b' | 'mixed'> {
  const s = parseRpmOstreeStatus((await keelson(['os', 'status', '--sysroot', node, '--json'])).stdout);
  const booted = s.deployments.find((d) => d.booted);
  const kargs = (await SysrootRpmOstree.open(node).run('rpm-ostree', ['kargs'])).stdout.trim().split(/\s+/);
  const image = booted?.containerImageReference ?? '';
  const facts = {
    a: [
      image.endsWith(IMG('1')),
      kargs.includes('nosmt') && !kargs.includes('hugepages=8'),
      (booted?.requestedPackages ?? []).length === 0,
    ],
    b: [
      image.endsWith(IMG('2')),
      kargs.includes('hugepages=8') && !kargs.includes('nosmt'),
      (booted?.requestedPackages ?? []).includes('usbguard'),
    ],
  };
  if (facts.a.every(Boolean)) return 'a';
  if (facts.b.every(Boolean)) return 'b';
  return 'mixed';
}

/** Runs `os apply` and kills it with SIGKILL after `ms` (or lets it finish); resolves with how it ended. */
function applyKilledAfter(
  node: string,
  from: string,
  to: string,
  ms: number,
): Promise<{ killed: boolean; code: number | null; elapsed: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [BIN, 'os', 'apply', '--from', from, '--to', to, '--sysroot', node, '--arch', 'amd64'],
      { stdio: 'ignore' },
    );
    let killed = false;
    const timer = setTimeout(() => {
      killed = child.kill('SIGKILL');
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ killed: killed && code === null, code, elapsed: Date.now() - t0 });
    });
  });
}

/** One lane: a node of its own, `kills` kill points spread over the apply (offset so lanes cover different points). */
async function lane(name: string, kills: number, offset: number, totalPoints: number): Promise<string[]> {
  const node = join(dir, name);
  expect((await keelson(['os', 'sim-init', '--sysroot', node, '--config', A])).code).toBe(0);
  expect(await bootedState(node)).toBe('a');
  // one uninterrupted apply gives the time scale of the kill points
  const full = await applyKilledAfter(node, A, B, 600_000);
  expect(full.code).toBe(0);
  expect((await keelson(['os', 'reboot', '--sysroot', node])).code).toBe(0);
  expect(await bootedState(node)).toBe('b');
  let cur: 'a' | 'b' = 'b';
  const outcomes: string[] = [];
  for (let k = 0; k < kills; k++) {
    const point = k * (totalPoints / kills) + offset;
    const from = cur === 'a' ? A : B;
    const to = cur === 'a' ? B : A;
    const other: 'a' | 'b' = cur === 'a' ? 'b' : 'a';
    // kill points spread over the whole apply, a little beyond its usual end too
    const at = Math.round((full.elapsed * (point + 0.5)) / (totalPoints - 1));
    const run = await applyKilledAfter(node, from, to, at);
    const status = await keelson(['os', 'status', '--sysroot', node, '--json']);
    expect(status.code, status.stderr).toBe(0);
    if (point % 2 === 0) {
      // reboot straight after the kill: a complete apply is booted, an interrupted one is ignored
      expect((await keelson(['os', 'reboot', '--sysroot', node])).code).toBe(0);
      const s = await bootedState(node);
      expect(s, `${name}: kill at ${at} ms`).not.toBe('mixed');
      outcomes.push(`${name} ${at}ms: ${run.killed ? 'killed' : 'finished'}, reboot -> ${s === cur ? 'old' : 'new'}`);
      cur = s as 'a' | 'b';
    } else {
      // apply again after the kill, then reboot: always the new state
      const again = await keelson(['os', 'apply', '--from', from, '--to', to, '--sysroot', node, '--arch', 'amd64']);
      expect(again.code, again.stderr).toBe(0);
      expect((await keelson(['os', 'reboot', '--sysroot', node])).code).toBe(0);
      expect(await bootedState(node), `${name}: kill at ${at} ms`).toBe(other);
      outcomes.push(`${name} ${at}ms: ${run.killed ? 'killed' : 'finished'}, apply + reboot -> new`);
      cur = other;
    }
  }
  return outcomes;
}

describe('kill -9 during os apply on a real ostree sysroot', () => {
  it('20 kills: status works, reboot and apply always reach the old or the new state', async () => {
    // 20 kill points in one lane (parallel lanes only slow each other down on 2 cores)
    const outcomes = await lane('node', 20, 0, 20);
    expect(outcomes).toHaveLength(20);
    // the kills really interrupted applies at many points
    expect(outcomes.filter((o) => o.includes('killed')).length).toBeGreaterThanOrEqual(5);
    console.log(outcomes.join('\n'));
  }, 600_000);
});
