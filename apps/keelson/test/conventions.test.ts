/**
 * One CLI convention across commands (src/output.ts): `-o table|wide|json|yaml` on read commands (plus a command's own
 * formats), `--json` / `--format` only as aliases, exit 1 for runtime errors and 2 for usage errors; and the warnings
 * about cluster settings and channels. Real child processes of the built CLI.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, UPSTREAM_PAYLOADS } from './cli-helpers.js';

const GRAPHS = new URL('./fixtures/upstream/cincinnati/graphs/cincinnati-e2e/', import.meta.url).pathname;
const G47 = join(GRAPHS, '134475077ed4eeaedf3c339f12915b9cdaf7d194_stable-4.7_amd64_v1.json');
const PAYLOAD = join(UPSTREAM_PAYLOADS, 'payloadtest');
const PAYLOAD2 = join(UPSTREAM_PAYLOADS, 'payloadtest-2');
const IMG = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:';

let dir = '';
let ign = '';
let mcA = '';
let mcB = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keelson-conventions-'));
  ign = join(dir, 'config.ign');
  await writeFile(
    ign,
    JSON.stringify({
      ignition: { version: '3.4.0' },
      storage: { files: [{ path: '/etc/motd', contents: { source: 'data:,hi' } }] },
    }),
  );
  mcA = join(dir, 'a.yaml');
  mcB = join(dir, 'b.yaml');
  const mc = (name: string, digit: string): string =>
    `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: ${name}\n  labels: {machineconfiguration.openshift.io/role: worker}\nspec:\n  osImageURL: ${IMG}${digit.repeat(64)}\n  config: {ignition: {version: 3.4.0}}\n`;
  await writeFile(mcA, mc('00-worker', '1'));
  await writeFile(mcB, mc('99-worker-b', '2'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Read commands and the arguments that make them succeed. */
const reads = (): [string, string[]][] => [
  ['payload info', ['payload', 'info', PAYLOAD]],
  ['payload manifests', ['payload', 'manifests', PAYLOAD]],
  ['payload diff', ['payload', 'diff', PAYLOAD, PAYLOAD2]],
  ['payload graph', ['payload', 'graph', PAYLOAD]],
  ['graph updates', ['graph', 'updates', '--channel', 'stable-4.7', '--version', '4.7.0', '--graph', G47]],
  ['graph path', ['graph', 'path', '4.7.0', '4.7.60', '--graph', G47]],
  ['graph draw', ['graph', 'draw', '--graph', G47, '--only', '4.7.1']],
  ['os plan', ['os', 'plan', '--from', mcA, '--to', mcB]],
  ['ignition validate', ['ignition', 'validate', ign]],
  ['mc render', ['mc', 'render', '--pool', 'worker', mcA, mcB]],
];

describe('keelson output convention', { timeout: 120_000 }, () => {
  it('-o json and -o yaml print the same data on every read command', async () => {
    for (const [name, args] of reads()) {
      const j = await cli(...args, '-o', 'json');
      expect([name, j.code, j.stderr]).toEqual([name, 0, '']);
      const y = await cli(...args, '-o', 'yaml');
      expect([name, y.code]).toEqual([name, 0]);
      expect([name, parseYaml(y.stdout) as unknown]).toEqual([name, JSON.parse(j.stdout) as unknown]);
    }
  });

  it('-o wide and the default table work where the command has a table', async () => {
    for (const [name, args] of reads().filter(([n]) => !['payload graph', 'graph draw', 'mc render'].includes(n))) {
      const t = await cli(...args);
      const w = await cli(...args, '-o', 'wide');
      expect([name, t.code, w.code]).toEqual([name, 0, 0]);
      expect([name, w.stdout.length >= t.stdout.length]).toEqual([name, true]);
    }
    const w = await cli('payload', 'manifests', '-o', 'wide', PAYLOAD);
    expect(w.stdout.split('\n')[0]).toMatch(/^FILE +APIVERSION +KIND +NAME$/);
    const u = await cli(
      'graph',
      'updates',
      '--channel',
      'stable-4.7',
      '--version',
      '4.7.0',
      '--graph',
      G47,
      '-o',
      'wide',
    );
    expect(u.stdout).toMatch(/VERSION +IMAGE +CHANNELS +URL/);
  });

  it('keeps --json and --format as aliases of -o', async () => {
    const o = await cli('payload', 'info', '-o', 'json', PAYLOAD);
    expect((await cli('payload', 'info', '--json', PAYLOAD)).stdout).toBe(o.stdout);
    const g = await cli('payload', 'graph', '-o', 'mermaid', PAYLOAD);
    expect((await cli('payload', 'graph', '--format', 'mermaid', PAYLOAD)).stdout).toBe(g.stdout);
    const conflict = await cli('payload', 'info', '--json', '-o', 'yaml', PAYLOAD);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toBe('error: conflicting output formats: -o yaml, --json\n');
  });

  it('exits 2 for usage errors on every command', async () => {
    for (const [name, args] of reads()) {
      const r = await cli(...args, '-o', 'bogus');
      expect([name, r.code]).toEqual([name, 2]);
      expect(r.stderr).toMatch(/^error: unknown output format "bogus" for "\w+"; use one of: /);
      const unknownFlag = await cli(...args, '--no-such-flag');
      expect([name, unknownFlag.code]).toEqual([name, 2]);
    }
    expect((await cli('payload', 'info')).code).toBe(2);
    expect((await cli('graph', 'updates', '--channel', 'stable-4.7', '--version', '4.7.0')).code).toBe(2);
    expect(
      (
        await cli(
          'graph',
          'updates',
          '--channel',
          'stable-4.7',
          '--version',
          '4.7.0',
          '--graph',
          G47,
          '--timeout',
          '-1',
        )
      ).code,
    ).toBe(2);
    expect((await cli('os', 'plan', '--from', join(dir, 'missing.yaml'), '--to', mcB)).code).toBe(2);
    expect(
      (
        await cli(
          'graph',
          'updates',
          '--channel',
          'stable-4.7',
          '--version',
          '4.7.0',
          '--graph',
          join(dir, 'missing.json'),
        )
      ).code,
    ).toBe(2);
    expect((await cli('mc', 'render', '--pool', 'worker', join(dir, 'missing'))).code).toBe(2);
    expect((await cli('ignition', 'validate', join(dir, 'missing.ign'))).code).toBe(2);
  });

  it('exits 1 for runtime errors', async () => {
    const notPayload = await cli('payload', 'info', dir);
    expect(notPayload.code).toBe(1);
    expect(notPayload.stderr).toMatch(/^error: UnsupportedSource: .*neither an extracted payload/);
    const notInGraph = await cli('graph', 'updates', '--channel', 'stable-4.7', '--version', '4.1.0', '--graph', G47);
    expect(notInGraph.code).toBe(1);
    expect(notInGraph.stderr).toMatch(/VersionNotFound/);
    await writeFile(join(dir, 'bad.ign'), '{"ignition":{"version":"9.9.9"}}');
    expect((await cli('ignition', 'validate', join(dir, 'bad.ign'))).code).toBe(1);
  });
});

describe('cluster settings and channel warnings', { timeout: 60_000 }, () => {
  it('payload manifests warns about a capability in the wrong case, an unknown feature set and profile', async () => {
    const r = await cli(
      'payload',
      'manifests',
      '--capabilities',
      'console',
      '--feature-set',
      'TechPreview',
      '--profile',
      'single-node',
      PAYLOAD,
    );
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^warning: unknown capability "console"; names are case-sensitive: did you mean "Console"\? known capabilities: baremetal, Console, /,
    );
    expect(lines[1]).toBe(
      'warning: unknown feature set "TechPreview"; known feature sets: Default, TechPreviewNoUpgrade, DevPreviewNoUpgrade, CustomNoUpgrade, OKD',
    );
    expect(lines[2]).toBe(
      'warning: unknown cluster profile "single-node"; known cluster profiles: self-managed-high-availability, single-node-developer, ibm-cloud-managed, hypershift',
    );
    expect((await cli('payload', 'manifests', '--capabilities', 'Console', PAYLOAD)).stderr).toBe('');
  });

  it('graph updates --channel stable-4.9 --version 4.7.0 warns that the version is not in that channel', async () => {
    const r = await cli('graph', 'updates', '--channel', 'stable-4.9', '--version', '4.7.0', '--graph', G47);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'warning: version 4.7.0 is not in channel "stable-4.9": it carries 4.8 and 4.9 releases; a cluster at 4.7 uses a 4.7 or 4.8 channel (e.g. stable-4.7)\n' +
        'warning: version 4.7.0 is not in channel "stable-4.9" according to the graph (its node lists: candidate-4.7, fast-4.7, stable-4.7, candidate-4.8, fast-4.8, stable-4.8)\n',
    );
  });
});

describe('network deadlines and retries on the command line', { timeout: 60_000 }, () => {
  it('payload info announces registry retries on stderr and takes --timeout as a duration', async () => {
    const { createServer } = await import('node:http');
    let n = 0;
    const server = createServer((_req, res) => {
      n += 1;
      res.writeHead(n <= 1 ? 503 : 404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await cli(
        'payload',
        'info',
        '--plain-http',
        '--timeout',
        '10s',
        `docker://127.0.0.1:${port}/ocp/release:1`,
      );
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')[0]).toBe(
        `warning: retrying http://127.0.0.1:${port}/v2/ocp/release/manifests/1 in 0.1 s (attempt 2 of 3) after: HTTP 503`,
      );
      expect(r.stderr).toMatch(/error: .*HTTP 404/);
    } finally {
      await new Promise((r) => server.close(r));
    }
    const bad = await cli('payload', 'info', '--timeout', 'soon', PAYLOAD);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'error: --timeout: expected a positive duration such as 30s, 1m30s or 500ms: time: invalid duration "soon"\n',
    );
  });
});

describe('a closed stdout', { timeout: 60_000 }, () => {
  it('ends quietly with exit 0 when the reader goes away (keelson ... | head)', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('./cli-helpers.js');
    const child = spawn(process.execPath, [BIN, 'payload', 'graph', '-o', 'mermaid', PAYLOAD], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.destroy(); // like `| head` exiting before the output is written
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
