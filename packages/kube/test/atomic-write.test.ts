import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../src/index.js';
import { atomicTempPath } from '../src/atomic-write.js';

let dir = '';
afterEach(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the file in one rename: the old content until then, the new mode, no temporary left', async () => {
    dir = mkdtempSync(join(tmpdir(), 'atomic-'));
    const target = join(dir, 'state.json');
    writeFileSync(target, 'old');
    const seen: string[] = [];
    await writeFileAtomic(target, 'new', {
      mode: 0o600,
      tempMark: '.mark',
      beforeRename: () => {
        seen.push(readFileSync(target, 'utf8'), ...readdirSync(dir).filter((n) => n.includes('.mark')));
      },
    });
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(seen[0]).toBe('old');
    expect(seen[1]).toMatch(/^\.state\.json\.mark[0-9a-f]{12}$/);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('creates parents only when asked, and a failed write leaves neither target nor temporary', async () => {
    dir = mkdtempSync(join(tmpdir(), 'atomic-'));
    await expect(writeFileAtomic(join(dir, 'a', 'b', 'f'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    await writeFileAtomic(join(dir, 'a', 'b', 'f'), 'x', { mkdirMode: 0o755 });
    expect(readFileSync(join(dir, 'a', 'b', 'f'), 'utf8')).toBe('x');
    await expect(
      writeFileAtomic(join(dir, 'g'), 'y', {
        beforeRename: () => {
          throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    expect(readdirSync(dir)).toEqual(['a']);
  });
});

describe('atomicTempPath', () => {
  it('names each temporary file apart: `.<name><mark><12 hex>`, never the same twice in a process', () => {
    const names = Array.from({ length: 5000 }, () => atomicTempPath('/d/file.conf', '.mcdtmp'));
    for (const n of names) expect(n).toMatch(/^\/d\/\.file\.conf\.mcdtmp[0-9a-f]{12}$/);
    expect(new Set(names).size).toBe(names.length);
  });
});
