import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller, KubeError, LeaderElector, Leases, Registry, type KubeClient } from '../src/index.js';
import { sandboxWithClient, until } from './helpers.js';

let env: Awaited<ReturnType<typeof sandboxWithClient>>;
beforeAll(async () => {
  env = await sandboxWithClient();
});
afterAll(async () => env.stop());

const LEASE_MS = 2000;

/** One operator replica: a leader elector that runs a controller while leading. */
function replica(client: KubeClient, identity: string, reconciled: string[], registry?: Registry) {
  let controller: Controller | undefined;
  const leaders: string[] = [];
  const opts: ConstructorParameters<typeof LeaderElector>[0] = {
    client,
    namespace: 'kube-system',
    name: 'keelson-operator',
    identity,
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: 1500,
    retryPeriodMs: 250,
    onNewLeader: (id) => leaders.push(id),
    onStartedLeading: async (signal) => {
      controller = new Controller({
        name: `ctl-${identity}`,
        reconcile: (key) => {
          reconciled.push(`${identity}:${key}`);
          return Promise.resolve(undefined);
        },
      });
      const run = controller.run();
      signal.addEventListener('abort', () => void controller?.stop());
      await run;
    },
  };
  if (registry !== undefined) opts.registry = registry;
  const elector = new LeaderElector(opts);
  return { elector, leaders, enqueue: (k: string) => controller?.enqueue(k), running: elector.run() };
}

describe('LeaderElector on coordination.k8s.io/v1 Lease', () => {
  it('hands over to the standby within the lease duration after the leader dies without releasing', async () => {
    const reconciled: string[] = [];
    const registry = new Registry();
    const a = replica(env.client, 'replica-a', reconciled, registry);
    await until(() => a.elector.isLeader(), 10_000, 'a leads');
    const b = replica(env.client, 'replica-b', reconciled);
    await until(() => b.leaders.includes('replica-a'), 10_000, 'b observes a');
    expect(b.elector.isLeader()).toBe(false);
    expect(a.elector.healthCheck()()).toBe(true);
    a.enqueue('pool/worker');
    await until(() => reconciled.includes('replica-a:pool/worker'), 5000, 'a reconciles');
    expect(await registry.metrics()).toMatch(/leader_election_master_status\{name="keelson-operator"\} 1/);

    const leases = env.client.resource(Leases);
    const held = await leases.get('keelson-operator', 'kube-system');
    expect(held.spec).toMatchObject({ holderIdentity: 'replica-a', leaseDurationSeconds: 2, leaseTransitions: 0 });
    expect(held.spec?.acquireTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // "kill" a: it stops renewing and does not release
    const killedAt = Date.now();
    await a.elector.stop({ release: false });
    const lastByA = await leases.get('keelson-operator', 'kube-system');
    expect(lastByA.spec?.holderIdentity).toBe('replica-a');

    await until(() => b.elector.isLeader(), 15_000, 'b takes over');
    const tookOverAfter = Date.now() - killedAt;
    const now = await leases.get('keelson-operator', 'kube-system');
    expect(now.spec?.holderIdentity).toBe('replica-b');
    expect(now.spec?.leaseTransitions).toBe(1);
    // safety: b did not take the lease before a's last renewal had expired
    const lastRenew = Date.parse(lastByA.spec?.renewTime ?? '');
    const acquired = Date.parse(now.spec?.acquireTime ?? '');
    expect(acquired - lastRenew).toBeGreaterThanOrEqual(LEASE_MS - 50);
    // liveness: within the lease duration plus the retry period's jitter (generous bound for loaded CI)
    expect(tookOverAfter).toBeLessThan(LEASE_MS + 4000);

    b.enqueue('pool/infra');
    await until(() => reconciled.includes('replica-b:pool/infra'), 5000, 'b reconciles');
    expect(b.leaders).toEqual(['replica-a', 'replica-b']);
    expect(await registry.metrics()).toMatch(/leader_election_master_status\{name="keelson-operator"\} 0/);

    // b shuts down gracefully: it releases the lease, and a new candidate takes it at once
    await b.elector.stop();
    const released = await leases.get('keelson-operator', 'kube-system');
    expect(released.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
    const c = replica(env.client, 'replica-c', reconciled);
    const startC = Date.now();
    await until(() => c.elector.isLeader(), 10_000, 'c acquires released lease');
    expect(Date.now() - startC).toBeLessThan(LEASE_MS);
    expect((await leases.get('keelson-operator', 'kube-system')).spec?.leaseTransitions).toBe(2);
    await c.elector.stop();
    await Promise.all([a.running, b.running, c.running]);
  });

  it('renews with one update of the Lease it holds (no GET), and falls back to a read when the Lease changed', async () => {
    const path = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/renew-count';
    const seen: string[] = [];
    const onRequest = (m: unknown): void => {
      const req = (m as { request: IncomingMessage }).request;
      if ((req.url ?? '').split('?')[0] === path) seen.push(req.method ?? '');
    };
    subscribe('http.server.request.start', onRequest);
    try {
      const elector = new LeaderElector({
        client: env.client,
        namespace: 'kube-system',
        name: 'renew-count',
        identity: 'solo',
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: 1500,
        retryPeriodMs: 100,
        onStartedLeading: (signal) => new Promise<void>((r) => signal.addEventListener('abort', () => r())),
      });
      const running = elector.run();
      await until(() => elector.isLeader(), 10_000, 'leads');
      const leases = env.client.resource(Leases);
      const renewedBy = async (n: number): Promise<void> => {
        const start = seen.filter((m) => m === 'PUT').length;
        await until(() => seen.filter((m) => m === 'PUT').length >= start + n, 10_000, `${n} renewals`);
      };
      const getsAtStart = seen.filter((m) => m === 'GET').length;
      await renewedBy(5);
      // client-go's fast path: a valid lease held by this candidate is renewed from the observed record
      expect(seen.filter((m) => m === 'GET').length).toBe(getsAtStart);
      // someone else writes the Lease (new resourceVersion): the optimistic update conflicts, the slow path reads it
      const cur = await leases.get('renew-count', 'kube-system');
      await leases.update({ ...cur, metadata: { ...cur.metadata, labels: { touched: 'yes' } } });
      const getsBefore = seen.filter((m) => m === 'GET').length;
      await renewedBy(3);
      expect(seen.filter((m) => m === 'GET').length).toBeGreaterThan(getsBefore);
      expect(elector.isLeader()).toBe(true);
      expect((await leases.get('renew-count', 'kube-system')).spec).toMatchObject({
        holderIdentity: 'solo',
        leaseTransitions: 0,
      });
      await elector.stop();
      await running;
    } finally {
      unsubscribe('http.server.request.start', onRequest);
    }
  });

  it('validates timing options like client-go', () => {
    const base = {
      client: env.client,
      namespace: 'kube-system',
      name: 'x',
      identity: 'i',
      onStartedLeading: () => undefined,
    };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 1000, renewDeadlineMs: 1000 })).toThrow(
      /greater than renewDeadlineMs/,
    );
    expect(
      () => new LeaderElector({ ...base, leaseDurationMs: 3000, renewDeadlineMs: 1000, retryPeriodMs: 900 }),
    ).toThrow(KubeError);
    // scaled durations are valid (the Lease gets the duration rounded up to whole seconds)
    expect(
      () => new LeaderElector({ ...base, leaseDurationMs: 1370, renewDeadlineMs: 1070, retryPeriodMs: 260 }),
    ).not.toThrow();
    expect(() => new LeaderElector({ ...base, identity: '' })).toThrow(/identity/);
  });
});
