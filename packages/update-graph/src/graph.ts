/**
 * The update-graph model: the Cincinnati v1 graph document (`nodes`, `edges`, `conditionalEdges`),
 * validated (indices, SemVer, duplicate versions, cycles) and indexed for fast lookups.
 */
import { GraphValidationError, SemverError } from './errors.js';
import { compareSemver, parseSemver, type SemVer } from './semver.js';
import { at } from './util.js';

/** A node of the graph: one release. Metadata values are strings in practice (kept as JSON values). */
export interface GraphNode {
  /** Release version (SemVer for OpenShift; FCOS versions are free-form). */
  readonly version: string;
  /** Release image pull spec (OpenShift) or ostree checksum / OCI pull spec (FCOS). */
  readonly payload: string;
  /** Node metadata (`url`, `io.openshift.upgrades.graph.release.channels`, ...). */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A cluster condition (a matching rule of a risk). */
export interface ClusterCondition {
  /** `Always`, `PromQL` or an unknown type (pruned by the CVO). */
  readonly type: string;
  /** PromQL query for `type: PromQL`. */
  readonly promql?: { readonly promql: string };
}

/** A conditional-update risk. */
export interface ConditionalUpdateRisk {
  /** Link to the risk description. */
  readonly url: string;
  /** CamelCase risk name (becomes a condition reason). */
  readonly name: string;
  /** Human-readable description. */
  readonly message: string;
  /** Ordered matching rules; the first one that evaluates decides. */
  readonly matchingRules: readonly ClusterCondition[];
}

/** A `{from, to}` conditional edge (versions, not indices). */
export interface ConditionalEdge {
  readonly from: string;
  readonly to: string;
}

/** A `conditionalEdges` entry: edges sharing one list of risks. */
export interface ConditionalEdgeGroup {
  readonly edges: readonly ConditionalEdge[];
  readonly risks: readonly ConditionalUpdateRisk[];
}

/** The JSON document served by Cincinnati / OpenShift Update Service. */
export interface GraphDocument {
  version?: number;
  nodes: GraphNode[];
  edges: [number, number][];
  conditionalEdges?: ConditionalEdgeGroup[];
}

/** Graph dialect: OpenShift (SemVer versions, conditional edges) or Fedora CoreOS (free-form versions). */
export type GraphDialect = 'openshift' | 'fcos';

/** Options for {@link Graph.parse} / {@link Graph.fromDocument}. */
export interface GraphParseOptions {
  /** `openshift` (default) requires SemVer node versions; `fcos` accepts any non-empty string. */
  readonly dialect?: GraphDialect;
  /** Reject duplicate node versions (default true). */
  readonly rejectDuplicateVersions?: boolean;
  /** Reject cycles among edges (default true). */
  readonly rejectCycles?: boolean;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Case-insensitive field lookup, like Go's encoding/json. */
function field(o: Record<string, unknown>, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

/** Parses and validates one node object (the CVO's node.UnmarshalJSON: version must be strict SemVer). */
export function parseGraphNode(raw: unknown, path = '$', dialect: GraphDialect = 'openshift'): GraphNode {
  if (!isObject(raw)) throw new GraphValidationError(path, `${path}: node must be an object, got ${jsonType(raw)}`);
  const version = field(raw, 'version');
  const payload = field(raw, 'payload');
  const metadata = field(raw, 'metadata');
  if (typeof version !== 'string') {
    throw new GraphValidationError(`${path}.version`, `${path}.version: must be a string, got ${jsonType(version)}`);
  }
  if (dialect === 'openshift') {
    try {
      parseSemver(version);
    } catch (err) {
      if (err instanceof SemverError)
        throw new GraphValidationError(`${path}.version`, err.message, {
          cause: err,
          hint: 'node versions must be strict SemVer 2.0',
        });
      throw err;
    }
  } else if (version.length === 0) {
    throw new GraphValidationError(`${path}.version`, `${path}.version: must not be empty`);
  }
  if (payload !== undefined && payload !== null && typeof payload !== 'string') {
    throw new GraphValidationError(`${path}.payload`, `${path}.payload: must be a string, got ${jsonType(payload)}`);
  }
  if (metadata !== undefined && metadata !== null && !isObject(metadata)) {
    throw new GraphValidationError(
      `${path}.metadata`,
      `${path}.metadata: must be an object, got ${jsonType(metadata)}`,
    );
  }
  return {
    version,
    payload: typeof payload === 'string' ? payload : '',
    metadata: isObject(metadata) ? { ...metadata } : {},
  };
}

function parseRisk(raw: unknown, path: string): ConditionalUpdateRisk {
  if (!isObject(raw)) throw new GraphValidationError(path, `${path}: risk must be an object, got ${jsonType(raw)}`);
  const str = (k: string): string => {
    const v = field(raw, k);
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string')
      throw new GraphValidationError(`${path}.${k}`, `${path}.${k}: must be a string, got ${jsonType(v)}`);
    return v;
  };
  const rulesRaw = field(raw, 'matchingRules');
  const rules: ClusterCondition[] = [];
  if (rulesRaw !== undefined && rulesRaw !== null) {
    if (!Array.isArray(rulesRaw))
      throw new GraphValidationError(`${path}.matchingRules`, `${path}.matchingRules: must be an array`);
    rulesRaw.forEach((r, i) => {
      const rp = `${path}.matchingRules[${i}]`;
      if (!isObject(r)) throw new GraphValidationError(rp, `${rp}: must be an object, got ${jsonType(r)}`);
      const type = field(r, 'type');
      if (type !== undefined && type !== null && typeof type !== 'string')
        throw new GraphValidationError(`${rp}.type`, `${rp}.type: must be a string`);
      const pq = field(r, 'promql');
      let rule: ClusterCondition = { type: typeof type === 'string' ? type : '' };
      if (pq !== undefined && pq !== null) {
        if (!isObject(pq)) throw new GraphValidationError(`${rp}.promql`, `${rp}.promql: must be an object`);
        const q = field(pq, 'promql');
        if (q !== undefined && q !== null && typeof q !== 'string')
          throw new GraphValidationError(`${rp}.promql.promql`, `${rp}.promql.promql: must be a string`);
        rule = { ...rule, promql: { promql: typeof q === 'string' ? q : '' } };
      }
      rules.push(rule);
    });
  }
  return { url: str('url'), name: str('name'), message: str('message'), matchingRules: rules };
}

function parseConditionalGroup(raw: unknown, path: string): ConditionalEdgeGroup {
  if (!isObject(raw)) throw new GraphValidationError(path, `${path}: must be an object, got ${jsonType(raw)}`);
  const edgesRaw = field(raw, 'edges');
  const risksRaw = field(raw, 'risks');
  const edges: ConditionalEdge[] = [];
  if (edgesRaw !== undefined && edgesRaw !== null) {
    if (!Array.isArray(edgesRaw)) throw new GraphValidationError(`${path}.edges`, `${path}.edges: must be an array`);
    edgesRaw.forEach((e, i) => {
      const ep = `${path}.edges[${i}]`;
      if (!isObject(e)) throw new GraphValidationError(ep, `${ep}: must be an object with from/to`);
      const from = field(e, 'from');
      const to = field(e, 'to');
      if (typeof from !== 'string' || typeof to !== 'string')
        throw new GraphValidationError(ep, `${ep}: from and to must be version strings`);
      edges.push({ from, to });
    });
  }
  const risks: ConditionalUpdateRisk[] = [];
  if (risksRaw !== undefined && risksRaw !== null) {
    if (!Array.isArray(risksRaw)) throw new GraphValidationError(`${path}.risks`, `${path}.risks: must be an array`);
    risksRaw.forEach((r, i) => risks.push(parseRisk(r, `${path}.risks[${i}]`)));
  }
  return { edges, risks };
}

/**
 * A validated, indexed update graph. Immutable after construction.
 */
export class Graph {
  /** Nodes in document order. */
  readonly nodes: readonly GraphNode[];
  /** Edges as `[from, to]` node indices, in document order (duplicates kept). */
  readonly edges: readonly (readonly [number, number])[];
  /** Conditional edge groups. */
  readonly conditionalEdges: readonly ConditionalEdgeGroup[];
  /** Document `version` field if present. */
  readonly documentVersion: number | undefined;
  /** Dialect the graph was validated with. */
  readonly dialect: GraphDialect;
  private readonly byVersion = new Map<string, number>();
  private readonly byPayload = new Map<string, number>();
  private readonly outIdx: number[][];
  private readonly inIdx: number[][];
  private readonly semvers: (SemVer | undefined)[];
  private condFrom: Map<string, { to: string; group: number }[]> | undefined;

  private constructor(
    doc: {
      version: number | undefined;
      nodes: GraphNode[];
      edges: [number, number][];
      conditionalEdges: ConditionalEdgeGroup[];
    },
    options: GraphParseOptions,
  ) {
    this.dialect = options.dialect ?? 'openshift';
    this.documentVersion = doc.version;
    this.nodes = doc.nodes;
    this.edges = doc.edges;
    this.conditionalEdges = doc.conditionalEdges;
    this.semvers = doc.nodes.map((n) => {
      if (this.dialect !== 'openshift') return undefined;
      return parseSemver(n.version);
    });
    this.outIdx = doc.nodes.map(() => []);
    this.inIdx = doc.nodes.map(() => []);
    doc.nodes.forEach((n, i) => {
      if (this.byVersion.has(n.version)) {
        if (options.rejectDuplicateVersions ?? true) {
          throw new GraphValidationError(
            `$.nodes[${i}].version`,
            `$.nodes[${i}].version: duplicate version ${JSON.stringify(n.version)} (also $.nodes[${this.byVersion.get(n.version)}])`,
            { hint: 'each release may appear only once in a graph' },
          );
        }
      } else {
        this.byVersion.set(n.version, i);
      }
      if (!this.byPayload.has(n.payload)) this.byPayload.set(n.payload, i);
    });
    for (const [from, to] of doc.edges) {
      // indices were range-checked while parsing
      this.outIdx[from]?.push(to);
      this.inIdx[to]?.push(from);
    }
    if (options.rejectCycles ?? true) {
      const cycle = this.findCycle();
      if (cycle) {
        throw new GraphValidationError(
          '$.edges',
          `$.edges: cycle ${cycle.map((i) => at(this.nodes, i).version).join(' -> ')}`,
          { hint: 'an update graph must be acyclic' },
        );
      }
    }
  }

  /** Parses a JSON text (or an already-parsed value) into a validated graph. */
  static parse(input: unknown, options: GraphParseOptions = {}): Graph {
    let value: unknown = input;
    if (typeof input === 'string') {
      try {
        value = JSON.parse(input);
      } catch (err) {
        throw new GraphValidationError('$', (err as Error).message, {
          cause: err,
          hint: 'the graph must be a JSON document',
        });
      }
    }
    return Graph.fromDocument(value, options);
  }

  /** Validates a parsed JSON value. */
  static fromDocument(value: unknown, options: GraphParseOptions = {}): Graph {
    const dialect = options.dialect ?? 'openshift';
    if (!isObject(value)) throw new GraphValidationError('$', `$: graph must be a JSON object, got ${jsonType(value)}`);
    const nodesRaw = field(value, 'nodes');
    const edgesRaw = field(value, 'edges');
    const condRaw = field(value, 'conditionalEdges');
    const verRaw = field(value, 'version');
    const nodes: GraphNode[] = [];
    if (nodesRaw !== undefined && nodesRaw !== null) {
      if (!Array.isArray(nodesRaw))
        throw new GraphValidationError('$.nodes', `$.nodes: must be an array, got ${jsonType(nodesRaw)}`);
      nodesRaw.forEach((n, i) => nodes.push(parseGraphNode(n, `$.nodes[${i}]`, dialect)));
    }
    const edges: [number, number][] = [];
    if (edgesRaw !== undefined && edgesRaw !== null) {
      if (!Array.isArray(edgesRaw))
        throw new GraphValidationError('$.edges', `$.edges: must be an array, got ${jsonType(edgesRaw)}`);
      edgesRaw.forEach((e, i) => {
        const p = `$.edges[${i}]`;
        if (!Array.isArray(e))
          throw new GraphValidationError(p, `${p}: must be an array of two node indices, got ${jsonType(e)}`);
        for (let k = 0; k < e.length; k++) {
          const x: unknown = e[k];
          if (typeof x !== 'number' || !Number.isInteger(x)) {
            throw new GraphValidationError(
              `${p}[${k}]`,
              `${p}[${k}]: node index must be an integer, got ${JSON.stringify(x)}`,
            );
          }
        }
        if (e.length !== 2)
          throw new GraphValidationError(p, `expected 2 fields, found ${e.length}`, {
            hint: `fix ${p}: an edge is [fromIndex, toIndex]`,
          });
        const [a, b] = e as [number, number];
        for (const [k, x] of [
          [0, a],
          [1, b],
        ] as const) {
          if (x < 0 || x >= nodes.length) {
            throw new GraphValidationError(
              `${p}[${k}]`,
              `${p}[${k}]: node index ${x} is out of range (the graph has ${nodes.length} nodes)`,
            );
          }
        }
        edges.push([a, b]);
      });
    }
    const conditionalEdges: ConditionalEdgeGroup[] = [];
    if (condRaw !== undefined && condRaw !== null) {
      if (!Array.isArray(condRaw))
        throw new GraphValidationError('$.conditionalEdges', '$.conditionalEdges: must be an array');
      condRaw.forEach((g, i) => conditionalEdges.push(parseConditionalGroup(g, `$.conditionalEdges[${i}]`)));
    }
    if (verRaw !== undefined && verRaw !== null && typeof verRaw !== 'number') {
      throw new GraphValidationError('$.version', '$.version: must be a number');
    }
    return new Graph(
      { version: typeof verRaw === 'number' ? verRaw : undefined, nodes, edges, conditionalEdges },
      options,
    );
  }

  /** Builds a graph from in-memory parts (validated like a parsed document). */
  static fromParts(doc: GraphDocument, options: GraphParseOptions = {}): Graph {
    return Graph.fromDocument(JSON.parse(JSON.stringify(doc)) as unknown, options);
  }

  /** Index of the node with exactly this version string, or -1. */
  indexOf(version: string): number {
    return this.byVersion.get(version) ?? -1;
  }

  /** The node with exactly this version string. */
  node(version: string): GraphNode | undefined {
    const i = this.byVersion.get(version);
    return i === undefined ? undefined : this.nodes[i];
  }

  /** First node whose version is SemVer-equal (build metadata ignored, like the CVO's `version.EQ`). */
  findBySemver(version: string): number {
    const exact = this.byVersion.get(version);
    if (exact !== undefined) return exact;
    if (this.dialect !== 'openshift') return -1;
    let v: SemVer;
    try {
      v = parseSemver(version);
    } catch {
      return -1;
    }
    for (let i = 0; i < this.semvers.length; i++) {
      const sv = this.semvers[i];
      if (sv && compareSemver(sv, v) === 0) return i;
    }
    return -1;
  }

  /** Index of the first node with this payload, or -1. */
  indexOfPayload(payload: string): number {
    return this.byPayload.get(payload) ?? -1;
  }

  /** Destination indices of the edges leaving node `i`, in document order (duplicates kept). */
  successors(i: number): readonly number[] {
    return this.outIdx[i] ?? [];
  }

  /** Source indices of the edges entering node `i`. */
  predecessors(i: number): readonly number[] {
    return this.inIdx[i] ?? [];
  }

  /** Conditional edges leaving `version`: target version and index into {@link conditionalEdges}. */
  conditionalFrom(version: string): readonly { to: string; group: number }[] {
    if (!this.condFrom) {
      const m = new Map<string, { to: string; group: number }[]>();
      this.conditionalEdges.forEach((g, gi) => {
        for (const e of g.edges) {
          let l = m.get(e.from);
          if (!l) m.set(e.from, (l = []));
          l.push({ to: e.to, group: gi });
        }
      });
      this.condFrom = m;
    }
    return this.condFrom.get(version) ?? [];
  }

  /** Compares nodes `a` and `b` by version (SemVer order for OpenShift, age_index then string for FCOS). */
  compareNodes(a: number, b: number): number {
    const sa = this.semvers[a];
    const sb = this.semvers[b];
    if (sa && sb) return compareSemver(sa, sb);
    const ageA = Number(at(this.nodes, a).metadata['org.fedoraproject.coreos.releases.age_index']);
    const ageB = Number(at(this.nodes, b).metadata['org.fedoraproject.coreos.releases.age_index']);
    if (Number.isFinite(ageA) && Number.isFinite(ageB) && ageA !== ageB) return ageA < ageB ? -1 : 1;
    const va = at(this.nodes, a).version;
    const vb = at(this.nodes, b).version;
    return va < vb ? -1 : va > vb ? 1 : 0;
  }

  /** Parsed SemVer of node `i` (OpenShift dialect only). */
  semverOf(i: number): SemVer | undefined {
    return this.semvers[i];
  }

  /** Returns a cycle as node indices (first repeated at the end), or undefined. Iterative DFS. */
  findCycle(): number[] | undefined {
    const n = this.nodes.length;
    const state = new Uint8Array(n); // 0 new, 1 on stack, 2 done
    const parent = new Int32Array(n).fill(-1);
    const iter = new Int32Array(n);
    for (let s = 0; s < n; s++) {
      if (state[s] !== 0) continue;
      const stack = [s];
      state[s] = 1;
      while (stack.length > 0) {
        const u = stack[stack.length - 1] ?? 0;
        const succ = this.outIdx[u] ?? [];
        const k = iter[u] ?? 0;
        if (k < succ.length) {
          const v = succ[k] ?? 0;
          iter[u] = k + 1;
          if (state[v] === 0) {
            state[v] = 1;
            parent[v] = u;
            stack.push(v);
          } else if (state[v] === 1) {
            const cyc = [v];
            let x = u;
            while (x !== v && x !== -1) {
              cyc.push(x);
              x = at(parent, x);
            }
            cyc.push(v);
            return cyc.reverse();
          }
        } else {
          state[u] = 2;
          stack.pop();
        }
      }
    }
    return undefined;
  }

  /** Serializes back to the Cincinnati JSON document. */
  toDocument(): GraphDocument {
    const doc: GraphDocument = {
      nodes: this.nodes.map((n) => ({ version: n.version, payload: n.payload, metadata: { ...n.metadata } })),
      edges: this.edges.map(([a, b]) => [a, b]),
    };
    if (this.documentVersion !== undefined) doc.version = this.documentVersion;
    if (this.dialect === 'openshift')
      doc.conditionalEdges = this.conditionalEdges.map((g) => ({
        edges: g.edges.map((e) => ({ ...e })),
        risks: g.risks.map((r) => ({ ...r })),
      }));
    return doc;
  }
}
