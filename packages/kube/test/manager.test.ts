import { describe, expect, it } from 'vitest';
import { ConfigMaps, KubeError, Manager } from '../src/index.js';

describe('Manager without a client (a process that serves without the cluster)', () => {
  it('runs and stops its runnables and health server', async () => {
    const mgr = new Manager({});
    const seen: string[] = [];
    mgr.add({
      name: 'serve',
      needLeaderElection: false,
      start: async (signal) => {
        seen.push('started');
        await new Promise((r) => signal.addEventListener('abort', r));
        seen.push('stopped');
      },
    });
    await mgr.start();
    expect(mgr.hasClient()).toBe(false);
    const res = await fetch(`${mgr.healthUrl ?? ''}/healthz`);
    expect(res.status).toBe(200);
    await mgr.stop();
    expect(seen).toEqual(['started', 'stopped']);
    await expect(mgr.done).resolves.toBe('stopped');
  });

  it('refuses what needs the cluster with a typed error', () => {
    const mgr = new Manager({ health: false });
    expect(() => mgr.client).toThrow(KubeError);
    expect(() => mgr.informer(ConfigMaps)).toThrow(/made without a client/);
    expect(() => new Manager({ leaderElection: { namespace: 'ns', name: 'lock' } })).toThrow(
      /leader election needs a client/,
    );
  });
});
