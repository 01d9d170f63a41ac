/**
 * `cluster-version-operator render` (openshift/cluster-version-operator `pkg/payload/render.go` `Render`,
 * `renderDir`, `parseFeatureGateManifest`, `parseClusterVersionManifest`): renders the templated `manifests/` (the
 * monitoring manifests skipped), the `ClusterImagePolicy`/`ImagePolicy` manifests of `release-manifests/` and the
 * templated `bootstrap/` into `<output-dir>/manifests` and `<output-dir>/bootstrap`. Every document is filtered as
 * `Manifest.Include` with the feature set and enabled gates of `--feature-gate-manifest-path`, the overrides of
 * `--cluster-version-manifest-path`, the cluster profile and the payload's major version; a file left empty is not
 * written. Template errors are fatal; errors are collected per file and reported together.
 */
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@keelson/kube/atomic-write';
import {
  compareNames,
  imagesFromReferences,
  includeManifest,
  parseImageReferences,
  parseManifestFile,
  parseReleaseMetadata,
  renderTemplate,
  type ClusterFacts,
  type Manifest,
  type PayloadIssue,
} from '@keelson/release-payload';
import { CvoError } from './errors.js';

const SKIPPED = new Set([
  '0000_90_cluster-version-operator_00_prometheusrole.yaml',
  '0000_90_cluster-version-operator_01_prometheusrolebinding.yaml',
  '0000_90_cluster-version-operator_02_servicemonitor.yaml',
]);
const POLICY_KINDS = new Set(['ClusterImagePolicy', 'ImagePolicy']);

/** Writes a rendered file atomically (@keelson/kube `writeFileAtomic`). */
function writeAtomic(path: string, text: string): Promise<void> {
  return writeFileAtomic(path, text, { mode: 0o644 });
}

/** Options of {@link renderBootstrap}. */
export interface RenderOptions {
  payloadDir: string;
  outputDir: string;
  releaseImage: string;
  clusterProfile?: string;
  /** A FeatureGate manifest: its `spec.featureSet` and the gates its one `status.featureGates` entry enables. */
  featureGateManifestPath?: string;
  /** A ClusterVersion manifest: its `spec.overrides` exclude unmanaged manifests. */
  clusterVersionManifestPath?: string;
}

/** Reads the single manifest of kind `kind` (config.openshift.io/v1) in `path`, as upstream's parse*Manifest. */
async function singleManifest(path: string, kind: string, flag: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new CvoError('Render', flag, `loading ${kind} manifest: ${(e as Error).message}`);
  }
  const issues: PayloadIssue[] = [];
  const docs = parseManifestFile(text, path, 'manifests', issues);
  // a repeated object is still a manifest of the file for the count (upstream ManifestsFromFiles keeps both)
  const count = docs.length + issues.filter((i) => i.message.startsWith('duplicate resource')).length;
  if (count !== 1)
    throw new CvoError('Render', flag, `${kind} manifest ${path} contains ${count} manifests, but expected only one`);
  if (issues.length > 0)
    throw new CvoError('Render', flag, `loading ${kind} manifest: ${issues.map((i) => i.message).join('; ')}`);
  const m = docs[0] as Manifest;
  if (m.gvk.group !== 'config.openshift.io' || m.gvk.version !== 'v1' || m.gvk.kind !== kind)
    throw new CvoError(
      'Render',
      flag,
      `${kind} manifest ${path} GroupVersionKind ${m.gvk.group}/${m.gvk.version}, Kind=${m.gvk.kind}, but expected config.openshift.io/v1, Kind=${kind}`,
    );
  return m;
}

/** Feature set and enabled gates of `--feature-gate-manifest-path` (upstream `parseFeatureGateManifest`). */
export async function parseFeatureGateManifest(
  path: string | undefined,
): Promise<{ featureSet: string; enabledGates: string[] }> {
  if (path === undefined || path === '') return { featureSet: '', enabledGates: [] };
  const fg = (await singleManifest(path, 'FeatureGate', '--feature-gate-manifest-path')).object as {
    spec?: { featureSet?: unknown };
    status?: { featureGates?: Array<{ enabled?: Array<{ name?: string }> }> };
  };
  const fs = fg.spec?.featureSet;
  if (fs !== undefined && typeof fs !== 'string')
    throw new CvoError('Render', '--feature-gate-manifest-path', `${path} spec.featureSet lookup was not a string`);
  const gates = fg.status?.featureGates ?? [];
  if (gates.length > 1)
    throw new CvoError(
      'Render',
      '--feature-gate-manifest-path',
      `FeatureGate manifest ${path} contains ${gates.length} feature gates, but expected exactly one`,
    );
  const enabledGates = (gates[0]?.enabled ?? []).map((g) => g.name ?? '').filter((n) => n !== '');
  return { featureSet: fs ?? '', enabledGates };
}

/** `spec.overrides` of `--cluster-version-manifest-path` (upstream `parseClusterVersionManifest`). */
export async function parseClusterVersionManifest(path: string | undefined): Promise<ClusterFacts['overrides']> {
  if (path === undefined || path === '') return undefined;
  const cv = (await singleManifest(path, 'ClusterVersion', '--cluster-version-manifest-path')).object as {
    spec?: { overrides?: ClusterFacts['overrides'] };
  };
  return cv.spec?.overrides ?? [];
}

interface DirTask {
  idir: string;
  odir: string;
  template: boolean;
  skip: ReadonlySet<string>;
  policiesOnly: boolean;
}

type TemplateConfig = { ReleaseImage: string; ClusterProfile: string; Images: Record<string, string> };

/** Upstream `renderDir`: each manifest file rendered, its documents filtered, the survivors written. */
async function renderDir(task: DirTask, cfg: TemplateConfig, facts: ClusterFacts, errs: string[]): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(task.idir, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
  } catch (e) {
    errs.push((e as Error).message);
    return [];
  }
  await mkdir(task.odir, { recursive: true });
  const written: string[] = [];
  for (const name of names.sort(compareNames)) {
    if (!/\.(ya?ml|json)$/.test(name) || task.skip.has(name)) continue;
    try {
      let text = await readFile(join(task.idir, name), 'utf8');
      if (task.template) text = renderTemplate(text, cfg, name);
      const issues: PayloadIssue[] = [];
      const docs = parseManifestFile(text, name, 'manifests', issues);
      if (issues.length > 0) throw new Error(`parse manifest ${name} from ${task.idir}: ${issues[0]?.message ?? ''}`);
      const kept = docs.filter(
        (m) =>
          (!task.policiesOnly || (m.gvk.group === 'config.openshift.io' && POLICY_KINDS.has(m.gvk.kind))) &&
          includeManifest(m, facts) === null,
      );
      if (kept.length === 0) continue;
      await writeAtomic(join(task.odir, name), kept.map((d) => d.source.trim()).join('\n---\n') + '\n');
      written.push(join(task.odir, name));
    } catch (e) {
      errs.push((e as Error).message);
    }
  }
  return written;
}

/** Renders the bootstrap manifests; returns the files written. */
export async function renderBootstrap(opts: RenderOptions): Promise<string[]> {
  if (opts.releaseImage === '') throw new CvoError('Render', '--release-image', '--release-image is required');
  const rm = join(opts.payloadDir, 'release-manifests');
  const read = (file: string): Promise<string> =>
    readFile(join(rm, file), 'utf8').catch((e: unknown) => {
      throw new CvoError('Render', join(rm, file), `cannot read ${file}: ${(e as Error).message}`);
    });
  const images = imagesFromReferences(parseImageReferences(await read('image-references')));
  const version = parseReleaseMetadata(await read('release-metadata')).version;
  const major = Number(/^(\d+)\./.exec(version)?.[1] ?? Number.NaN);
  const { featureSet, enabledGates } = await parseFeatureGateManifest(opts.featureGateManifestPath);
  const overrides = await parseClusterVersionManifest(opts.clusterVersionManifestPath);
  const profile = opts.clusterProfile ?? 'self-managed-high-availability';
  const cfg = { ReleaseImage: opts.releaseImage, ClusterProfile: profile, Images: images };
  const facts: ClusterFacts = {
    featureSet,
    enabledFeatureGates: enabledGates,
    profile,
    ...(overrides !== undefined ? { overrides } : {}),
    ...(Number.isInteger(major) ? { majorVersion: major } : {}),
  };
  const out = join(opts.outputDir, 'manifests');
  const tasks: DirTask[] = [
    { idir: join(opts.payloadDir, 'manifests'), odir: out, template: true, skip: SKIPPED, policiesOnly: false },
    { idir: rm, odir: out, template: false, skip: new Set(), policiesOnly: true },
    {
      idir: join(opts.payloadDir, 'bootstrap'),
      odir: join(opts.outputDir, 'bootstrap'),
      template: true,
      skip: new Set(),
      policiesOnly: false,
    },
  ];
  const errs: string[] = [];
  const written: string[] = [];
  for (const t of tasks) written.push(...(await renderDir(t, cfg, facts, errs)));
  if (errs.length > 0)
    throw new CvoError(
      'Render',
      opts.payloadDir,
      `error rendering manifests: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`,
    );
  return written;
}
