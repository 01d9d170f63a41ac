import type { GraphDocument } from '../src/index.js';

/**
 * A synthetic OpenShift-like graph: `minors` minors × `patches` patches (5,000 nodes by default).
 * Within a minor each patch updates to the next 8 patches; the last 20 patches of a minor update to the
 * 10 newest patches of the next minor; every 7th cross-minor edge is conditional (one PromQL risk).
 */
export function syntheticGraph(minors = 50, patches = 100): GraphDocument {
  const nodes: GraphDocument['nodes'] = [];
  const edges: [number, number][] = [];
  const cond: { from: string; to: string }[] = [];
  const id = (m: number, p: number): number => m * patches + p;
  for (let m = 0; m < minors; m++) {
    for (let p = 0; p < patches; p++) {
      const v = `4.${m}.${p}`;
      nodes.push({
        version: v,
        payload: `quay.io/openshift-release-dev/ocp-release@sha256:${(m * patches + p).toString(16).padStart(64, '0')}`,
        metadata: {
          'io.openshift.upgrades.graph.release.channels': `stable-4.${m},stable-4.${m + 1}`,
          url: `https://errata/${v}`,
        },
      });
    }
  }
  let k = 0;
  for (let m = 0; m < minors; m++) {
    for (let p = 0; p < patches; p++) {
      for (let q = p + 1; q <= Math.min(patches - 1, p + 8); q++) edges.push([id(m, p), id(m, q)]);
      if (m + 1 < minors && p >= patches - 20) {
        for (let q = patches - 10; q < patches; q++) {
          if (k++ % 7 === 0) cond.push({ from: `4.${m}.${p}`, to: `4.${m + 1}.${q}` });
          else edges.push([id(m, p), id(m + 1, q)]);
        }
      }
    }
  }
  return {
    version: 1,
    nodes,
    edges,
    conditionalEdges: [
      {
        edges: cond,
        risks: [
          {
            name: 'SyntheticRisk',
            url: 'https://example.com/r',
            message: 'synthetic',
            matchingRules: [{ type: 'PromQL', promql: { promql: 'vector(0)' } }],
          },
        ],
      },
    ],
  };
}
