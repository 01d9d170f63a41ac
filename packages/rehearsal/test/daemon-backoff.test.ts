import { describe, expect, it } from 'vitest';
import { DEFAULT_SYNC_BACKOFF } from '@keelson/machine-config-operator';
import { daemonSyncBackoff } from '../src/components.js';

describe('daemonSyncBackoff (the virtual daemons retry on the rehearsal clock)', () => {
  it("is the MCO daemon's backoff at time scale 1 and that backoff scaled otherwise, floored at 10 ms", () => {
    expect(daemonSyncBackoff(1)).toEqual(DEFAULT_SYNC_BACKOFF);
    // the default rehearsal (60×): one failed sync waits 17 ms of wall time, the longest wait is one second
    expect(daemonSyncBackoff(60)).toEqual({ initialMs: 17, maxMs: 1000 });
    expect(daemonSyncBackoff(600)).toEqual({ initialMs: 10, maxMs: 100 });
  });
});
