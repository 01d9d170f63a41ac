/**
 * `cluster-version-operator render` (openshift/cluster-version-operator pkg/payload/render.go): renders the templated `manifests/` of a payload with the release
 * image (template errors are fatal here) into `<output-dir>/manifests`, skipping the monitoring manifests, plus the
 * `ClusterImagePolicy`/`ImagePolicy` manifests of `release-manifests/`.
 */
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  compareNames,
  imagesFromReferences,
  parseImageReferences,
  parseManifestFile,
  renderTemplate,
  type PayloadIssue,
} from '@keelson/release-payload';
import { CvoError } from './errors.js';

const SKIPPED = new Set([
  '0000_90_cluster-version-operator_00_prometheusrole.yaml',
  '0000_90_cluster-version-operator_01_prometheusrolebinding.yaml',
  '0000_90_cluster-version-operator_02_servicemonitor.yaml',
]);

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Renders the bootstrap manifests; returns the files written. */
export async function renderBootstrap(opts: {
  payloadDir: string;
  outputDir: string;
  releaseImage: string;
  clusterProfile?: string;
}): Promise<string[]> {
  if (opts.releaseImage === '') throw new CvoError('Render', '--release-image', '--release-image is required');
  const irText = await readFile(join(opts.payloadDir, 'release-manifests', 'image-references'), 'utf8').catch(
    (e: unknown) => {
      throw new CvoError(
        'Render',
        join(opts.payloadDir, 'release-manifests/image-references'),
        `cannot read image-references: ${(e as Error).message}`,
      );
    },
  );
  const images = imagesFromReferences(parseImageReferences(irText));
  const cfg = {
    ReleaseImage: opts.releaseImage,
    ClusterProfile: opts.clusterProfile ?? 'self-managed-high-availability',
    Images: images,
  };
  const outDir = join(opts.outputDir, 'manifests');
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  const manifestsDir = join(opts.payloadDir, 'manifests');
  for (const name of (await readdir(manifestsDir)).sort(compareNames)) {
    if (!/\.(ya?ml|json)$/.test(name) || SKIPPED.has(name)) continue;
    const text = renderTemplate(await readFile(join(manifestsDir, name), 'utf8'), cfg, name);
    await writeAtomic(join(outDir, name), text);
    written.push(join(outDir, name));
  }
  const rmDir = join(opts.payloadDir, 'release-manifests');
  for (const name of (await readdir(rmDir)).sort(compareNames)) {
    if (!/\.(ya?ml|json)$/.test(name)) continue;
    const text = await readFile(join(rmDir, name), 'utf8');
    const issues: PayloadIssue[] = [];
    const docs = parseManifestFile(text, name, 'release-manifests', issues).filter(
      (m) =>
        m.gvk.group === 'config.openshift.io' && (m.gvk.kind === 'ClusterImagePolicy' || m.gvk.kind === 'ImagePolicy'),
    );
    if (docs.length === 0) continue;
    await writeAtomic(join(outDir, name), docs.map((d) => d.source.trim()).join('\n---\n') + '\n');
    written.push(join(outDir, name));
  }
  return written;
}
