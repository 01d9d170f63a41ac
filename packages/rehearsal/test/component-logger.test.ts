import { describe, expect, it } from 'vitest';
import { componentLogger, type ComponentContext } from '../src/components.js';

function sink(): { ctx: ComponentContext; lines: Array<{ component: string; line: string }> } {
  const lines: Array<{ component: string; line: string }> = [];
  const ctx = {
    kubeconfigPath: '/dev/null',
    timeScale: 1,
    workDir: '/tmp',
    log: (component: string, line: string) => {
      lines.push({ component, line });
    },
  } as unknown as ComponentContext;
  return { ctx, lines };
}

describe('componentLogger (the in-process components of a rehearsal)', () => {
  it('writes processLogger-style JSON lines: ts, level, msg, component, child fields, err', () => {
    const { ctx, lines } = sink();
    const log = componentLogger(ctx, 'machine-config-operator');
    log.child({ controller: 'pool' }).info('synced', { pool: 'worker' });
    log.debug('detail');
    log.error('failed', { error: new Error('boom') });
    expect(lines.map((l) => l.component)).toEqual(Array(3).fill('machine-config-operator'));
    const recs = lines.map((l) => JSON.parse(l.line) as Record<string, unknown>);
    for (const l of lines) expect(l.line.endsWith('\n')).toBe(false);
    for (const r of recs) expect(Number.isNaN(Date.parse(String(r['ts'])))).toBe(false);
    expect(recs[0]).toMatchObject({
      level: 'info',
      msg: 'synced',
      component: 'machine-config-operator',
      controller: 'pool',
      pool: 'worker',
    });
    expect(recs[1]).toMatchObject({ level: 'debug', msg: 'detail' });
    expect(recs[2]).toMatchObject({ level: 'error', msg: 'failed', err: { name: 'Error', message: 'boom' } });
  });
});
