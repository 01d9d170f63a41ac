/**
 * The run levels of a release in the order the CVO applies them, with the ClusterOperators each waits for: the
 * rehearsal's report and `keelson upgrade plan` both show them.
 */
import { byNumberAndComponent, createTask, RUN_LEVEL_COMPONENT_PATTERN, TaskGraph } from '@keelson/manifest-graph';
import { filterManifests, type ClusterFacts, type Manifest, type ReleasePayload } from '@keelson/release-payload';

/** One run level in the order the CVO applies it. */
export interface RunLevelPlan {
  level: string;
  /** Manifests applied at this level (deletions included). */
  manifests: number;
  /** ClusterOperators waited for at this level, in apply order, with the versions they report. */
  operators: { name: string; from: string | null; to: string | null }[];
}

function operatorVersion(m: Manifest | undefined): string | null {
  const versions = ((m?.object['status'] as { versions?: { name?: unknown; version?: unknown }[] } | undefined)
    ?.versions ?? []) as { name?: unknown; version?: unknown }[];
  const v = versions.find((x) => x.name === 'operator')?.version;
  return typeof v === 'string' ? v : null;
}

/** Run levels of B in CVO apply order (ByNumberAndComponent over the included manifests). */
export function computeRunLevels(from: ReleasePayload, to: ReleasePayload, facts?: ClusterFacts): RunLevelPlan[] {
  const included = filterManifests(to, facts).included;
  const tasks = included.map((m, i) =>
    createTask({
      filename: m.filename,
      group: m.gvk.group,
      version: m.gvk.version,
      kind: m.gvk.kind,
      namespace: m.namespace,
      name: m.name,
      index: i + 1,
      total: included.length,
      data: m,
    }),
  );
  const graph = new TaskGraph(tasks).splitOnJobs().parallelize(byNumberAndComponent);
  const fromOperators = new Map(from.manifests.filter((m) => m.gvk.kind === 'ClusterOperator').map((m) => [m.name, m]));
  const levels: RunLevelPlan[] = [];
  for (const node of graph.nodes) {
    for (const task of node.tasks) {
      const level = RUN_LEVEL_COMPONENT_PATTERN.exec(task.filename)?.[1] ?? '(none)';
      let entry = levels.find((l) => l.level === level);
      if (entry === undefined) {
        entry = { level, manifests: 0, operators: [] };
        levels.push(entry);
      }
      entry.manifests++;
      const m = task.data;
      if (m !== undefined && m.gvk.kind === 'ClusterOperator')
        entry.operators.push({
          name: m.name,
          from: operatorVersion(fromOperators.get(m.name)),
          to: operatorVersion(m),
        });
    }
  }
  return levels;
}
