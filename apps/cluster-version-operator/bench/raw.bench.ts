/**
 * Baseline: the same manifests created directly (no CVO), 16 at a time and then serially, each against a fresh sandbox.
 * The 16-parallel run goes first: the sandbox caches compiled CRD schemas per process, so the first run pays for
 * compiling them, like the CVO benchmark (which runs in a process of its own) does.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';
import { nullLogger } from '@keelson/kube';
import { defineResourceType } from '@keelson/kube-sandbox';
import { filterManifests, readPayloadDirectory, loadPayloadFromFiles } from '@keelson/release-payload';
import { generatePayload } from '@keelson/payload-gen';
import { ResourceApplier, withOwner, type OwnerRef } from '@keelson/cluster-version';
import { startCluster } from '../test/helpers.js';

test('raw create of the synthetic payload (no CVO)', async () => {
  const work = await mkdtemp(join(tmpdir(), 'cvo-raw-'));
  await generatePayload({ out: work, seed: 1 });
  const payload = loadPayloadFromFiles(await readPayloadDirectory(work), work, {
    releaseImage: 'x@sha256:' + 'e'.repeat(64),
  });
  const included = filterManifests(payload, { profile: 'self-managed-high-availability', featureSet: '' }).included;
  for (const parallel of [16, 1]) {
    const { sandbox, client } = await startCluster();
    for (const t of [
      {
        group: 'monitoring.coreos.com',
        version: 'v1',
        plural: 'servicemonitors',
        kind: 'ServiceMonitor',
        namespaced: true,
      },
      {
        group: 'monitoring.coreos.com',
        version: 'v1',
        plural: 'prometheusrules',
        kind: 'PrometheusRule',
        namespaced: true,
      },
      { group: 'image.openshift.io', version: 'v1', plural: 'imagestreams', kind: 'ImageStream', namespaced: true },
    ])
      sandbox.cluster.addType(defineResourceType(t));
    const nss = new Set(
      included.map((m) => (m.gvk.kind === 'Namespace' ? m.name : m.namespace)).filter((n) => n !== ''),
    );
    for (const name of nss)
      await client
        .request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })
        .catch(() => undefined);
    const applier = new ResourceApplier(client, nullLogger);
    // CVO_RAW_OWNER=1: write what the CVO writes, each object owned by the ClusterVersion (the sandbox's garbage
    // collector then looks at every write)
    let owner: OwnerRef | undefined;
    if (process.env['CVO_RAW_OWNER']) {
      const cv = await client.request<{ metadata: { uid: string } }>(
        'GET',
        '/apis/config.openshift.io/v1/clusterversions/version',
      );
      owner = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version', uid: cv.metadata.uid };
    }
    const queue = included.filter((m) => m.gvk.kind !== 'ClusterOperator');
    // CVO_BENCH_PROF=<file>: CPU profile of the first (cold, 16-parallel) pass
    const profFile = parallel === 16 ? process.env['CVO_BENCH_PROF'] : undefined;
    const session = profFile !== undefined ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let next = 0;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < queue.length) {
          const m = queue[next++]!;
          for (let i = 0; i < 20; i++) {
            try {
              await applier.apply(withOwner(m.object, owner, false), 'initializing');
              break;
            } catch (e) {
              if (i === 19) failures.push(`${m.id}: ${(e as Error).message}`);
              await new Promise((r) => setTimeout(r, 20));
            }
          }
        }
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    if (session && profFile !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(profFile, JSON.stringify(profile));
      session.disconnect();
    }
    console.log(
      JSON.stringify({
        parallel,
        owner: owner !== undefined,
        manifests: queue.length,
        ms: Math.round(performance.now() - t0),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        writes: applier.writes,
        failures: failures.length,
      }),
    );
    await sandbox.stop();
  }
  await rm(work, { recursive: true, force: true });
}, 600_000);
