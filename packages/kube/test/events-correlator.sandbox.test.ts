/**
 * The EventRecorder's EventCorrelator behaviours (client-go `tools/record/events_cache.go`) against the sandbox:
 * similar events combined from the 10th distinct message, the spam filter's burst of 25 per object and its refill,
 * and the refill on a compressed clock (`clockRate`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterOperators, COMBINED_EVENTS_PREFIX, EventRecorder, Events, type CoreEvent } from '../src/index.js';
import { CO_CRD, installCrd, sandboxWithClient } from './helpers.js';

let env: Awaited<ReturnType<typeof sandboxWithClient>>;
beforeAll(async () => {
  env = await sandboxWithClient();
  await installCrd(env.client, CO_CRD, 'clusteroperators', 'config.openshift.io');
});
afterAll(async () => env.stop());

async function target(name: string) {
  const co = await env.client.resource(ClusterOperators).create({ metadata: { name }, spec: {} });
  return { ...co, apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator' };
}
async function eventsOf(name: string): Promise<CoreEvent[]> {
  const list = await env.client.resource(Events).list({ namespace: 'default' });
  return list.items.filter((e) => e.involvedObject.name === name);
}

describe('EventRecorder correlator (client-go EventCorrelator)', () => {
  it('combines similar events from the 10th distinct message on, into one patched Event', async () => {
    const co = await target('similar');
    const rec = new EventRecorder(env.client, { component: 'keelson-test' });
    for (let i = 1; i <= 12; i++) await rec.normal(co, 'Progressing', `step ${i}`);
    const events = await eventsOf('similar');
    // nine on their own, then one combined Event patched with each later message
    expect(events.filter((e) => !(e.message ?? '').startsWith(COMBINED_EVENTS_PREFIX))).toHaveLength(9);
    const combined = events.filter((e) => (e.message ?? '').startsWith(COMBINED_EVENTS_PREFIX));
    expect(combined.map((e) => [e.message, e.count])).toEqual([[`${COMBINED_EVENTS_PREFIX}step 12`, 3]]);
    // another reason on the same object is counted apart
    await rec.normal(co, 'Done', 'all done');
    expect((await eventsOf('similar')).some((e) => e.reason === 'Done' && e.message === 'all done')).toBe(true);
  });

  it('drops writes past a burst of 25 per source and object; the bucket refills one event per 5 minutes', async () => {
    const co = await target('spam');
    let now = Date.parse('2026-11-27T00:00:00Z');
    const rec = new EventRecorder(env.client, { component: 'keelson-test', now: () => now });
    for (let i = 0; i < 30; i++) await rec.warning(co, `Reason${i}`, 'x');
    expect(await eventsOf('spam')).toHaveLength(25);
    expect(rec.dropped).toBe(5);
    now += 299_000;
    expect(await rec.warning(co, 'Later', 'x')).toBeUndefined();
    now += 1_000;
    expect((await rec.warning(co, 'Later', 'x'))?.reason).toBe('Later');
    // another source (another recorder) has its own bucket
    const other = new EventRecorder(env.client, { component: 'keelson-other', now: () => now });
    expect((await other.warning(co, 'Other', 'x'))?.reason).toBe('Other');
  });

  it('refills as fast as the component clock runs (clockRate), and can be turned off', async () => {
    const co = await target('scaled');
    let now = Date.parse('2026-11-27T00:00:00Z');
    const rec = new EventRecorder(env.client, { component: 'keelson-test', now: () => now, clockRate: 60 });
    for (let i = 0; i < 26; i++) await rec.normal(co, `R${i}`, 'x');
    expect(rec.dropped).toBe(1);
    now += 5_000; // five minutes of a clock 60 times faster
    expect(await rec.normal(co, 'R26', 'x')).toBeDefined();
    const off = new EventRecorder(env.client, { component: 'keelson-off', correlator: false });
    for (let i = 0; i < 30; i++) await off.normal(co, 'Same', `m${i}`);
    expect(off.dropped).toBe(0);
    expect((await eventsOf('scaled')).filter((e) => e.source?.component === 'keelson-off')).toHaveLength(30);
  });
});
