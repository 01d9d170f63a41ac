/**
 * Issue 20's done-when: an ImageDigestMirrorSet created mid-rehearsal (the cluster still running, as under `--hold`)
 * reaches every node's /etc/containers/registries.conf through the machine-config-controller's
 * `99-<pool>-generated-registries` and the daemons' CRI-O reload, without a reboot.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import { describe, expect, it } from 'vitest';
import { parseFaults } from '../src/faults.js';
import { rehearse } from '../src/run.js';
import { waitFor } from '../src/testing/index.js';

const MIRROR_LINES =
  '[[registry]]\n  prefix = ""\n  location = "quay.io/openshift-release-dev/ocp-release"\n\n  [[registry.mirror]]\n    location = "mirror.example.com/ocp/release"\n    pull-from-mirror = "digest-only"\n';

interface Pool {
  spec: { configuration?: { name?: string } };
  status?: { configuration?: { name?: string }; updatedMachineCount?: number; machineCount?: number };
}

describe('an IDMS created mid-rehearsal', { timeout: 500_000 }, () => {
  it('reaches every node’s registries.conf without a reboot', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'rehearse-idms-'));
    const nodesDir = join(workDir, 'nodes');
    const bootIds = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        await Promise.all(
          readdirSync(nodesDir).map(
            async (n) =>
              [n, (await readFile(join(nodesDir, n, 'var/lib/keelson-virtual/boot-id'), 'utf8')).trim()] as const,
          ),
        ),
      );
    let seen: { nodes: string[]; before: Record<string, string>; after: Record<string, string> } | undefined;
    const logs: string[] = [];
    try {
      const { report } = await rehearse({
        masters: 1,
        workers: 2,
        pools: {},
        timeScale: 120,
        faults: parseFaults([], [], []),
        timeoutSeconds: 300,
        workDir,
        onLog: (component, line) => {
          if (component.startsWith('machine-config-controller') && /registr|ImageConfig|error/i.test(line))
            logs.push(line.slice(0, 400));
        },
        hold: async (_report, kubeconfigPath) => {
          const client = KubeClient.fromKubeconfigString(await readFile(kubeconfigPath, 'utf8'));
          const before = await bootIds();
          const targets = async (): Promise<Record<string, string | undefined>> => ({
            master: (
              await client.request<Pool>('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools/master')
            ).spec.configuration?.name,
            worker: (
              await client.request<Pool>('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker')
            ).spec.configuration?.name,
          });
          const was = await targets();
          await client.request('POST', '/apis/config.openshift.io/v1/imagedigestmirrorsets', {
            body: {
              apiVersion: 'config.openshift.io/v1',
              kind: 'ImageDigestMirrorSet',
              metadata: { name: 'release-mirror' },
              spec: {
                imageDigestMirrors: [
                  { source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['mirror.example.com/ocp/release'] },
                ],
              },
            },
          });
          const nodes = readdirSync(nodesDir).sort();
          const explain = (e: unknown): Error =>
            new Error(`${(e as Error).message}\ncontroller log:\n${logs.slice(-30).join('\n')}`);
          await waitFor(
            'registries.conf with the mirror on every node',
            async () => {
              for (const n of nodes) {
                const p = join(nodesDir, n, 'etc/containers/registries.conf');
                if (!existsSync(p) || !(await readFile(p, 'utf8')).includes(MIRROR_LINES)) return undefined;
              }
              return true;
            },
            { timeoutMs: 240_000, intervalMs: 100 },
          ).catch((e: unknown) => {
            throw explain(e);
          });
          await waitFor(
            'both pools updated to their new rendered config',
            async () => {
              for (const name of ['master', 'worker']) {
                const p = await client.request<Pool>(
                  'GET',
                  `/apis/machineconfiguration.openshift.io/v1/machineconfigpools/${name}`,
                );
                const t = p.spec.configuration?.name;
                if (
                  t === was[name] ||
                  p.status?.configuration?.name !== t ||
                  p.status?.updatedMachineCount !== p.status?.machineCount
                )
                  return undefined;
              }
              return true;
            },
            { timeoutMs: 240_000, intervalMs: 100 },
          );
          seen = { nodes, before, after: await bootIds() };
          await client.close();
        },
      });
      expect(report.outcome, report.message).toBe('Completed');
      expect(seen?.nodes).toHaveLength(3);
      expect(seen?.after).toEqual(seen?.before);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
