/**
 * `rehearse --kubeconfig`: the kubeconfig's credentials as the proxy uses them, an exec plugin's token resolved again
 * once it expires (a real plugin run as a child process by the kubeconfig loader).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTarget, RehearsalTargetError } from '../src/target.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rehearse-target-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plugin printing token-N (N counts its runs), expired at once. */
const PLUGIN = `
import { readFileSync, writeFileSync } from 'node:fs';
const f = process.argv[2];
let n = 0;
try { n = Number(readFileSync(f, 'utf8')); } catch {}
writeFileSync(f, String(n + 1));
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token: 'token-' + (n + 1), expirationTimestamp: new Date(Date.now() - 1000).toISOString() },
}));
`;

const kubeconfig = (user: Record<string, unknown>): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: 'https://127.0.0.1:6443', 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
  });

describe('openTarget', () => {
  it('takes a static token and the TLS settings of the current context', async () => {
    const file = join(dir, 'token.kubeconfig');
    await writeFile(file, kubeconfig({ token: 'static' }));
    const t = await openTarget(file);
    expect(t.server).toBe('https://127.0.0.1:6443');
    expect(t.upstream).toMatchObject({ insecureSkipTlsVerify: true, admin: { authorization: 'Bearer static' } });
    expect(t.upstream.adminToken).toMatch(/^[0-9a-f]{48}$/);
  });

  it('runs an exec plugin again for a new token once the old one expired', async () => {
    const plugin = join(dir, 'plugin.mjs');
    const count = join(dir, 'count');
    await writeFile(plugin, PLUGIN);
    const file = join(dir, 'exec.kubeconfig');
    await writeFile(
      file,
      kubeconfig({
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [plugin, count],
          interactiveMode: 'Never',
        },
      }),
    );
    const t = await openTarget(file);
    const first = t.upstream.admin.authorization;
    expect(first).toMatch(/^Bearer token-\d+$/);
    await t.refresh();
    expect(t.upstream.admin.authorization).not.toBe(first);
    expect(t.upstream.admin.authorization).toBe(`Bearer token-${await readFile(count, 'utf8')}`);
  });

  it('refuses a kubeconfig without a current cluster, or one it cannot read', async () => {
    const empty = join(dir, 'empty.kubeconfig');
    await writeFile(empty, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], contexts: [] }));
    await expect(openTarget(empty)).rejects.toThrow(
      new RehearsalTargetError(
        `--kubeconfig ${empty}: its current-context names no cluster with a server URL`,
        'KUBECONFIG',
      ),
    );
    await expect(openTarget(join(dir, 'missing'))).rejects.toThrow(/^--kubeconfig .*missing: cannot load it: /);
  });
});
