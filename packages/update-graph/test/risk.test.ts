import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  availableUpdates,
  CachedCondition,
  ConditionRegistry,
  alwaysCondition,
  createRiskRegistry,
  evaluateConditionalUpdates,
  evaluateUntilSettled,
  Graph,
  PromQLCondition,
  type ClusterCondition,
  type ConditionalUpdate,
  type ConditionType,
} from '../src/index.js';
import { makeCerts, readText, serve, serveTls, STABLE_47, type Running } from './helpers.js';

/** A loopback server implementing the Prometheus HTTP API instant-query endpoint. */
function promAnswer(query: string): unknown {
  if (query.startsWith('one'))
    return { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, '1'] }] } };
  if (query.startsWith('zero'))
    return { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, '0'] }] } };
  if (query.startsWith('two-samples'))
    return {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          { metric: {}, value: [1, '1'] },
          { metric: {}, value: [1, '0'] },
        ],
      },
    };
  if (query.startsWith('half'))
    return { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, '0.5'] }] } };
  if (query.startsWith('scalar')) return { status: 'success', data: { resultType: 'scalar', result: [1, '1'] } };
  if (query.startsWith('bad')) return { status: 'error', errorType: 'bad_data', error: 'parse error at char 4' };
  if (query.includes('_id="c1"'))
    return { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [1, '1'] }] } };
  return { status: 'success', data: { resultType: 'vector', result: [] } };
}

describe('PromQL over the Prometheus HTTP API', () => {
  let prom: Running;
  let tlsProm: Running;
  const certs = makeCerts();
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname !== '/api/v1/query' || req.method !== 'GET') {
      res.writeHead(404);
      res.end();
      return;
    }
    if (req.headers['authorization'] !== 'Bearer s3cret') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', errorType: 'unauthorized', error: 'bad token' }));
      return;
    }
    const status = (u.searchParams.get('query') ?? '').startsWith('bad') ? 400 : 200;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(promAnswer(u.searchParams.get('query') ?? '')));
  };
  beforeAll(async () => {
    prom = await serve(handler);
    tlsProm = await serveTls(handler, certs.key, certs.cert);
  });
  afterAll(async () => {
    await prom.close();
    await tlsProm.close();
  });
  const rule = (q: string): ClusterCondition => ({ type: 'PromQL', promql: { promql: q } });

  it('maps 1/0 to match/no match, sends bearer token, GET with query and time', async () => {
    const c = new PromQLCondition({ url: prom.url, token: 's3cret', now: () => 1_700_000_000_000 });
    expect(await c.match(rule('one'))).toBe(true);
    expect(await c.match(rule('zero'))).toBe(false);
    const last = new URL(prom.requests.at(-1)!.url, 'http://x');
    expect(last.searchParams.get('query')).toBe('zero');
    expect(last.searchParams.get('time')).toBe('1700000000.000');
  });
  it('evaluation errors use the CVO messages', async () => {
    const c = new PromQLCondition({ url: prom.url, token: 's3cret' });
    await expect(c.match(rule('two-samples'))).rejects.toThrow('invalid PromQL result length must be one, but is 2');
    await expect(c.match(rule('empty'))).rejects.toThrow('invalid PromQL result length must be one, but is 0');
    await expect(c.match(rule('half'))).rejects.toThrow('invalid PromQL result (must be 0 or 1): 0.5');
    await expect(c.match(rule('scalar'))).rejects.toThrow('invalid PromQL result type is scalar, not vector');
    await expect(c.match(rule('bad'))).rejects.toThrow('executing PromQL query: bad_data: parse error at char 4');
    await expect(new PromQLCondition({ url: prom.url, token: 'wrong' }).match(rule('one'))).rejects.toThrow(
      'executing PromQL query: unauthorized: bad token',
    );
  });
  it('reads the bearer token from a file on every query', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ug-token-'));
    const file = join(dir, 'token');
    writeFileSync(file, 's3cret\n');
    const c = new PromQLCondition({ url: prom.url, tokenFile: file });
    expect(await c.match(rule('one'))).toBe(true);
    writeFileSync(file, 'rotated');
    await expect(c.match(rule('one'))).rejects.toThrow('executing PromQL query: unauthorized: bad token');
    await expect(
      new PromQLCondition({ url: prom.url, tokenFile: join(dir, 'missing') }).match(rule('one')),
    ).rejects.toThrow(/reading bearer token file/);
  });
  it('uses the CA bundle for https and fails with another CA', async () => {
    expect(await new PromQLCondition({ url: tlsProm.url, token: 's3cret', ca: certs.caCert }).match(rule('one'))).toBe(
      true,
    );
    await expect(
      new PromQLCondition({ url: tlsProm.url, token: 's3cret', ca: certs.otherCa }).match(rule('one')),
    ).rejects.toThrow(/executing PromQL query/);
  });

  it('A (1) and B (0) → Recommended=False reason A; 2 samples → Unknown; accepted → True', async () => {
    const reg = createRiskRegistry({ url: prom.url, token: 's3cret' }, { minBetweenMatchesMs: -1 });
    const cu: ConditionalUpdate = {
      release: { version: '4.18.9', image: 'img@sha256:9' },
      risks: [
        { name: 'A', url: 'https://a', message: 'A breaks.', matchingRules: [rule('one-A')] },
        { name: 'B', url: 'https://b', message: 'B breaks.', matchingRules: [rule('zero-B')] },
      ],
    };
    const r = await evaluateConditionalUpdates([cu], {
      registry: reg,
      updates: [{ version: '4.18.9', image: 'img@sha256:9' }],
    });
    expect(r.conditionalUpdates[0]!.conditions[0]).toEqual({
      type: 'Recommended',
      status: 'False',
      reason: 'A',
      message: 'A breaks. https://a',
    });
    expect(r.updates).toEqual([]);
    expect(r.riskConditions['B']).toMatchObject({ status: 'False', reason: 'NotMatch' });
    const accepted = await evaluateConditionalUpdates([cu], { registry: reg, acceptRisks: ['A'] });
    expect(accepted.conditionalUpdates[0]!.conditions[0]).toMatchObject({
      status: 'True',
      reason: 'AllExposedRisksAccepted',
    });
    expect(accepted.updates.map((u) => u.version)).toEqual(['4.18.9']);
    const unknown = await evaluateConditionalUpdates(
      [{ ...cu, risks: [{ name: 'C', url: 'https://c', message: 'C.', matchingRules: [rule('two-samples')] }] }],
      { registry: reg },
    );
    const c = unknown.conditionalUpdates[0]!.conditions[0]!;
    expect([c.status, c.reason]).toEqual(['Unknown', 'EvaluationFailed']);
    expect(c.message).toBe(
      'Could not evaluate exposure to update risk C (invalid PromQL result length must be one, but is 2)\n  C description: C.\n  C URL: https://c',
    );
  });
  it('MultipleReasons, ExposedToRisks for invalid reason names, cluster id injection', async () => {
    const reg = createRiskRegistry({ url: prom.url, token: 's3cret' }, { minBetweenMatchesMs: -1 });
    const two: ConditionalUpdate = {
      release: { version: '4.18.9', image: 'i' },
      risks: [
        { name: 'A', url: 'u1', message: 'm1', matchingRules: [{ type: 'Always' }] },
        { name: 'Bad name!', url: 'u2', message: 'm2', matchingRules: [rule('one')] },
        { name: 'E', url: 'u3', message: 'm3', matchingRules: [rule('bad')] },
      ],
    };
    const r = await evaluateConditionalUpdates([two], { registry: reg });
    expect(r.conditionalUpdates[0]!.conditions[0]).toMatchObject({ status: 'False', reason: 'MultipleReasons' });
    expect(r.conditionalUpdates[0]!.conditions[0]!.message.split('\n\n')).toHaveLength(3);
    const id = await evaluateConditionalUpdates(
      [
        {
          release: { version: '4.1.0', image: 'x' },
          risks: [{ name: 'Id', url: 'u', message: 'm', matchingRules: [rule('x{_id=""}')] }],
        },
      ],
      { registry: reg, clusterId: 'c1' },
    );
    expect(id.riskConditions['Id']!.status).toBe('True');
  });
  it('first rule that evaluates decides; unrecognised rules are skipped', async () => {
    const reg = createRiskRegistry({ url: prom.url, token: 's3cret' }, { minBetweenMatchesMs: -1 });
    expect(await reg.match([{ type: 'Nope' }, rule('bad'), rule('zero'), { type: 'Always' }])).toBe(false);
    await expect(reg.match([rule('bad'), rule('two-samples')])).rejects.toThrow(
      '[executing PromQL query: bad_data: parse error at char 4, invalid PromQL result length must be one, but is 2]',
    );
  });
  it('evaluates the real stable-4.7 conditional update to 4.7.4 against the loopback server', async () => {
    const g = Graph.parse(readText(STABLE_47));
    const av = availableUpdates(g, '4.6.18', { channel: 'stable-4.7' });
    const reg = createRiskRegistry({ url: prom.url, token: 's3cret' }, { minBetweenMatchesMs: -1 });
    const r = await evaluateConditionalUpdates(av.conditionalUpdates, { registry: reg, updates: av.updates });
    const names = av.conditionalUpdates[0]!.risks.map((x) => x.name);
    expect(names).toContain('AuthOAuthProxyLeakedConnections');
    // the loopback server answers an empty vector for these real queries → Unknown
    expect(r.conditionalUpdates[0]!.conditions[0]!.status).toBe('Unknown');
    expect(r.riskOrder).toEqual([...names].sort());
  });
});

describe('CachedCondition throttling (injected clock, counting inner condition)', () => {
  function counting(): ConditionType & { calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      valid: () => undefined,
      match: (r) => {
        calls.push(r.promql!.promql);
        return Promise.resolve(r.promql!.promql === 'yes');
      },
    };
  }
  const rule = (q: string): ClusterCondition => ({ type: 'PromQL', promql: { promql: q } });

  it('one evaluation per second overall; a throttled new query is Unknown until its turn', async () => {
    let now = Date.UTC(2026, 0, 1, 10, 0, 0);
    const inner = counting();
    const cache = new CachedCondition(inner, { now: () => now });
    expect(await cache.match(rule('yes'))).toBe(true);
    await expect(cache.match(rule('no'))).rejects.toThrow('evaluation is throttled until 10:00:01Z');
    expect(inner.calls).toEqual(['yes']);
    now += 1001;
    expect(await cache.match(rule('no'))).toBe(false);
    expect(inner.calls).toEqual(['yes', 'no']);
  });
  it('reuses results for an hour; each allowed evaluation goes to the most stale queued query', async () => {
    const t0 = Date.UTC(2026, 0, 1, 10, 0, 0);
    let now = t0;
    const inner = counting();
    const slow: ConditionType = {
      valid: () => undefined,
      match: async (r) => {
        const x = await inner.match(r);
        now += 10;
        return x;
      },
    };
    const cache = new CachedCondition(slow, { now: () => now });
    expect(await cache.match(rule('yes'))).toBe(true);
    now = t0 + 100;
    await expect(cache.match(rule('b'))).rejects.toThrow(/throttled/);
    now = t0 + 200;
    expect(await cache.match(rule('yes'))).toBe(true); // throttled but cached
    now = t0 + 1500;
    expect(await cache.match(rule('yes'))).toBe(true); // b (never evaluated) steals this evaluation
    expect(inner.calls).toEqual(['yes', 'b']);
    now = t0 + 1600;
    expect(await cache.match(rule('b'))).toBe(false); // from cache
    now = t0 + 3000;
    expect(await cache.match(rule('yes'))).toBe(true);
    expect(inner.calls).toEqual(['yes', 'b']); // most stale entry is younger than an hour
    now = t0 + 3000 + 3_600_000;
    expect(await cache.match(rule('yes'))).toBe(true);
    expect(inner.calls).toEqual(['yes', 'b', 'yes']);
  });
  it('evaluateUntilSettled re-evaluates every second until no risk is throttled (CVO requeue)', async () => {
    let now = Date.UTC(2026, 0, 1, 10, 0, 0);
    const inner = counting();
    const reg = new ConditionRegistry()
      .register('Always', alwaysCondition)
      .register('PromQL', new CachedCondition(inner, { now: () => now }));
    const cus: ConditionalUpdate[] = ['yes', 'no', 'other'].map((q, i) => ({
      release: { version: `4.1.${i + 1}`, image: `img${i}` },
      risks: [{ name: `R${i}`, url: 'u', message: 'm', matchingRules: [rule(q)] }],
    }));
    const first = await evaluateConditionalUpdates(cus, { registry: reg });
    expect(Object.values(first.riskConditions).filter((c) => c.status === 'Unknown')).toHaveLength(2);
    const sleeps: number[] = [];
    const settled = await evaluateUntilSettled(cus, {
      registry: reg,
      sleep: (ms) => {
        sleeps.push(ms);
        now += ms + 1;
        return Promise.resolve();
      },
    });
    expect(settled.attempts).toBe(3);
    expect(sleeps).toEqual([1000, 1000]);
    expect(
      Object.values(settled.riskConditions)
        .map((c) => c.status)
        .sort(),
    ).toEqual(['False', 'False', 'True']);
    expect(settled.conditionalUpdates.map((c) => c.conditions[0]!.reason)).toEqual([
      'R0',
      'NotExposedToRisks',
      'NotExposedToRisks',
    ]);
  });
  it('expires entries after 24 h', async () => {
    let now = Date.UTC(2026, 0, 1, 10, 0, 0);
    const cache = new CachedCondition(counting(), { now: () => now });
    await cache.match(rule('a'));
    expect(cache.size).toBe(1);
    now += 86_400_001 + 2000;
    await cache.match(rule('b'));
    expect(cache.size).toBe(1);
  });
  it('registry refuses double registration of a different implementation', () => {
    const reg = new ConditionRegistry().register('Always', alwaysCondition);
    expect(() => reg.register('Always', { valid: () => undefined, match: () => Promise.resolve(true) })).toThrow(
      /already registered/,
    );
  });
});
