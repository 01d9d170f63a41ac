/**
 * Failed syncs wait for their backoff, Node changes included (issue 24 §6). Upstream's daemon adds its node to a
 * rate-limited queue on every Node event (pkg/daemon/daemon.go enqueueDefault → AddRateLimited) and after every
 * failed sync (handleErr → AddRateLimited): while an OS update keeps failing, neither its own Degraded annotation
 * nor kubelet status updates start the next attempt early. Here the real daemon loop runs with a sync that always
 * fails (the update rolled back) and a Node that changes every 20 ms.
 */
import { describe, expect, it } from 'vitest';
import { nullLogger } from '@keelson/kube';
import { NODE_ANNOTATIONS, type Node } from '@keelson/api';
import { MachineConfigDaemon } from '../src/daemon/daemon.js';
import type { DaemonContext } from '../src/daemon/context.js';
import type { MachineConfigCache, NodeSource, NodeWriter } from '../src/daemon/cluster.js';

/** A Node held in memory whose annotation writes notify the subscribers, as the informer would. */
function fakeCluster(): {
  node: Node;
  fire: () => void;
  writes: Record<string, string | null>[];
  source: NodeSource;
  writer: NodeWriter;
} {
  const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', annotations: {} } };
  const subs = new Set<(n: Node | undefined) => void>();
  const writes: Record<string, string | null>[] = [];
  const fire = (): void => {
    for (const s of subs) s(node);
  };
  const source: NodeSource = {
    current: () => node,
    subscribe: (cb) => {
      subs.add(cb);
      return () => subs.delete(cb);
    },
  };
  const writer = {
    setAnnotations: (a: Record<string, string | null>): Promise<Node> => {
      writes.push(a);
      for (const [k, v] of Object.entries(a)) if (v !== null) (node.metadata.annotations ??= {})[k] = v;
      queueMicrotask(fire);
      return Promise.resolve(node);
    },
    event: (): void => undefined,
  } as unknown as NodeWriter;
  return { node, fire, writes, source, writer };
}

class AlwaysFailing extends MachineConfigDaemon {
  attempts = 0;
  override async sync(): Promise<void> {
    this.attempts++;
    await Promise.resolve();
    throw new Error('error running rpm-ostree rebase: exit status 1 (rolled back)');
  }
}

describe('daemon retry backoff', () => {
  it('spaces the attempts of a failing update by its backoff whatever the Node events', async () => {
    const c = fakeCluster();
    const ctx = {
      nodeName: 'n1',
      logger: nullLogger,
      signal: new AbortController().signal,
      cluster: { source: c.source, writer: c.writer, configs: {} as unknown as MachineConfigCache },
    } as unknown as DaemonContext;
    const daemon = new AlwaysFailing(ctx, { initialMs: 100, maxMs: 400 });
    const heartbeat = setInterval(c.fire, 20); // kubelet status updates
    daemon.start();
    await new Promise((r) => setTimeout(r, 1500));
    clearInterval(heartbeat);
    await daemon.stop();
    // backoff 100 ms then 400 ms (the events count as requeues): about 5 attempts in 1.5 s; reacting to every
    // event would make ~75
    expect(daemon.attempts).toBeGreaterThanOrEqual(2);
    expect(daemon.attempts).toBeLessThanOrEqual(8);
    expect(c.node.metadata.annotations?.[NODE_ANNOTATIONS.state]).toBe('Degraded');
    expect(c.writes).toHaveLength(1); // Degraded + reason written once, not per attempt
  });
});
