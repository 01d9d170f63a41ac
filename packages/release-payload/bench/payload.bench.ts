/**
 * open + parse + filter of the synthetic ~900-manifest / ~17 MB payload (tooling/payload-gen, seed 1), from an extracted
 * directory and from an OCI image layout (one gzip layer). Requires `pnpm --filter @keelson/payload-gen build`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, test } from 'vitest';
import { clusterCapabilities, filterManifests, openPayload, DEFAULT_CLUSTER_PROFILE } from '../src/index.js';
import { gz, payloadEntries, tarBuffer, writeLayout } from '../test/helpers.js';

interface Gen {
  generatePayload(o: { out: string; seed?: number }): Promise<{ manifests: number; bytes: number }>;
}
const gen = (await import(new URL('../../../tooling/payload-gen/dist/index.js', import.meta.url).href)) as Gen;

const root = await mkdtemp(join(tmpdir(), 'rp-bench-'));
const dir = join(root, 'payload');
const info = await gen.generatePayload({ out: dir, seed: 1 });
const layout = join(root, 'layout');
await writeLayout(layout, [gz(await tarBuffer(await payloadEntries(dir)))]);
const facts = {
  profile: DEFAULT_CLUSTER_PROFILE,
  featureSet: '',
  enabledFeatureGates: [],
  excludeIdentifier: '',
  capabilities: clusterCapabilities(),
};
afterAll(() => rm(root, { recursive: true, force: true }));
console.log(`synthetic payload: ${info.manifests} manifests, ${(info.bytes / 1048576).toFixed(1)} MiB`);

// vitest 5 benchmarks: the `bench` fixture of a test; results are printed as a comparison table.
test(`open + parse + filter (${info.manifests} manifests)`, { timeout: 300_000 }, async ({ bench }) => {
  await bench.compare(
    bench('extracted directory', async () => {
      filterManifests(await openPayload(dir), facts);
    }),
    bench('OCI image layout (one gzip layer)', async () => {
      filterManifests(await openPayload(layout), facts);
    }),
    { iterations: 8, time: 1 },
  );
});
