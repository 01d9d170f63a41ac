/**
 * `availableUpdates`: the CVO's interpretation of a graph for one cluster version
 * (pkg/cincinnati GetUpdates after the download).
 */
import { UpdateRetrievalError } from './errors.js';
import { Graph, type ClusterCondition, type ConditionalUpdateRisk, type GraphNode } from './graph.js';
import { defaultConditionRegistry, type ConditionRegistry } from './risk.js';
import { formatSemver, parseSemver } from './semver.js';
import { at, must } from './util.js';

/** A release as the CVO publishes it (configv1.Release; empty fields omitted). */
export interface Release {
  version: string;
  image: string;
  url?: string;
  architecture?: 'Multi';
  channels?: string[];
}

/** A conditional update (configv1.ConditionalUpdate without conditions). */
export interface ConditionalUpdate {
  release: Release;
  risks: ConditionalUpdateRisk[];
}

function hasControlChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Result of {@link availableUpdates}. Empty arrays where the CVO has nil. */
export interface AvailableUpdates {
  /** The current release as found in the graph. */
  current: Release;
  /** Recommended updates, in edge order (duplicates kept, like the CVO). */
  updates: Release[];
  /** Conditional updates, after pruning. */
  conditionalUpdates: ConditionalUpdate[];
  /** Warnings the CVO would log (pruned rules, dropped targets, overlaps). */
  warnings: string[];
}

/** Options of {@link availableUpdates}. */
export interface AvailableUpdatesOptions {
  /** Channel name (only used in the VersionNotFound message). */
  readonly channel?: string;
  /** Architecture the cluster wants (`Multi` for heterogeneous). Default: same as currentArch. */
  readonly desiredArch?: string;
  /** Architecture the cluster runs. Default `amd64`. */
  readonly currentArch?: string;
  /** Registry used to prune unknown/invalid matching rules. Default: Always + PromQL validation. */
  readonly registry?: ConditionRegistry;
}

/**
 * Parses node metadata like the CVO's ParseMetadata: `url`, `release.openshift.io/architecture`
 * (only `multi`), `io.openshift.upgrades.graph.release.channels` (comma list, sorted).
 * Returns the partial release and the errors joined with newlines (undefined when none).
 */
export function parseReleaseMetadata(metadata: Readonly<Record<string, unknown>>): {
  release: Omit<Release, 'version' | 'image'>;
  error: string | undefined;
} {
  const release: Omit<Release, 'version' | 'image'> = {};
  const errs: string[] = [];
  if ('url' in metadata) {
    const u = metadata['url'];
    if (typeof u === 'string') {
      if (hasControlChar(u))
        errs.push(`invalid release URL: parse ${JSON.stringify(u)}: net/url: invalid control character in URL`);
      else if (u !== '') release.url = u;
    } else {
      errs.push(`URL is not a string: ${String(u)}`);
    }
  }
  if ('release.openshift.io/architecture' in metadata) {
    const a = metadata['release.openshift.io/architecture'];
    if (typeof a === 'string') {
      if (a === 'multi') release.architecture = 'Multi';
      else errs.push(`unrecognized release.openshift.io/architecture value ${JSON.stringify(a)}`);
    } else {
      errs.push(`release.openshift.io/architecture is not a string: ${String(a)}`);
    }
  }
  if ('io.openshift.upgrades.graph.release.channels' in metadata) {
    const c = metadata['io.openshift.upgrades.graph.release.channels'];
    if (typeof c === 'string') {
      if (c.length === 0) {
        errs.push('io.openshift.upgrades.graph.release.channels is an empty string');
      } else {
        const channels = c.split(',');
        for (let i = channels.length - 1; i >= 0; i--) {
          if (at(channels, i).length === 0) {
            errs.push(
              `io.openshift.upgrades.graph.release.channels entry ${i} is an empty string: ${JSON.stringify(c)}`,
            );
            channels.splice(i, 1);
          }
        }
        if (channels.length === 0)
          errs.push(`no non-empty channels in io.openshift.upgrades.graph.release.channels ${JSON.stringify(c)}`);
        else release.channels = channels.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      }
    } else {
      errs.push(`io.openshift.upgrades.graph.release.channels is not a string: ${String(c)}`);
    }
  }
  return { release, error: errs.length > 0 ? errs.join('\n') : undefined };
}

/** Converts a node into a Release, throwing ResponseInvalid (`<what>: <error>`) on bad metadata. */
export function nodeToRelease(node: GraphNode, what?: string): Release {
  const { release, error } = parseReleaseMetadata(node.metadata);
  if (error !== undefined && what !== undefined) throw new UpdateRetrievalError('ResponseInvalid', `${what}: ${error}`);
  return { version: node.version, image: node.payload, ...release };
}

function cloneRisk(r: ConditionalUpdateRisk): ConditionalUpdateRisk & { matchingRules: ClusterCondition[] } {
  return { url: r.url, name: r.name, message: r.message, matchingRules: r.matchingRules.map((m) => ({ ...m })) };
}

/**
 * Computes `{ current, updates, conditionalUpdates }` for `currentVersion` with the CVO's rules:
 * targets of edges from the current node; conditional edges whose `from` equals the current version;
 * a target that is both is kept only as conditional; unknown/invalid matching rules pruned (a risk left
 * without rules drops the target); a target declared by several conditional entries dropped entirely;
 * a single-arch cluster switching to `Multi` only gets the multi variant of its current version.
 * Throws {@link UpdateRetrievalError} (`VersionNotFound`, `ResponseInvalid`).
 */
export function availableUpdates(
  graph: Graph,
  currentVersion: string,
  options: AvailableUpdatesOptions = {},
): AvailableUpdates {
  const registry = options.registry ?? defaultConditionRegistry();
  const currentArch = options.currentArch ?? 'amd64';
  const desiredArch = options.desiredArch ?? currentArch;
  const warnings: string[] = [];
  let canonical = currentVersion;
  try {
    canonical = formatSemver(parseSemver(currentVersion));
  } catch {
    /* FCOS or invalid: use as is */
  }
  const currentIdx = graph.findBySemver(currentVersion);
  if (currentIdx < 0) {
    throw new UpdateRetrievalError(
      'VersionNotFound',
      `currently reconciling cluster version ${canonical} not found in the ${JSON.stringify(options.channel ?? '')} channel`,
      {
        hint: 'check the channel: it must list the version the cluster runs (oc adm upgrade channel <channel>)',
      },
    );
  }
  const current = nodeToRelease(at(graph.nodes, currentIdx), 'invalid current node');
  if (desiredArch === 'Multi' && currentArch !== desiredArch) {
    return { current, updates: [current], conditionalUpdates: [], warnings };
  }
  let updates = graph
    .successors(currentIdx)
    .map((i) => nodeToRelease(at(graph.nodes, i), 'invalid recommended update node'));
  let conditional: { release: Release; risks: (ConditionalUpdateRisk & { matchingRules: ClusterCondition[] })[] }[] =
    [];
  for (const { to, group } of graph.conditionalFrom(canonical)) {
    const ti = graph.indexOf(to);
    if (ti < 0) throw new UpdateRetrievalError('ResponseInvalid', `no node for conditional update ${to}`);
    const release = nodeToRelease(at(graph.nodes, ti), 'invalid conditional update node');
    conditional.push({ release, risks: at(graph.conditionalEdges, group).risks.map(cloneRisk) });
  }
  const condImages = new Set(conditional.map((c) => c.release.image));
  updates = updates.filter((u) => {
    if (!condImages.has(u.image)) return true;
    warnings.push(
      `Update to ${u.version} listed as both a conditional and unconditional update; preferring the conditional update.`,
    );
    return false;
  });
  conditional = conditional.filter((cu) => {
    for (const risk of cu.risks) {
      const { valid, errors } = registry.pruneInvalid(risk.matchingRules);
      risk.matchingRules = valid;
      if (valid.length === 0) {
        warnings.push(
          `Conditional update to ${cu.release.version}, risk ${JSON.stringify(risk.name)}, has empty pruned matchingRules; dropping this target. Pruning results: ${errors ?? ''}`,
        );
        return false;
      }
      if (errors !== undefined)
        warnings.push(
          `Conditional update to ${cu.release.version}, risk ${JSON.stringify(risk.name)}, has pruned matchingRules: ${errors}`,
        );
    }
    return true;
  });
  const counts = new Map<string, number>();
  for (const cu of conditional) counts.set(cu.release.image, (counts.get(cu.release.image) ?? 0) + 1);
  conditional = conditional.filter((cu) => {
    const n = must(counts.get(cu.release.image), 'counts entry');
    if (n > 1) {
      warnings.push(`Upstream declares ${n} conditional updates to ${cu.release.version}; dropping them all.`);
      return false;
    }
    return true;
  });
  return { current, updates, conditionalUpdates: conditional, warnings };
}
