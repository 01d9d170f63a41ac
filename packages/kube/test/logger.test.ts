import { describe, expect, it, vi } from 'vitest';
import { KubeApiError, createLogger, errorSafeLogger, processLogger, UsageError, type Logger } from '../src/index.js';

function capture(): { lines: () => Record<string, unknown>[]; stream: { write(s: string): boolean } } {
  const out: string[] = [];
  return {
    stream: { write: (s: string) => out.push(s) > 0 },
    lines: () =>
      out
        .join('')
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('JSON-line logger', () => {
  it('writes one JSON object per line with ts, level, msg and fields', () => {
    const c = capture();
    const log = createLogger({
      stream: c.stream,
      now: () => new Date('2026-02-03T04:05:06.789Z'),
      fields: { app: 'mco' },
    });
    log.info('hello', { pool: 'worker' });
    log.child({ key: 'k1' }).warn('careful');
    expect(c.lines()).toEqual([
      { ts: '2026-02-03T04:05:06.789Z', level: 'info', msg: 'hello', app: 'mco', pool: 'worker' },
      { ts: '2026-02-03T04:05:06.789Z', level: 'warn', msg: 'careful', app: 'mco', key: 'k1' },
    ]);
  });

  it('filters by level and serializes errors and cycles safely', () => {
    const c = capture();
    const log = createLogger({ stream: c.stream, level: 'warn' });
    log.info('dropped');
    log.debug('dropped');
    const cyc: Record<string, unknown> = { a: 1 };
    cyc['self'] = cyc;
    const err = new KubeApiError('GET', '/api/v1/namespaces/x', 404, {
      reason: 'NotFound',
      message: 'namespaces "x" not found',
    });
    log.error('boom', { err, cyc, big: 10n, text: 'line\nbreak' });
    const lines = c.lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]?.['err']).toMatchObject({ name: 'KubeApiError', code: 'KUBE_API_ERROR' });
    expect((lines[0]?.['err'] as { message: string }).message).toContain('404 NotFound');
    expect(lines[0]?.['cyc']).toEqual({ a: 1, self: '[Circular]' });
    expect(lines[0]?.['big']).toBe('10');
    expect(lines[0]?.['text']).toBe('line\nbreak');
  });

  it('errorSafeLogger: a plain JSON.stringify logger gets the message of an Error, not {}, and keeps child fields', () => {
    const lines: string[] = [];
    // a logger as a host may inject it: fields stringified as they are, child() drops its fields
    const plain: Logger = {
      debug: (m, f) => lines.push(JSON.stringify({ level: 'debug', msg: m, ...f })),
      info: (m, f) => lines.push(JSON.stringify({ level: 'info', msg: m, ...f })),
      warn: (m, f) => lines.push(JSON.stringify({ level: 'warn', msg: m, ...f })),
      error: (m, f) => lines.push(JSON.stringify({ level: 'error', msg: m, ...f })),
      child: () => plain,
    };
    plain.warn('before', { err: new Error('gate closed') });
    expect(lines[0]).toContain('"err":{}');
    const log = errorSafeLogger(plain).child({ controller: 'render' }).child({ key: 'worker' });
    log.warn('reconcile failed', { err: new Error('gate closed'), attempt: 2 });
    expect(JSON.parse(lines[1] ?? '')).toEqual({
      level: 'warn',
      msg: 'reconcile failed',
      controller: 'render',
      key: 'worker',
      err: { name: 'Error', message: 'gate closed' },
      attempt: 2,
    });
  });
});

describe('one log style (klog/logr-ish keys)', () => {
  it('writes the error of a line under err, as klog ErrorS: an `error` field is renamed, an `err` field kept', () => {
    const out: string[] = [];
    const log = createLogger({
      stream: { write: (s: string) => out.push(s) },
      now: () => new Date('2026-02-03T04:05:06.789Z'),
      fields: { component: 'c' },
    });
    log.error('failed', { error: new Error('boom'), pool: 'worker' });
    log.warn('retrying', { error: 'timeout' });
    log.info('both', { err: 'kept', error: 'other' });
    expect(out.map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        ts: '2026-02-03T04:05:06.789Z',
        level: 'error',
        msg: 'failed',
        component: 'c',
        pool: 'worker',
        err: { name: 'Error', message: 'boom' },
      },
      { ts: '2026-02-03T04:05:06.789Z', level: 'warn', msg: 'retrying', component: 'c', err: 'timeout' },
      { ts: '2026-02-03T04:05:06.789Z', level: 'info', msg: 'both', component: 'c', err: 'kept', error: 'other' },
    ]);
  });

  it('errorSafeLogger (a logger supplied from outside) writes the same err key', () => {
    const lines: unknown[] = [];
    const plain: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (m, f) => lines.push({ msg: m, ...f }),
      error: () => undefined,
      child: () => plain,
    };
    errorSafeLogger(plain).warn('retrying', { error: new Error('gone') });
    expect(lines).toEqual([{ msg: 'retrying', err: { name: 'Error', message: 'gone' } }]);
  });

  it('processLogger: component on every line, the level of klog --v, a bad --v is a usage error', () => {
    expect(() => processLogger('x', 'high')).toThrow(UsageError);
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      processLogger('x', '2').debug('hidden');
      processLogger('x', '4').debug('shown');
      expect(write).toHaveBeenCalledTimes(1);
      expect(JSON.parse(String(write.mock.calls[0]?.[0]))).toMatchObject({
        level: 'debug',
        msg: 'shown',
        component: 'x',
      });
    } finally {
      write.mockRestore();
    }
  });
});
