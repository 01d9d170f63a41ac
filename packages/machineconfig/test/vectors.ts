import { readFileSync } from 'node:fs';

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
