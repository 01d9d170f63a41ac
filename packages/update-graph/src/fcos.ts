/**
 * Fedora CoreOS dialect: rollout throttling and dead-ends (fcos-policy-engine) and Zincati's update pick.
 */
import { createHash } from 'node:crypto';
import type { Graph, GraphDocument } from './graph.js';
import { at } from './util.js';

const P = 'org.fedoraproject.coreos';
/** FCOS metadata keys. */
export const FCOS_KEYS = {
  ageIndex: `${P}.releases.age_index`,
  scheme: `${P}.scheme`,
  rollout: `${P}.updates.rollout`,
  startEpoch: `${P}.updates.start_epoch`,
  startValue: `${P}.updates.start_value`,
  duration: `${P}.updates.duration_minutes`,
  deadend: `${P}.updates.deadend`,
  deadendReason: `${P}.updates.deadend_reason`,
} as const;

/** Rollout progress (0–1) of a node's metadata at `nowSec`; undefined when the node is not being rolled out. */
export function rolloutProgress(metadata: Readonly<Record<string, unknown>>, nowSec: number): number | undefined {
  if (!(FCOS_KEYS.rollout in metadata)) return undefined;
  const text = (k: string): string | undefined => {
    const v = metadata[k];
    return typeof v === 'string' ? v : undefined;
  };
  const epoch = Number.parseInt(text(FCOS_KEYS.startEpoch) ?? '0', 10) || 0;
  const startRaw = Number.parseFloat(text(FCOS_KEYS.startValue) ?? '0');
  const start = Number.isFinite(startRaw) ? startRaw : 0;
  const minsRaw = text(FCOS_KEYS.duration);
  const mins = minsRaw !== undefined && /^\d+$/.test(minsRaw) ? Math.max(1, Number(minsRaw)) : undefined;
  if (mins === undefined) return nowSec < epoch ? 0 : start;
  const end = epoch + mins * 60;
  if (nowSec < epoch) return 0;
  if (nowSec > end) return 1;
  return start + ((1 - start) / (end - epoch)) * (nowSec - epoch);
}

/** Client wariness: the given value clamped to 0–1, else derived from the node UUID (hash scaled into (0, 1]). */
export function computeWariness(rolloutWariness: string | undefined, nodeUuid: string | undefined): number {
  if (rolloutWariness !== undefined) {
    const v = Number.parseFloat(rolloutWariness);
    if (Number.isFinite(v)) return Math.min(1, Math.max(0, v));
  }
  const digest = createHash('sha256')
    .update(nodeUuid ?? '')
    .digest();
  const scaled = Number(digest.readBigUInt64BE(0)) / Number(2n ** 64n - 1n);
  return Math.min(1, Math.max(0.000001, scaled));
}

/** fcos-policy-engine: drop edges into throttled rollouts (wariness above progress), then edges out of dead-ends. */
export function applyFcosPolicy(doc: GraphDocument, wariness: number, nowSec: number): GraphDocument {
  const hidden = new Set<number>();
  const dead = new Set<number>();
  doc.nodes.forEach((n, i) => {
    const p = rolloutProgress(n.metadata, nowSec);
    if (p !== undefined && wariness > p) hidden.add(i);
    if (n.metadata[FCOS_KEYS.deadend] === 'true') dead.add(i);
  });
  return { nodes: doc.nodes, edges: doc.edges.filter(([a, b]) => !hidden.has(b) && !dead.has(a)) };
}

/** Result of {@link pickFcosUpdate}. */
export interface FcosUpdateChoice {
  /** Newest allowed target by age_index, if any. */
  target: { version: string; payload: string } | undefined;
  /** The booted node is a dead-end (Zincati writes a MOTD). */
  deadend: boolean;
  deadendReason: string | undefined;
}

/**
 * Zincati's pick: find the booted node by payload, collect edge targets, drop deny-listed payloads/versions,
 * take the newest by age_index.
 */
export function pickFcosUpdate(graph: Graph, bootedPayload: string, denylist: Iterable<string> = []): FcosUpdateChoice {
  const deny = new Set(denylist);
  const i = graph.indexOfPayload(bootedPayload);
  if (i < 0) return { target: undefined, deadend: false, deadendReason: undefined };
  const booted = at(graph.nodes, i);
  const deadend = booted.metadata[FCOS_KEYS.deadend] === 'true';
  const reason = booted.metadata[FCOS_KEYS.deadendReason];
  let best = -1;
  for (const t of graph.successors(i)) {
    const n = at(graph.nodes, t);
    if (deny.has(n.payload) || deny.has(n.version)) continue;
    const age = Number(n.metadata[FCOS_KEYS.ageIndex]);
    if (!Number.isFinite(age)) continue;
    if (best < 0 || age > Number(at(graph.nodes, best).metadata[FCOS_KEYS.ageIndex])) best = t;
  }
  return {
    target: best < 0 ? undefined : { version: at(graph.nodes, best).version, payload: at(graph.nodes, best).payload },
    deadend,
    deadendReason: typeof reason === 'string' ? reason : undefined,
  };
}
