import { describe, expect, it } from 'vitest';
import { WatchLineSplitter } from '../src/watch-lines.js';

describe('WatchLineSplitter', () => {
  it('returns every line of a chunk holding many, trimmed, empty ones left out', () => {
    const s = new WatchLineSplitter(1024);
    expect(s.push('{"a":1}\n\n  {"b":2}\r\n{"c":3}\n')).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(s.pending).toBe(0);
  });

  it('joins a line received over many chunks once its newline arrives', () => {
    const s = new WatchLineSplitter(1024);
    const line = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'n'.repeat(200) } } });
    const got: string[] = [];
    for (let i = 0; i < line.length; i += 7) got.push(...s.push(line.slice(i, i + 7)));
    expect(got).toEqual([]);
    expect(s.pending).toBe(line.length);
    expect(s.push('\n{"x"')).toEqual([line]);
    expect(s.push(':1}\n')).toEqual(['{"x":1}']);
    expect(s.pending).toBe(0);
  });

  it('refuses a held line as soon as it exceeds the limit, after returning the lines before it', () => {
    const s = new WatchLineSplitter(10);
    expect(s.push('{"a":1}\n0123456')).toEqual(['{"a":1}']);
    expect(s.overflowed).toBe(false);
    expect(s.push('7890')).toEqual([]);
    expect(s.overflowed).toBe(true);
    expect(s.pending).toBe(0);
    expect(s.push('\n{"b":2}\n')).toEqual([]);
  });

  it('refuses a complete line longer than the limit, whether held or within one chunk', () => {
    const held = new WatchLineSplitter(10);
    expect(held.push('012345')).toEqual([]);
    expect(held.push('67890\n{"a":1}\n')).toEqual([]);
    expect(held.overflowed).toBe(true);
    const whole = new WatchLineSplitter(10);
    expect(whole.push('{"a":1}\n{"bbbbbbbbbb":2}\n{"c":3}\n')).toEqual(['{"a":1}']);
    expect(whole.overflowed).toBe(true);
  });

  it('accepts a line exactly at the limit', () => {
    const s = new WatchLineSplitter(7);
    expect(s.push('{"a":')).toEqual([]);
    expect(s.push('1}\n')).toEqual(['{"a":1}']);
    expect(s.overflowed).toBe(false);
  });
});
