/**
 * Graph building the way Cincinnati's graph-builder and policy-engine do: nodes from release metadata,
 * then the openshift-secondary-metadata-parse plugin (graph-data: version, raw/metadata.json,
 * blocked-edges, channels), then edge-add-remove, then per request channel-filter and arch-filter.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphDataError } from './errors.js';
import type { ConditionalEdgeGroup, ConditionalUpdateRisk, GraphDocument } from './graph.js';
import { formatSemver, parseSemver, type SemVer } from './semver.js';
import { at, isObj, must } from './util.js';
import { readGraphData } from './graphdata-read.js';
import { compileLinearRegex, type LinearRegex } from './regex.js';

const KEY = 'io.openshift.upgrades.graph';
const ARCH_KEY = `${KEY}.release.arch`;
const CHANNELS_KEY = `${KEY}.release.channels`;

/** A mutable graph as handled by graph-builder plugins. */
export interface BuilderGraph {
  /** Nodes; `abstract` ones (no payload) never receive metadata, as upstream. */
  nodes: { version: string; payload: string; metadata: Record<string, string>; abstract?: boolean }[];
  /** Edges as node-index pairs (no duplicates). */
  edges: [number, number][];
  /** Conditional edge templates from graph-data (expanded by {@link applyEdgeAddRemove}). */
  conditionalTemplates: { from: string; to: string; risks: ConditionalUpdateRisk[] }[];
  /** Expanded conditional edges. */
  conditionalEdges: ConditionalEdgeGroup[];
}

/** One release's Cincinnati metadata (`release-manifests/release-metadata`) plus where it lives. */
export interface ReleaseInput {
  /** `cincinnati-metadata-v0` (checked when present). */
  readonly kind?: string;
  /** SemVer version without build metadata. */
  readonly version: string;
  /** Release image pull spec (by digest: `repo@sha256:…`). */
  readonly payload: string;
  /** Architecture (`amd64`, `arm64`, `ppc64le`, `s390x`, `multi`). Default amd64, or `multi` if metadata says so. */
  readonly arch?: string;
  readonly previous?: readonly string[];
  readonly next?: readonly string[];
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Parsed cincinnati-graph-data directory. */
export interface GraphData {
  /** Layout version (`version` file). */
  version: string;
  rawMetadata: Record<string, Record<string, string>>;
  blockedEdges: { file: string; to: string; from: string }[];
  conditionalEdges: { file: string; to: string; from: string; risk: ConditionalUpdateRisk }[];
  channels: { file: string; name: string; versions: string[] }[];
  /** Files skipped (no yaml extension, unparsable, neither blocked nor conditional...). */
  warnings: string[];
}

export { readGraphData };

function sv(v: string): SemVer | undefined {
  try {
    return parseSemver(v);
  } catch {
    return undefined;
  }
}

/** SemVer equality ignoring build metadata (Rust semver 0.11 `==`). */
function eqNoBuild(a: SemVer, b: SemVer): boolean {
  return (
    a.major === b.major &&
    a.minor === b.minor &&
    a.patch === b.patch &&
    a.pre.length === b.pre.length &&
    a.pre.every((x, i) => x === b.pre[i])
  );
}

function withBuild(v: SemVer, build: readonly string[]): string {
  return formatSemver({ ...v, build });
}

function buildSets(g: BuilderGraph): string[][] {
  const seen = new Map<string, string[]>();
  for (const n of g.nodes) {
    const s = sv(n.version);
    if (s) seen.set(s.build.join('.'), [...s.build]);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, b]) => b);
}

function findExact(g: BuilderGraph, version: string): number {
  return g.nodes.findIndex((n) => n.version === version);
}

/**
 * The openshift-secondary-metadata-parse plugin: raw metadata (comma-appending), unconditional blocks
 * (`previous.remove_regex` set), conditional risks (templates + regex appended with `|`), channels
 * (appended once each, then sorted by the part after the first `-`).
 */
export function applySecondaryMetadata(g: BuilderGraph, data: GraphData): void {
  for (const [ver, md] of Object.entries(data.rawMetadata)) {
    const want = sv(ver);
    if (!want) continue;
    for (const [k, val] of Object.entries(md)) {
      for (const n of g.nodes) {
        const have = sv(n.version);
        if (have && !n.abstract && eqNoBuild(have, want))
          n.metadata[k] = k in n.metadata ? `${n.metadata[k]},${val}` : val;
      }
    }
  }
  const arches = buildSets(g);
  const rx = `${KEY}.previous.remove_regex`;
  for (const be of data.blockedEdges) {
    const to = parseSemver(be.to);
    let targets: string[];
    if (to.build.length > 0) targets = [be.to];
    else if (to.pre.length === 1 && to.pre[0] === 's390x') targets = [withBuild(to, ['s390x'])];
    else targets = arches.map((b) => withBuild(to, b));
    for (const t of targets) {
      const i = findExact(g, t);
      if (i >= 0 && !at(g.nodes, i).abstract) at(g.nodes, i).metadata[rx] = be.from;
    }
  }
  for (const ce of data.conditionalEdges) {
    const to = parseSemver(ce.to);
    g.conditionalTemplates.push({ from: ce.from, to: formatSemver(to), risks: [ce.risk] });
    for (const b of arches) {
      const i = findExact(g, withBuild(to, b));
      if (i < 0 || at(g.nodes, i).abstract) continue;
      const md = at(g.nodes, i).metadata;
      md[rx] = rx in md ? `${md[rx]}|${ce.from}` : ce.from;
    }
  }
  for (const ch of data.channels) {
    const listed = ch.versions.map((v) => parseSemver(v));
    for (const n of g.nodes) {
      const have = sv(n.version);
      if (!have || n.abstract) continue;
      if (
        listed.some((l) => eqNoBuild(l, have) && (l.build.length === 0 || l.build.join('.') === have.build.join('.')))
      ) {
        // a channel is listed once: the node's own release metadata may already name it (ClusterVersion's
        // `channels` is a `listType: set`, which kube-apiserver refuses with a duplicate)
        const current = n.metadata[CHANNELS_KEY];
        if (current === undefined) n.metadata[CHANNELS_KEY] = ch.name;
        else if (!current.split(',').includes(ch.name)) n.metadata[CHANNELS_KEY] = `${current},${ch.name}`;
      }
    }
  }
  for (const n of g.nodes) {
    const c = n.metadata[CHANNELS_KEY];
    if (c === undefined) continue;
    const suffix = (x: string): string => {
      const i = x.indexOf('-');
      return i < 0 ? '' : x.slice(i + 1);
    };
    // once each, whichever of release metadata, raw metadata and channel files named it
    const parts = [...new Set(c.split(','))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    parts.sort((a, b) => {
      const x = suffix(a);
      const y = suffix(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    n.metadata[CHANNELS_KEY] = parts.join(',');
  }
}

function annotate(g: BuilderGraph, version: string, ref: number): string {
  const arch = at(g.nodes, ref).metadata[ARCH_KEY];
  if (arch === undefined) return version;
  const s = sv(version);
  if (!s)
    throw new GraphDataError(
      `node ${at(g.nodes, ref).version}`,
      `${JSON.stringify(version)} in an add/remove label is not SemVer`,
    );
  return withBuild(s, [arch]);
}

function risksKey(risks: readonly ConditionalUpdateRisk[]): string {
  return JSON.stringify(
    risks.map((r) => [r.url, r.name, r.message, r.matchingRules.map((m) => [m.type, m.promql?.promql ?? null])]),
  );
}

/**
 * The edge-add-remove plugin: add edges from `previous.add`/`next.add`, expand conditional templates into
 * existing predecessor edges (grouped by identical risk lists), then remove edges per `previous.remove`
 * (list or `*`), `previous.remove_regex` and `next.remove`. Removal runs last, so it wins.
 */
export function applyEdgeAddRemove(g: BuilderGraph): void {
  const edgeSet = new Set(g.edges.map(([a, b]) => `${a}>${b}`));
  const add = (a: number, b: number): void => {
    const k = `${a}>${b}`;
    if (!edgeSet.has(k)) {
      edgeSet.add(k);
      g.edges.push([a, b]);
    }
  };
  const remove = new Set<string>();
  g.nodes.forEach((n, to) => {
    const csv = n.metadata[`${KEY}.previous.add`];
    if (csv === undefined) return;
    for (const raw of csv.split(',').map((x) => x.trim())) {
      const from = findExact(g, annotate(g, raw, to));
      if (from >= 0) add(from, to);
    }
  });
  g.nodes.forEach((n, from) => {
    const csv = n.metadata[`${KEY}.next.add`];
    if (csv === undefined) return;
    for (const raw of csv.split(',').map((x) => x.trim())) {
      const to = findExact(g, annotate(g, raw, from));
      if (to >= 0) add(from, to);
    }
  });
  const preds = (i: number): number[] => g.edges.filter(([, b]) => b === i).map(([a]) => a);
  // conditional templates
  const edgeRisks = new Map<string, { from: string; to: string; risks: ConditionalUpdateRisk[] }>();
  for (const t of g.conditionalTemplates) {
    const re = compileLinearRegex(t.from);
    g.nodes.forEach((n, ti) => {
      if (!(n.version === t.to || n.version.split('+')[0] === t.to)) return;
      for (const p of preds(ti)) {
        const fv = at(g.nodes, p).version;
        if (t.from !== '.*' && !re.test(fv)) continue;
        const k = `${fv}>${n.version}`;
        const cur = edgeRisks.get(k);
        if (cur) cur.risks.push(...t.risks);
        else edgeRisks.set(k, { from: fv, to: n.version, risks: [...t.risks] });
      }
    });
  }
  const groups = new Map<string, ConditionalEdgeGroup & { edges: { from: string; to: string }[] }>();
  for (const e of edgeRisks.values()) {
    const k = risksKey(e.risks);
    const gr = groups.get(k);
    if (gr) gr.edges.push({ from: e.from, to: e.to });
    else groups.set(k, { edges: [{ from: e.from, to: e.to }], risks: e.risks });
  }
  g.conditionalEdges = [...groups.values()];
  // removals
  g.nodes.forEach((n, to) => {
    const csv = n.metadata[`${KEY}.previous.remove`];
    if (csv === undefined) return;
    if (csv.trim() === '*') {
      for (const p of preds(to)) remove.add(`${p}>${to}`);
      return;
    }
    for (const raw of csv.split(',').map((x) => x.trim())) {
      const from = findExact(g, annotate(g, raw, to));
      if (from >= 0) remove.add(`${from}>${to}`);
    }
  });
  g.nodes.forEach((n, to) => {
    const rxs = n.metadata[`${KEY}.previous.remove_regex`];
    if (rxs === undefined) return;
    let re: LinearRegex;
    try {
      re = compileLinearRegex(rxs);
    } catch (err) {
      throw new GraphDataError(`node ${n.version}`, `Parsing ${rxs} as Regex: ${(err as Error).message}`);
    }
    for (const p of preds(to)) if (rxs === '.*' || re.test(at(g.nodes, p).version)) remove.add(`${p}>${to}`);
  });
  g.nodes.forEach((n, from) => {
    const csv = n.metadata[`${KEY}.next.remove`];
    if (csv === undefined) return;
    for (const raw of csv.split(',').map((x) => x.trim())) {
      const to = findExact(g, annotate(g, raw, from));
      if (to >= 0) remove.add(`${from}>${to}`);
    }
  });
  g.edges = g.edges.filter(([a, b]) => !remove.has(`${a}>${b}`));
}

/** Converts a graph document (e.g. `graph-gb-raw.json`) into a mutable builder graph. */
export function builderGraphFromDocument(doc: GraphDocument): BuilderGraph {
  return {
    nodes: doc.nodes.map((n) => ({
      version: n.version,
      payload: typeof n.payload === 'string' ? n.payload : '',
      metadata: Object.fromEntries(Object.entries(n.metadata ?? {}).map(([k, v]) => [k, String(v)])),
      ...(typeof n.payload === 'string' ? {} : { abstract: true }),
    })),
    edges: doc.edges.map(([a, b]) => [a, b]),
    conditionalTemplates: [],
    conditionalEdges: (doc.conditionalEdges ?? []).map((g) => ({ edges: [...g.edges], risks: [...g.risks] })),
  };
}

/** Serializes a builder graph (the graph-builder's unfiltered answer). */
export function builderGraphToDocument(g: BuilderGraph): GraphDocument {
  return {
    version: 1,
    nodes: g.nodes.map((n) => ({ version: n.version, payload: n.payload, metadata: { ...n.metadata } })),
    edges: g.edges.map(([a, b]) => [a, b]),
    conditionalEdges: g.conditionalEdges.map((c) => ({
      edges: c.edges.map((e) => ({ ...e })),
      risks: c.risks.map((r) => ({ ...r })),
    })),
  };
}

/**
 * Builds graph-builder nodes and edges from release metadata (the release-scrape plugin): version gets
 * `+<arch>`, metadata gains `release.arch` and `release.manifestref`, edges from `previous`/`next`
 * (same architecture only). Cycles are rejected.
 */
export function graphFromReleases(releases: readonly ReleaseInput[]): BuilderGraph {
  const g: BuilderGraph = { nodes: [], edges: [], conditionalTemplates: [], conditionalEdges: [] };
  const idx = new Map<string, number>();
  const archOf = (r: ReleaseInput): string =>
    r.arch ?? (r.metadata?.['release.openshift.io/architecture'] === 'multi' ? 'multi' : 'amd64');
  for (const r of releases) {
    const where = `release ${r.version}`;
    const declared = r.metadata?.['release.openshift.io/architecture'];
    // the CVO refuses a payload whose release-metadata says anything but "multi" there (pkg/payload/payload.go,
    // loadReleaseFromMetadata) and its client every node that carries it (ParseMetadata): such a release is not served
    if (declared !== undefined && declared !== 'multi')
      throw new GraphDataError(
        where,
        `Architecture from release-metadata (${r.version}) contains invalid value: ${JSON.stringify(declared)}. Valid value is "multi".`,
        { hint: "leave release.openshift.io/architecture out of a single-arch release's metadata" },
      );
    if (r.kind !== undefined && r.kind !== 'cincinnati-metadata-v0')
      throw new GraphDataError(where, `unrecognized Cincinnati metadata kind ${JSON.stringify(r.kind)}`);
    const s = sv(r.version);
    if (!s)
      throw new GraphDataError(where, `invalid Cincinnati metadata version ${JSON.stringify(r.version)}`, {
        hint: 'release versions must be SemVer',
      });
    const arch = archOf(r);
    if (!/^[0-9a-z]+$/.test(arch)) throw new GraphDataError(where, `invalid architecture ${JSON.stringify(arch)}`);
    const version = withBuild(s, [arch]);
    if (idx.has(version)) throw new GraphDataError(where, `duplicate release ${version}`);
    const metadata: Record<string, string> = { ...(r.metadata ?? {}), [ARCH_KEY]: arch };
    const digest = /@(sha256:[0-9a-f]{64})$/.exec(r.payload);
    if (digest) metadata[`${KEY}.release.manifestref`] = at(digest, 1);
    idx.set(version, g.nodes.length);
    g.nodes.push({ version, payload: r.payload, metadata });
  }
  const seen = new Set<string>();
  const add = (a: number, b: number): void => {
    const k = `${a}>${b}`;
    if (!seen.has(k)) {
      seen.add(k);
      g.edges.push([a, b]);
    }
  };
  for (const r of releases) {
    const arch = archOf(r);
    const me = must(idx.get(withBuild(parseSemver(r.version), [arch])), 'release index');
    for (const p of r.previous ?? []) {
      const ps = sv(p);
      const pi = ps ? idx.get(withBuild(ps, [arch])) : undefined;
      if (pi !== undefined) add(pi, me);
    }
    for (const n of r.next ?? []) {
      const ns = sv(n);
      const ni = ns ? idx.get(withBuild(ns, [arch])) : undefined;
      if (ni !== undefined) add(me, ni);
    }
  }
  // reject cycles
  const state = new Uint8Array(g.nodes.length);
  const out: number[][] = g.nodes.map(() => []);
  for (const [a, b] of g.edges) at(out, a).push(b);
  const visit = (s: number): void => {
    const stack: [number, number][] = [[s, 0]];
    state[s] = 1;
    while (stack.length > 0) {
      const top = at(stack, stack.length - 1);
      const succ = at(out, top[0]);
      if (top[1] < succ.length) {
        const v = at(succ, top[1]++);
        if (state[v] === 1)
          throw new GraphDataError(
            `release ${at(g.nodes, v).version}`,
            `update cycle through ${at(g.nodes, top[0]).version} -> ${at(g.nodes, v).version}`,
            { hint: 'previous/next lists must not form a cycle' },
          );
        if (state[v] === 0) {
          state[v] = 1;
          stack.push([v, 0]);
        }
      } else {
        state[top[0]] = 2;
        stack.pop();
      }
    }
  };
  for (let i = 0; i < g.nodes.length; i++) if (state[i] === 0) visit(i);
  return g;
}

/** Reads a directory of release-metadata JSON files (`*.json`, each a {@link ReleaseInput}). */
export function readReleasesDir(dir: string): ReleaseInput[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (err) {
    throw new GraphDataError(dir, `cannot read directory: ${(err as Error).message}`);
  }
  return names.map((n) => {
    const file = join(dir, n);
    let v: unknown;
    try {
      v = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new GraphDataError(file, `invalid JSON: ${(err as Error).message}`);
    }
    if (!isObj(v) || typeof v['version'] !== 'string' || typeof v['payload'] !== 'string') {
      throw new GraphDataError(
        file,
        'expected {"kind":"cincinnati-metadata-v0","version","payload","previous":[],"next":[],"metadata":{}}',
        { hint: 'add "payload" (the release image pull spec) to each release-metadata file' },
      );
    }
    for (const k of ['previous', 'next'] as const) {
      if (v[k] !== undefined && !(Array.isArray(v[k]) && (v[k] as unknown[]).every((x) => typeof x === 'string')))
        throw new GraphDataError(file, `"${k}" must be an array of versions`);
    }
    if (
      v['metadata'] !== undefined &&
      !(isObj(v['metadata']) && Object.values(v['metadata']).every((x) => typeof x === 'string'))
    )
      throw new GraphDataError(file, '"metadata" must map keys to strings');
    return v as unknown as ReleaseInput;
  });
}

/** Policy-engine channel-filter + arch-filter over the graph-builder graph. */
export function filterGraph(doc: GraphDocument, channel: string | undefined, arch: string | undefined): GraphDocument {
  let keep = doc.nodes.map(() => true);
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  if (channel !== undefined)
    keep = doc.nodes.map((n) =>
      text(n.metadata[CHANNELS_KEY])
        .split(',')
        .some((c) => c.trim() === channel),
    );
  let archKeep = keep;
  if (arch !== undefined)
    archKeep = doc.nodes.map(
      (n, i) =>
        at(keep, i) &&
        text(n.metadata[ARCH_KEY])
          .split(',')
          .some((a) => a.trim() === arch),
    );
  const newIdx = new Int32Array(doc.nodes.length).fill(-1);
  const nodes: GraphDocument['nodes'] = [];
  const rename = new Map<string, string>();
  doc.nodes.forEach((n, i) => {
    if (!archKeep[i]) return;
    newIdx[i] = nodes.length;
    let version = n.version;
    const metadata =
      arch === undefined
        ? { ...n.metadata }
        : Object.fromEntries(Object.entries(n.metadata).filter(([k]) => k !== ARCH_KEY));
    if (arch !== undefined) {
      const s = sv(version);
      if (s) version = formatSemver({ ...s, build: s.build.filter((b) => b !== arch) });
    }
    rename.set(n.version, version);
    nodes.push({ version, payload: n.payload, metadata });
  });
  const edges = doc.edges
    .filter(([a, b]) => at(newIdx, a) >= 0 && at(newIdx, b) >= 0)
    .map(([a, b]) => [at(newIdx, a), at(newIdx, b)] as [number, number]);
  const conditionalEdges = (doc.conditionalEdges ?? [])
    .map((g) => ({
      edges: g.edges
        .filter((e) => rename.has(e.from) && rename.has(e.to))
        .map((e) => ({ from: must(rename.get(e.from), 'rename entry'), to: must(rename.get(e.to), 'rename entry') })),
      risks: g.risks,
    }))
    .filter((g) => g.edges.length > 0);
  return { version: 1, nodes, edges, conditionalEdges };
}

/** Runs the whole graph-builder pipeline: releases → secondary metadata → edge-add-remove. */
export function buildGraph(options: {
  releases: readonly ReleaseInput[] | BuilderGraph | GraphDocument;
  graphData?: string | GraphData;
}): { graph: GraphDocument; warnings: string[] } {
  const r = options.releases;
  const g = Array.isArray(r)
    ? graphFromReleases(r as readonly ReleaseInput[])
    : 'conditionalTemplates' in (r as object)
      ? (r as BuilderGraph)
      : builderGraphFromDocument(r as GraphDocument);
  let warnings: string[] = [];
  if (options.graphData !== undefined) {
    const data = typeof options.graphData === 'string' ? readGraphData(options.graphData) : options.graphData;
    warnings = data.warnings;
    applySecondaryMetadata(g, data);
  }
  applyEdgeAddRemove(g);
  return { graph: builderGraphToDocument(g), warnings };
}
