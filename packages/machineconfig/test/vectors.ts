import { readFileSync } from 'node:fs';
import type { Node } from '@keelson/api';

export interface McoVector {
  name: string;
  function: string;
  source: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

const file = JSON.parse(
  readFileSync(new URL('./fixtures/upstream/vectors/mco-vectors.json', import.meta.url), 'utf8'),
) as { vectors: McoVector[]; constants: { hashSalt: number[] } };

export const mcoVectors = file.vectors;
export const mcoConstants = file.constants;
export const vectorsFor = (prefix: string): McoVector[] => file.vectors.filter((v) => v.function.startsWith(prefix));

/** A node as the vectors describe it. */
export interface VectorNode {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  conditions?: Array<{ type: string; status: 'True' | 'False' | 'Unknown' }>;
  unschedulable?: boolean;
  creationTimestampUnixNano?: number;
}

/** Builds a Node object from a vector node. */
export function toNode(v: VectorNode): Node {
  const node: Node = {
    metadata: { name: v.name, labels: v.labels ?? {}, annotations: v.annotations ?? {} },
    spec: { unschedulable: v.unschedulable ?? false },
    status: { conditions: v.conditions ?? [] },
  };
  if (v.creationTimestampUnixNano !== undefined)
    node.metadata.creationTimestamp = new Date(v.creationTimestampUnixNano / 1e6).toISOString();
  return node;
}
