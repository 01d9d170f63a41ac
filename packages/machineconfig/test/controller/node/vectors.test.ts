import { describe, expect, it } from 'vitest';
import type { MachineConfigPool } from '@keelson/api';
import { getPoolsForNode, NodePoolAssignmentError } from '../../../src/controller/node/pools-for-node.js';
import { isNodeReady, isNodeUnavailable, type PoolTarget } from '../../../src/controller/node/node-state.js';
import {
  computeCandidates,
  computeMaxUnavailable,
  sortNodesByZoneAndAge,
} from '../../../src/controller/node/rollout.js';
import { computePoolStatus } from '../../../src/controller/node/status.js';
import { toNode, vectorsFor, type VectorNode } from '../../vectors.js';

const names = (ns: Array<{ metadata: { name?: string } }>): string[] => ns.map((n) => n.metadata.name ?? '');

describe('node.maxUnavailable vectors', () => {
  it.each(vectorsFor('node.maxUnavailable').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const i = v.input as { poolName: string; maxUnavailable: number | string | null; nodeCount: number };
    if (v.expected['error'] === true)
      expect(() => computeMaxUnavailable(i.poolName, i.maxUnavailable, i.nodeCount)).toThrow(
        /must be an integer or a percentage/,
      );
    else expect(computeMaxUnavailable(i.poolName, i.maxUnavailable, i.nodeCount)).toBe(v.expected['value']);
  });
});

describe('node.getAllCandidateMachines vectors', () => {
  it.each(vectorsFor('node.getAllCandidateMachines').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const i = v.input as {
      layered: boolean;
      pool: { configurationName: string };
      maxUnavailable: number;
      nodes: VectorNode[];
      machineOSConfig?: { currentImagePullspec: string };
      machineOSBuild?: { desiredConfig: string };
    };
    const target: PoolTarget = i.layered
      ? {
          config: i.pool.configurationName,
          layered: {
            image: i.machineOSConfig?.currentImagePullspec ?? '',
            buildConfig: i.machineOSBuild?.desiredConfig ?? '',
          },
        }
      : { config: i.pool.configurationName };
    const r = computeCandidates(i.nodes.map(toNode), target, i.maxUnavailable);
    expect(names(r.candidates)).toEqual(v.expected['candidates']);
    expect(r.capacity).toBe(v.expected['capacity']);
  });
});

describe('node.getUnavailableMachines / IsNodeReady vectors', () => {
  it.each(vectorsFor('node.getUnavailableMachines').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const nodes = (v.input['nodes'] as VectorNode[]).map(toNode);
    expect(names(nodes.filter(isNodeUnavailable))).toEqual(v.expected['unavailable']);
  });
  it.each(vectorsFor('LayeredNodeState.IsNodeReady').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const nodes = (v.input['nodes'] as VectorNode[]).map(toNode);
    expect(names(nodes.filter(isNodeReady))).toEqual(v.expected['ready']);
  });
});

describe('node.sortNodeList vectors', () => {
  it.each(vectorsFor('node.sortNodeList').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    expect(names(sortNodesByZoneAndAge((v.input['nodes'] as VectorNode[]).map(toNode)))).toEqual(v.expected['order']);
  });
});

describe('node.calculateStatus vectors', () => {
  it.each(vectorsFor('node.calculateStatus').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const p = v.input['pool'] as { specConfigurationName: string; paused: boolean };
    const pool: MachineConfigPool = {
      metadata: { name: 'pool' },
      spec: { paused: p.paused, configuration: { name: p.specConfigurationName } },
    };
    const { status } = computePoolStatus(
      pool,
      (v.input['nodes'] as VectorNode[]).map(toNode),
      { config: p.specConfigurationName },
      new Date(0),
    );
    const e = v.expected as Record<string, unknown> & { conditions: Record<string, string> };
    for (const k of [
      'machineCount',
      'updatedMachineCount',
      'readyMachineCount',
      'unavailableMachineCount',
      'degradedMachineCount',
    ] as const)
      expect(status[k], k).toBe(e[k]);
    for (const [type, st] of Object.entries(e.conditions))
      expect(status.conditions?.find((c) => c.type === type)?.status, type).toBe(st);
    if (e.conditions['Updated'] === 'True') expect(status.configuration?.name).toBe(p.specConfigurationName);
  });
});

describe('helpers.GetPoolsForNode vectors', () => {
  it.each(vectorsFor('helpers.GetPoolsForNode').map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const i = v.input as {
      pools: Array<{ name: string; nodeSelector: { matchLabels: Record<string, string> } }>;
      node: VectorNode;
    };
    const pools: MachineConfigPool[] = i.pools.map((p) => ({
      metadata: { name: p.name },
      spec: { nodeSelector: p.nodeSelector },
    }));
    const node = toNode(i.node);
    if (typeof v.expected['error'] === 'string') {
      expect(() => getPoolsForNode(pools, node)).toThrow(NodePoolAssignmentError);
      expect(() => getPoolsForNode(pools, node)).toThrow(v.expected['error']);
      return;
    }
    const r = getPoolsForNode(pools, node);
    expect(r ? names(r.pools) : null).toEqual(v.expected['pools']);
    expect(r?.pools[0]?.metadata.name ?? null).toBe(v.expected['primaryPool']);
  });
});
