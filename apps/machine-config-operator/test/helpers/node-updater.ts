/**
 * TEST DOUBLE — a minimal stand-in for the machine-config-daemon, used until the virtual nodes of the daemon half
 * exist. It only plays the node side of the annotation protocol (upstream pkg/daemon/constants) through the API: Done → Working →
 * desiredDrain drain-X → (waits lastAppliedDrain) → simulated reboot (Ready=False for `rebootMs`) → desiredDrain
 * uncordon-X → (waits lastAppliedDrain) → currentConfig=X, state Done. It writes no files and runs no OS.
 */
import type { KubeClient } from '@keelson/kube';
import { NodeAnnotations, Nodes, type Node } from '../../src/index.js';

export class FakeNodeUpdater {
  private timer: NodeJS.Timeout | undefined;
  private readonly rebooting = new Set<string>();
  private busy = false;
  private stopped = false;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly client: KubeClient,
    private readonly rebootMs = 150,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      void this.tick();
    }, 30);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.pending]);
  }

  private async annotate(name: string, a: Record<string, string>): Promise<void> {
    await this.client.resource(Nodes).patch(name, { metadata: { annotations: a } }, { type: 'merge' });
  }

  private async setReady(name: string, ready: boolean): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await this.client.resource(Nodes).patch(
      name,
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: ready ? 'True' : 'False',
              reason: ready ? 'KubeletReady' : 'KubeletNotReady',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
      { type: 'merge', status: true },
    );
  }

  private async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    const p = this.step().catch(() => undefined);
    this.pending.add(p);
    await p;
    this.pending.delete(p);
    this.busy = false;
  }

  private async step(): Promise<void> {
    const nodes = (await this.client.resource(Nodes).list()).items;
    for (const n of nodes) await this.stepNode(n);
  }

  private async stepNode(n: Node): Promise<void> {
    const name = n.metadata.name ?? '';
    const a = n.metadata.annotations ?? {};
    const desired = a[NodeAnnotations.desiredConfig] ?? '';
    const current = a[NodeAnnotations.currentConfig] ?? '';
    const state = a[NodeAnnotations.state] ?? '';
    const dd = a[NodeAnnotations.desiredDrain] ?? '';
    const la = a[NodeAnnotations.lastAppliedDrain] ?? '';
    if (desired === '' || this.rebooting.has(name)) return;
    if (desired !== current && state === 'Done') {
      await this.annotate(name, {
        [NodeAnnotations.state]: 'Working',
        [NodeAnnotations.desiredDrain]: `drain-${desired}`,
      });
      return;
    }
    if (state !== 'Working') return;
    if (dd === `drain-${desired}` && la === dd) {
      this.rebooting.add(name);
      const reboot = (async (): Promise<void> => {
        await this.setReady(name, false);
        await new Promise((r) => setTimeout(r, this.rebootMs));
        await this.setReady(name, true);
        await this.annotate(name, { [NodeAnnotations.desiredDrain]: `uncordon-${desired}` });
      })()
        .catch(() => undefined)
        .finally(() => {
          this.rebooting.delete(name);
        });
      this.pending.add(reboot);
      void reboot.finally(() => this.pending.delete(reboot));
      return;
    }
    if (dd === `uncordon-${desired}` && la === dd) {
      await this.annotate(name, {
        [NodeAnnotations.currentConfig]: desired,
        [NodeAnnotations.state]: 'Done',
        [NodeAnnotations.reason]: '',
      });
    }
  }
}
