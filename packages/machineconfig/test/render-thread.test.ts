/**
 * RenderThread (issue 24 §2): renderPool on a worker thread gives the same result and the same typed errors, and
 * the caller's event loop keeps turning while a 1 MB hostile MachineConfig is rendered.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MachineConfigRenderError, renderPool, RenderThread, type MachineConfig } from '../src/index.js';

const pool = {
  metadata: { name: 'worker' },
  spec: { machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } } },
};
const mc = (name: string, config: object): MachineConfig => ({
  metadata: { name, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
  spec: { config: config as never },
});
const good = [
  mc('00-a', {
    ignition: { version: '3.4.0' },
    storage: { files: [{ path: '/etc/a', contents: { source: 'data:,a' } }] },
  }),
];
const hostile = [
  mc('99-x', {
    ignition: { version: '3.4.0' },
    systemd: { units: Array.from({ length: 25_000 }, () => ({ name: 'a.service', enabled: true })) },
  }),
];

describe('RenderThread', () => {
  const thread = new RenderThread();
  afterAll(async () => {
    await thread.close();
  });

  it('renders as renderPool does', async () => {
    expect(await thread.render(pool, good)).toEqual(renderPool(pool, good));
  });

  it('rejects with the same typed error, and the event loop keeps turning meanwhile', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 1);
    let err: unknown;
    try {
      await thread.render(pool, hostile);
    } catch (e) {
      err = e;
    } finally {
      clearInterval(timer);
    }
    expect(err).toBeInstanceOf(MachineConfigRenderError);
    expect((err as MachineConfigRenderError).code).toBe('MC_INVALID_IGNITION');
    expect((err as Error).message).toContain('duplicate entry defined');
    expect((err as Error).message).toContain('more report entries not shown');
    // a render on this thread would let no timer run until it returned
    expect(ticks).toBeGreaterThan(3);
  });
});
