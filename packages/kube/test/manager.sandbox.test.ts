import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMaps, KubeClient, Leases, Manager, Registry, runnableFromStarter } from '../src/index.js';
import { sandboxWithClient, until } from './helpers.js';

let env: Awaited<ReturnType<typeof sandboxWithClient>>;
beforeAll(async () => {
  env = await sandboxWithClient();
});
afterAll(async () => env.stop());

const TIMINGS = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };

function newClient(): KubeClient {
  return KubeClient.fromKubeconfigString(env.sandbox.kubeconfigYaml());
}

async function holder(name: string): Promise<string> {
  const l = await env.client.resource(Leases).get(name, 'kube-system');
  return l.spec?.holderIdentity ?? '';
}

describe('Manager (controller-runtime pkg/manager) against a real API server', () => {
  it('starts server and runnables, leads, and stops leaders first, then releases the Lease, then the rest', async () => {
    const log: string[] = [];
    const registry = new Registry();
    const mgr = new Manager({
      client: newClient(),
      registry,
      leaderElection: { namespace: 'kube-system', name: 'mgr-order', identity: 'a', ...TIMINGS },
    });
    mgr.add({
      name: 'cache-like',
      needLeaderElection: false,
      start: async (signal) => {
        log.push('other started');
        await new Promise((r) => signal.addEventListener('abort', r));
        log.push(`other stopped, lease holder "${await holder('mgr-order')}"`);
      },
    });
    mgr.add(
      runnableFromStarter(() => {
        log.push('leader started');
        return Promise.resolve(async () => {
          log.push(`leader stopping, lease holder "${await holder('mgr-order')}"`);
        });
      }),
    );
    await mgr.start();
    expect(mgr.healthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await until(() => mgr.isLeader(), 10_000, 'leads');
    await until(() => log.includes('leader started'), 5000, 'leader runnable');
    const health = await fetch(`${mgr.healthUrl}/healthz?verbose`);
    expect(await health.text()).toContain('[+]leaderElection ok');
    expect(await (await fetch(`${mgr.healthUrl}/metrics`)).text()).toMatch(
      /leader_election_master_status\{name="mgr-order"\} 1/,
    );
    const url = mgr.healthUrl;
    await mgr.stop();
    expect(await mgr.done).toBe('stopped');
    expect(log).toEqual([
      'other started',
      'leader started',
      'leader stopping, lease holder "a"',
      'other stopped, lease holder ""',
    ]);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(mgr.isLeader()).toBe(false);
  });

  it('a standby leads at once after the leader stops (release on cancel)', async () => {
    const a = new Manager({
      client: newClient(),
      health: false,
      leaderElection: { namespace: 'kube-system', name: 'mgr-handover', identity: 'a', ...TIMINGS },
    });
    const b = new Manager({
      client: newClient(),
      health: false,
      leaderElection: { namespace: 'kube-system', name: 'mgr-handover', identity: 'b', ...TIMINGS },
    });
    let bRuns = 0;
    b.add(() => {
      bRuns++;
    });
    await a.start();
    await until(() => a.isLeader(), 10_000, 'a leads');
    await b.start();
    await new Promise((r) => setTimeout(r, 600));
    expect(b.isLeader()).toBe(false);
    expect(bRuns).toBe(0);
    await a.stop();
    await until(() => b.isLeader(), 5000, 'b leads');
    expect(bRuns).toBe(1);
    expect(await holder('mgr-handover')).toBe('b');
    await b.stop();
  });

  it('a Lease taken away ends leadership: onLeaderLost, leader runnables stop, done is leaderLost', async () => {
    const lost: string[] = [];
    let leaderAborted = false;
    const mgr = new Manager({
      client: newClient(),
      health: false,
      leaderElection: { namespace: 'kube-system', name: 'mgr-lost', identity: 'victim', ...TIMINGS },
      onLeaderLost: (id) => lost.push(id),
    });
    mgr.add(async (signal) => {
      await new Promise((r) => signal.addEventListener('abort', r));
      leaderAborted = true;
    });
    await mgr.start();
    await until(() => mgr.isLeader(), 10_000, 'leads');
    const leases = env.client.resource(Leases);
    const l = await leases.get('mgr-lost', 'kube-system');
    await leases.update({ ...l, spec: { ...l.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 } });
    expect(await mgr.done).toBe('leaderLost');
    expect(lost).toEqual(['victim']);
    expect(leaderAborted).toBe(true);
    expect(await holder('mgr-lost')).toBe('intruder');
  });

  it('shares one informer per kind and selection, started with the manager and stopped with it', async () => {
    await env.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared-informer', namespace: 'default' },
      data: { a: '1' },
    });
    const mgr = new Manager({ client: newClient(), health: false });
    const one = mgr.informer(ConfigMaps, { namespace: 'default' });
    expect(mgr.informer(ConfigMaps, { namespace: 'default' })).toBe(one);
    expect(mgr.informer(ConfigMaps, { namespace: 'kube-system' })).not.toBe(one);
    let seen = '';
    mgr.add(async () => {
      await one.waitForSync();
      seen = one.store.get('default/shared-informer')?.data?.['a'] ?? '';
    });
    await mgr.start();
    expect(mgr.isLeader()).toBe(true);
    await until(() => seen === '1', 5000, 'informer synced');
    await mgr.stop();
    expect(await mgr.done).toBe('stopped');
  });
});
