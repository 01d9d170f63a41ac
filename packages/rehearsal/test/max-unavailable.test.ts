/** `--max-unavailable` parsing, maxUnavailable scaling as the MCO does it, custom pools, and the restart decision. */
import { describe, expect, it } from 'vitest';
import { MaxUnavailableSpecError, parseMaxUnavailable, scaledMaxUnavailable } from '../src/max-unavailable.js';
import { customPool } from '../src/cluster-bootstrap.js';
import { decideRestarts } from '../src/supervise.js';
import { poolView } from '../src/timeline.js';

const POOLS = ['master', 'worker', 'infra'];

describe('parseMaxUnavailable', () => {
  it('turns POOL=N into a count and POOL=N% into the percentage string the API stores', () => {
    expect(parseMaxUnavailable(['worker=10%', 'master=2'], POOLS)).toEqual({ worker: '10%', master: 2 });
    expect(parseMaxUnavailable(['worker=0,infra=100%'], POOLS)).toEqual({ worker: 0, infra: '100%' });
    expect(parseMaxUnavailable([], POOLS)).toEqual({});
  });

  it('refuses what the MCO would refuse or cannot be a count', () => {
    for (const bad of [
      'worker=-1',
      'worker=1.5',
      'worker=10 %',
      'worker=ten',
      'worker=%',
      'worker=',
      'worker',
      '=3',
      'Worker=1',
      'worker=12345678',
    ]) {
      let err: unknown;
      try {
        parseMaxUnavailable([bad], POOLS);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(MaxUnavailableSpecError);
      expect((err as MaxUnavailableSpecError).code, bad).toBe('REHEARSAL_MAX_UNAVAILABLE_SYNTAX');
      expect((err as MaxUnavailableSpecError).message, bad).toContain(`--max-unavailable ${bad}:`);
    }
  });

  it('refuses a pool the rehearsal does not have, and a pool given twice', () => {
    expect(() => parseMaxUnavailable(['gpu=1'], POOLS)).toThrow(
      /no pool gpu \(pools: master, worker, infra; add custom pools with --pools gpu=N\)/,
    );
    expect(() => parseMaxUnavailable(['worker=1', 'worker=10%'], POOLS)).toThrow(
      expect.objectContaining({ code: 'REHEARSAL_MAX_UNAVAILABLE_DUPLICATE' }) as Error,
    );
  });
});

describe('scaledMaxUnavailable (the machine-config-controller maxUnavailable())', () => {
  it.each([
    [undefined, 4, 1],
    [2, 4, 2],
    [7, 4, 7], // a count is not capped by the pool size
    [0, 4, 1],
    ['0%', 300, 1],
    ['50%', 4, 2],
    ['60%', 4, 2], // rounded down: roundUp=false
    ['10%', 5, 1],
    ['10%', 300, 30],
    ['15%', 303, 45],
    ['9%', 10, 1], // 0.9 → 0 → 1
  ])('%j of %i nodes → %i', (value, nodes, want) => {
    expect(scaledMaxUnavailable(value, nodes)).toBe(want);
  });

  it('gives the strings the MCO refuses (it then updates no node) and negative counts a limit of 0', () => {
    for (const v of ['60', '50 percent', '40 %', 'x']) expect(scaledMaxUnavailable(v, 4), v).toBe(0);
    expect(scaledMaxUnavailable(-2, 4)).toBe(0);
  });

  it('always gives the arbiter pool 1', () => {
    expect(scaledMaxUnavailable('50%', 10, 'arbiter')).toBe(1);
  });

  it('is what the pool view reports, scaled by the pool machine count', () => {
    expect(
      poolView({ metadata: { name: 'worker' }, spec: { maxUnavailable: '10%' }, status: { machineCount: 300 } })
        .maxUnavailable,
    ).toBe(30);
    expect(
      poolView({ metadata: { name: 'worker' }, spec: { maxUnavailable: '60' }, status: { machineCount: 300 } })
        .maxUnavailable,
    ).toBe(0);
  });
});

describe('customPool', () => {
  it('defines a custom pool as the OpenShift documentation does, with maxUnavailable when given', () => {
    expect(customPool('infra', '25%')).toEqual({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'infra' },
      spec: {
        machineConfigSelector: {
          matchExpressions: [
            { key: 'machineconfiguration.openshift.io/role', operator: 'In', values: ['worker', 'infra'] },
          ],
        },
        nodeSelector: { matchLabels: { 'node-role.kubernetes.io/infra': '' } },
        maxUnavailable: '25%',
      },
    });
    expect(customPool('infra').spec).not.toHaveProperty('maxUnavailable');
  });
});

describe('decideRestarts', () => {
  it('restarts a component that held its Lease and lost it, once', () => {
    const s1 = decideRestarts(
      new Set<string>(),
      new Map([
        ['cvo', true],
        ['mco', true],
      ]),
    );
    expect(s1).toEqual({ restart: [], led: new Set(['cvo', 'mco']) });
    const s2 = decideRestarts(
      s1.led,
      new Map([
        ['cvo', false],
        ['mco', true],
      ]),
    );
    expect(s2).toEqual({ restart: ['cvo'], led: new Set(['mco']) });
    // the restarted one campaigns like a new pod: not restarted again until it has led
    const s3 = decideRestarts(
      s2.led,
      new Map([
        ['cvo', false],
        ['mco', true],
      ]),
    );
    expect(s3.restart).toEqual([]);
    const s4 = decideRestarts(decideRestarts(s3.led, new Map([['cvo', true]])).led, new Map([['cvo', false]]));
    expect(s4.restart).toEqual(['cvo']);
  });

  it('leaves alone a component that never led, and one that cannot tell', () => {
    expect(decideRestarts(new Set<string>(), new Map([['cvo', false]])).restart).toEqual([]);
    const led = new Set(['cvo']);
    expect(decideRestarts(led, new Map([['cvo', undefined]]))).toEqual({ restart: [], led: new Set(['cvo']) });
  });

  it('restarts a component whose process exited, whether or not it was seen leading (the kubelet restarts any exit)', () => {
    // a CVO killed 0.1-1.5 s after `became leader`: between two supervisor passes, never seen leading
    const s1 = decideRestarts(new Set<string>(), new Map([['cvo', false]]), new Map([['cvo', true]]));
    expect(s1).toEqual({ restart: ['cvo'], led: new Set() });
    const s2 = decideRestarts(new Set(['cvo']), new Map([['cvo', undefined]]), new Map([['cvo', true]]));
    expect(s2).toEqual({ restart: ['cvo'], led: new Set() });
    expect(decideRestarts(new Set<string>(), new Map([['cvo', false]]), new Map([['cvo', false]])).restart).toEqual([]);
  });

  it('does not change the set it was given', () => {
    const led = new Set(['cvo']);
    decideRestarts(led, new Map([['cvo', false]]));
    expect([...led]).toEqual(['cvo']);
  });
});
