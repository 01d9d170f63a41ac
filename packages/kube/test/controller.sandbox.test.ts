import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Controller,
  EventRecorder,
  Events,
  Informer,
  ItemExponentialFailureRateLimiter,
  MachineConfigPools,
  Registry,
  findCondition,
  setCondition,
  splitObjectKey,
} from '../src/index.js';
import { MCP_CRD, installCrd, sandboxWithClient, until } from './helpers.js';

let env: Awaited<ReturnType<typeof sandboxWithClient>>;
beforeAll(async () => {
  env = await sandboxWithClient();
  await installCrd(env.client, MCP_CRD, 'machineconfigpools', 'machineconfiguration.openshift.io');
});
afterAll(async () => env.stop());

describe('Controller against the sandbox', () => {
  it('retries a failing reconcile with exponential backoff, then writes status and events', async () => {
    const pools = env.client.resource(MachineConfigPools);
    const registry = new Registry();
    const informer = new Informer(env.client, MachineConfigPools);
    const recorder = new EventRecorder(env.client, { component: 'pool-controller' });
    const attempts: Array<{ key: string; attempt: number; at: number }> = [];
    const failuresWanted = 4;
    let failures = 0;
    const controller = new Controller({
      name: 'pools',
      workers: 2,
      registry,
      rateLimiter: new ItemExponentialFailureRateLimiter(20, 5000),
      reconcile: async (key, ctx) => {
        attempts.push({ key, attempt: ctx.attempt, at: performance.now() });
        const pool = informer.store.getByKey(key);
        if (pool === undefined) return;
        if (key === 'flaky' && failures < failuresWanted) {
          failures++;
          await recorder.warning(
            { ...pool, apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfigPool' },
            'RenderFailed',
            'cannot render config',
          );
          throw new Error(`transient failure ${ctx.attempt}`);
        }
        const { conditions, changed } = setCondition(pool.status?.conditions, {
          type: 'Updated',
          status: 'True',
          reason: 'Reconciled',
          message: 'all machines updated',
        });
        if (!changed) return;
        const fresh = await pools.get(splitObjectKey(key).name);
        await pools.updateStatus({ ...fresh, status: { ...fresh.status, conditions } });
      },
    }).watch(informer);
    const running = controller.run();

    await pools.create({ metadata: { name: 'flaky' }, spec: {} });
    await pools.create({ metadata: { name: 'steady' }, spec: {} });

    await until(
      async () => findCondition((await pools.get('flaky')).status?.conditions, 'Updated')?.status === 'True',
      20_000,
      'flaky reconciled',
    );
    await until(
      async () => findCondition((await pools.get('steady')).status?.conditions, 'Updated')?.status === 'True',
      20_000,
      'steady reconciled',
    );

    const flaky = attempts.filter((a) => a.key === 'flaky');
    // attempts 0..3 failed; the first success carries attempt 4 (later ones come from our own status writes)
    expect(flaky.slice(0, failuresWanted + 1).map((a) => a.attempt)).toEqual([0, 1, 2, 3, 4]);
    // each retry waited at least its backoff (20, 40, 80, 160 ms): a lower bound, never flaky
    for (let i = 1; i <= failuresWanted; i++) {
      const gap = (flaky[i]?.at ?? 0) - (flaky[i - 1]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(20 * 2 ** (i - 1) - 2);
    }
    const flakyPool = await pools.get('flaky');
    expect(findCondition(flakyPool.status?.conditions, 'Updated')?.message).toBe('all machines updated');
    expect(controller.queue.numRequeues('flaky')).toBe(0); // forgotten after success

    const evs = (await env.client.resource(Events).list({ namespace: 'default' })).items.filter(
      (e) => e.involvedObject.name === 'flaky',
    );
    expect(evs.map((e) => [e.reason, e.type, e.count])).toEqual([['RenderFailed', 'Warning', failuresWanted]]);

    const metrics = await registry.metrics();
    expect(metrics).toMatch(/controller_reconcile_total\{controller="pools",result="error"\} 4/);
    expect(metrics).toMatch(/workqueue_retries_total\{name="pools"\} 4/);

    await controller.stop();
    await running;
    await informer.stop();
    expect(controller.queue.shuttingDown()).toBe(true);
  });

  it('drops a key after maxRetries and honours requeueAfterMs', async () => {
    const seen: string[] = [];
    let periodic = 0;
    const controller = new Controller({
      name: 'limits',
      maxRetries: 2,
      rateLimiter: new ItemExponentialFailureRateLimiter(1, 10),
      reconcile: (key) => {
        seen.push(key);
        if (key === 'always-fails') return Promise.reject(new Error('nope'));
        if (key === 'periodic' && ++periodic < 3) return Promise.resolve({ requeueAfterMs: 5 });
        return Promise.resolve(undefined);
      },
    });
    const running = controller.run();
    controller.enqueue('always-fails');
    controller.enqueue('periodic');
    await until(() => periodic >= 3 && seen.filter((k) => k === 'always-fails').length >= 3, 10_000, 'retries');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.filter((k) => k === 'always-fails')).toHaveLength(3); // first try + 2 retries, then dropped
    expect(seen.filter((k) => k === 'periodic')).toHaveLength(3);
    await controller.stop();
    await running;
  });
});
