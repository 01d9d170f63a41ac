/**
 * Release nodes read from release images, as Cincinnati's graph-builder makes them: from single payloads (`--payload`)
 * and by scraping every tag of a registry repository (`--repository`, the `release-scrape-dockerv2` plugin).
 */
import {
  listRepositoryTags,
  openPayload,
  parseImageReference,
  PayloadError,
  RegistryClient,
  type ReleasePayload,
} from '@keelson/release-payload';
import type { ReleaseInput } from '@keelson/update-graph';
import { CliError } from '../output.js';

/** Metadata key graph-builder's release scraper adds to each node: the release image manifest digest. */
export const MANIFESTREF_KEY = 'io.openshift.upgrades.graph.release.manifestref';

/**
 * The graph node graph-builder would make from a scraped release image: version, previous and next from
 * release-metadata; payload = `<repository>@<digest>` when the image digest is known (else the source);
 * metadata = release-metadata's string values plus the manifestref key (digest) when known.
 */
export function releaseInputFromPayload(p: ReleasePayload, warnings: string[] = []): ReleaseInput {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata.metadata)) {
    if (typeof v === 'string') metadata[k] = v;
    else warnings.push(`${p.source}: release-metadata metadata.${k} is not a string; left out of the graph node`);
  }
  let payload = p.source;
  const digest = p.image?.digest;
  if (digest !== undefined && /^sha256:[a-f0-9]{64}$/.test(digest)) {
    metadata[MANIFESTREF_KEY] = digest;
    const ref = p.image?.reference ?? p.source;
    const repo = ref
      .replace(/^docker:\/\//, '')
      .replace(/@sha256:[a-f0-9]{64}$/, '')
      .replace(/:[\w][\w.-]*$/, '');
    payload =
      /^(oci|oci-archive|docker-archive):/.test(ref) || !repo.includes('/')
        ? `${p.source}@${digest}`
        : `${repo}@${digest}`;
  }
  const arch = p.image?.architecture;
  return {
    kind: p.metadata.kind,
    version: p.metadata.version,
    payload,
    previous: p.metadata.previous,
    next: p.metadata.next,
    metadata,
    ...(metadata['release.openshift.io/architecture'] === 'multi'
      ? {}
      : arch !== undefined && arch !== ''
        ? { arch }
        : {}),
  };
}

export async function releasesFromPayloads(sources: string[], warnings: string[]): Promise<ReleaseInput[]> {
  const out: ReleaseInput[] = [];
  for (const source of sources) {
    let p: ReleasePayload;
    try {
      p = await openPayload(source);
    } catch (e) {
      if (e instanceof PayloadError) throw new CliError(`--payload ${source}: ${e.message}`);
      throw e;
    }
    for (const w of p.warnings) warnings.push(`${source}: ${w}`);
    out.push(releaseInputFromPayload(p, warnings));
  }
  return out;
}

/** Release images read at once while scraping a repository (graph-builder's `fetch_concurrency` is 16). */
const SCRAPE_CONCURRENCY = 4;

/**
 * Every release image of each repository, as `release-scrape-dockerv2` scrapes one: all tags, each manifest digest
 * read once however many tags name it, a tag whose image is not a release payload skipped with a warning; a
 * multi-architecture release (manifest list, `release.openshift.io/architecture: multi`) is its list's digest.
 */
export async function releasesFromRepositories(
  repositories: readonly string[],
  warnings: string[],
  onProgress?: (repository: string, done: number, total: number) => void,
): Promise<ReleaseInput[]> {
  const out: ReleaseInput[] = [];
  for (const repository of repositories) {
    const name = repository.replace(/^docker:\/\//, '');
    try {
      const digests = await tagDigests(name);
      let done = 0;
      const releases = await mapLimit([...digests], SCRAPE_CONCURRENCY, async ([digest, tags]) => {
        const r = await releaseOfDigest(name, digest, tags, warnings);
        onProgress?.(repository, ++done, digests.size);
        return r;
      });
      for (const r of releases) if (r !== undefined) out.push(r);
    } catch (e) {
      if (e instanceof PayloadError) throw new CliError(`--repository ${repository}: ${e.message}`);
      throw e;
    }
  }
  return out;
}

/** The repository's tags by the digest of the manifest (or manifest list) each names, tags sorted. */
async function tagDigests(name: string): Promise<Map<string, string[]>> {
  const tags = (await listRepositoryTags(name)).sort();
  const client = new RegistryClient(parseImageReference(name), {});
  const resolved = await mapLimit(tags, SCRAPE_CONCURRENCY, async (tag) => (await client.manifest(tag)).digest);
  const byDigest = new Map<string, string[]>();
  tags.forEach((tag, i) => {
    const digest = resolved[i] ?? '';
    byDigest.set(digest, [...(byDigest.get(digest) ?? []), tag]);
  });
  return byDigest;
}

/** The release node of one image, or undefined (with a warning) when the image is not a release payload. */
async function releaseOfDigest(
  name: string,
  digest: string,
  tags: readonly string[],
  warnings: string[],
): Promise<ReleaseInput | undefined> {
  let p: ReleasePayload;
  try {
    p = await openPayload(`docker://${name}@${digest}`);
  } catch (e) {
    if (!(e instanceof PayloadError)) throw e;
    warnings.push(`${name}:${tags.join(',')}: not a release image (${e.message}); skipped`);
    return undefined;
  }
  for (const w of p.warnings) warnings.push(`${name}@${digest}: ${w}`);
  const release = releaseInputFromPayload(p, warnings);
  if (p.image?.digest === digest || release.metadata?.['release.openshift.io/architecture'] !== 'multi') return release;
  return { ...release, payload: `${name}@${digest}`, metadata: { ...release.metadata, [MANIFESTREF_KEY]: digest } };
}

/** `fn` over `items`, at most `limit` at a time; results in the items' order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
