/**
 * Reading a cincinnati-graph-data directory as Cincinnati's openshift-secondary-metadata-parse plugin does: the
 * `version` file, `raw/metadata.json`, `blocked-edges/` (unconditional blocks and conditional risks) and `channels/`.
 * Unusable entries are skipped with a warning, as upstream logs them; a broken layout is a typed error.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { GraphDataError } from './errors.js';
import type { ClusterCondition } from './graph.js';
import type { GraphData } from './graphdata.js';
import { compileLinearRegex } from './regex.js';
import { parseSemver, type SemVer } from './semver.js';
import { isObj, must } from './util.js';

const MAX_GRAPH_DATA_VERSION = { major: 1, minor: 2 };

/** Reads a cincinnati-graph-data directory (`version`, `raw/metadata.json`, `blocked-edges/`, `channels/`). */
export function readGraphData(dir: string): GraphData {
  const warnings: string[] = [];
  const version = readLayoutVersion(join(dir, 'version'), warnings);
  const rawMetadata = readRawMetadata(join(dir, 'raw', 'metadata.json'));
  const blockedEdges: GraphData['blockedEdges'] = [];
  const conditionalEdges: GraphData['conditionalEdges'] = [];
  for (const file of yamlFiles(join(dir, 'blocked-edges'), warnings)) {
    const edge = readBlockedEdge(file, warnings);
    if (edge === undefined) continue;
    if ('risk' in edge) conditionalEdges.push(edge);
    else blockedEdges.push(edge);
  }
  const channels: GraphData['channels'] = [];
  for (const file of yamlFiles(join(dir, 'channels'), warnings)) {
    const channel = readChannel(file, warnings);
    if (channel !== undefined) channels.push(channel);
  }
  return { version, rawMetadata, blockedEdges, conditionalEdges, channels, warnings };
}

/** The `version` file: major 1, a newer minor is read with a warning. */
function readLayoutVersion(versionFile: string, warnings: string[]): string {
  let version: string;
  try {
    version = readFileSync(versionFile, 'utf8');
  } catch (err) {
    throw new GraphDataError(versionFile, `cannot read: ${(err as Error).message}`, {
      hint: 'a graph-data directory has a top-level "version" file',
    });
  }
  let v: SemVer;
  try {
    v = parseSemver(version.trim());
  } catch {
    throw new GraphDataError(versionFile, `${version} is not a valid semver`);
  }
  if (v.major !== MAX_GRAPH_DATA_VERSION.major) {
    throw new GraphDataError(
      versionFile,
      `unrecognized graph-data version ${version.trim()}; "1.2.0" and compatible versions are supported`,
    );
  }
  if (v.minor > MAX_GRAPH_DATA_VERSION.minor)
    warnings.push(
      `graph-data version ${version.trim()} may have features this implementation (1.2.0) does not support`,
    );
  return version.trim();
}

/** `raw/metadata.json`: {version: {key: value}}. */
function readRawMetadata(rawFile: string): GraphData['rawMetadata'] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(rawFile, 'utf8'));
    if (!isObj(parsed)) throw new GraphDataError(rawFile, 'must be a JSON object {version: {key: value}}');
    for (const [ver, md] of Object.entries(parsed)) {
      if (!isObj(md) || !Object.values(md).every((x) => typeof x === 'string'))
        throw new GraphDataError(rawFile, `entry ${JSON.stringify(ver)} must map metadata keys to strings`);
    }
    return parsed as Record<string, Record<string, string>>;
  } catch (err) {
    if (err instanceof GraphDataError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new GraphDataError(rawFile, 'missing', { hint: 'graph-data needs raw/metadata.json (use {} when empty)' });
    throw new GraphDataError(rawFile, `Deserializing to RawMetadata: ${(err as Error).message}`);
  }
}

type BlockedEdge = GraphData['blockedEdges'][number];
type ConditionalEdge = GraphData['conditionalEdges'][number];

/** One file of `blocked-edges/`: exactly to/from blocks the edges, url/name/message/matchingRules makes them risks. */
function readBlockedEdge(file: string, warnings: string[]): BlockedEdge | ConditionalEdge | undefined {
  const doc = readYamlMapping(file, warnings);
  if (doc === undefined) return undefined;
  const keys = Object.keys(doc);
  const to = typeof doc['to'] === 'string' ? doc['to'] : typeof doc['to'] === 'number' ? String(doc['to']) : undefined;
  const from = typeof doc['from'] === 'string' ? doc['from'] : undefined;
  if (to === undefined || !isSemver(to) || from === undefined) {
    warnings.push(`${file}: needs a SemVer "to" and a regex "from" (skipped)`);
    return undefined;
  }
  checkRegex(file, from);
  if (keys.length === 2 && keys.includes('to') && keys.includes('from')) return { file, to: must(to, 'to'), from };
  const { url, name, message, matchingRules } = doc;
  if (
    typeof url === 'string' &&
    typeof name === 'string' &&
    typeof message === 'string' &&
    Array.isArray(matchingRules)
  ) {
    const rules = readMatchingRules(file, matchingRules, warnings);
    return { file, to: must(to, 'to'), from, risk: { url, name, message, matchingRules: rules } };
  }
  warnings.push(
    `${file}: neither an unconditional block (exactly to/from) nor a conditional risk (url, name, message, matchingRules) (skipped)`,
  );
  return undefined;
}

function readMatchingRules(file: string, matchingRules: unknown[], warnings: string[]): ClusterCondition[] {
  const rules: ClusterCondition[] = [];
  for (const r of matchingRules) {
    if (!isObj(r) || typeof r['type'] !== 'string') {
      warnings.push(`${file}: matchingRules entries need a "type" (skipped)`);
      continue;
    }
    const pq = r['promql'];
    rules.push(
      isObj(pq) && typeof pq['promql'] === 'string'
        ? { type: r['type'], promql: { promql: pq['promql'] } }
        : { type: r['type'] },
    );
  }
  return rules;
}

/** One file of `channels/`: a name and SemVer versions. */
function readChannel(file: string, warnings: string[]): GraphData['channels'][number] | undefined {
  const doc = readYamlMapping(file, warnings, 'a channel needs "name" and "versions" (skipped)');
  if (doc === undefined) return undefined;
  if (typeof doc['name'] !== 'string' || !Array.isArray(doc['versions'])) {
    warnings.push(`${file}: a channel needs "name" and "versions" (skipped)`);
    return undefined;
  }
  const versions = (doc['versions'] as unknown[]).map((x) => String(x));
  const bad = versions.find((x) => !isSemver(x));
  if (bad !== undefined) {
    warnings.push(`${file}: version ${JSON.stringify(bad)} is not SemVer (channel skipped)`);
    return undefined;
  }
  return { file, name: doc['name'], versions };
}

/** A YAML file that must hold a mapping; a parse failure or another shape is a warning. */
function readYamlMapping(
  file: string,
  warnings: string[],
  notMapping = 'not a mapping (skipped)',
): Record<string, unknown> | undefined {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    warnings.push(`${file}: failed to parse YAML: ${(err as Error).message}`);
    return undefined;
  }
  if (!isObj(doc)) {
    warnings.push(`${file}: ${notMapping}`);
    return undefined;
  }
  return doc;
}

function isSemver(v: string): boolean {
  try {
    parseSemver(v);
    return true;
  } catch {
    return false;
  }
}

function yamlFiles(dir: string, warnings: string[]): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (err) {
    throw new GraphDataError(dir, `cannot read directory: ${(err as Error).message}`, {
      hint: 'point --graph-data at a cincinnati-graph-data checkout',
    });
  }
  const out: string[] = [];
  for (const n of names) {
    const full = join(dir, n);
    if (!statSync(full).isFile()) continue;
    const dot = n.lastIndexOf('.');
    if (dot <= 0) {
      warnings.push(`${full}: is missing an extension (skipped)`);
      continue;
    }
    if (!/ya+ml/.test(n.slice(dot + 1))) {
      warnings.push(`${full}: has an invalid extension ${JSON.stringify(n.slice(dot + 1))} (skipped)`);
      continue;
    }
    out.push(full);
  }
  return out;
}

function checkRegex(file: string, re: string): void {
  try {
    compileLinearRegex(re);
  } catch (err) {
    throw new GraphDataError(file, `error parsing ${re} as Regex: ${(err as Error).message}`);
  }
}
