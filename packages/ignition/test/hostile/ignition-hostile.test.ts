/**
 * Hostile-input suite of @keelson/ignition (issue 14 item 9): validate() never throwing, `__proto__` keys handled
 * the same way everywhere, linear 2.2 de-duplication. The MachineConfig items (7, 8, CRD schema) are in
 * `@keelson/machineconfig`'s test/hostile/machineconfig-hostile.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { merge, translate, validate, type IgnitionConfig, type IgnitionConfigV3 } from '../../src/index.js';

describe('validate never throws; __proto__ is handled consistently; 2.2 is linear (item 9)', () => {
  it('a kernel argument nested 5 000 deep is an error entry, not a RangeError', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5000; i++) deep = [deep];
    const r = validate({ ignition: { version: '3.5.0' }, kernelArguments: { shouldExist: [deep] } });
    expect(r.valid).toBe(false);
    expect(r.entries[0]?.message).toMatch(/nests deeper/);
  });

  it('validate never throws on hostile shapes', () => {
    const hostile: unknown[] = [
      null,
      1,
      'x',
      [],
      { ignition: null },
      { ignition: { version: '3.5.0' }, storage: 'x' },
      { ignition: { version: '3.5.0' }, storage: { files: [null, 1, 'x', { path: 7 }] } },
      JSON.parse('{"ignition":{"version":"3.5.0"},"__proto__":{"storage":{}}}'),
    ];
    for (const h of hostile) expect(() => validate(h)).not.toThrow();
  });

  it('a __proto__ key is reported as unused and dropped by translate and merge in every version', () => {
    const cfg = JSON.parse(
      '{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,a"},"__proto__":{"append":[{"source":"data:,hidden"}],"mode":511}}]}}',
    ) as IgnitionConfig;
    expect(validate(cfg).entries).toContainEqual(
      expect.objectContaining({ kind: 'warning', message: 'unused key __proto__' }),
    );
    for (const v of ['3.1.0', '3.4.0', '3.5.0'] as const) {
      const out = translate(cfg, v) as unknown as { storage: { files: Record<string, unknown>[] } };
      const f = out.storage.files[0] ?? {};
      expect(Object.keys(f)).not.toContain('__proto__');
      expect(f['append']).toBeUndefined();
      expect(f['mode']).toBeUndefined();
      expect(Object.getPrototypeOf(f)).toBe(Object.prototype);
      expect(JSON.stringify(out)).not.toContain('hidden');
    }
    const merged = merge(cfg as IgnitionConfigV3, { ignition: { version: '3.5.0' } }) as unknown as {
      storage: { files: Record<string, unknown>[] };
    };
    expect(JSON.stringify(merged)).not.toContain('hidden');
    expect(Object.getPrototypeOf(merged.storage.files[0])).toBe(Object.prototype);
  });

  it('translating a 2.2 config with 50 000 passwd.users (one name, one key each) finishes and keeps every key once', () => {
    const users = Array.from({ length: 50_000 }, (_, i) => ({
      name: 'core',
      sshAuthorizedKeys: [`ssh-ed25519 k${i % 40_000}`],
    }));
    const out = translate({ ignition: { version: '2.2.0' }, passwd: { users } }, '3.5.0') as unknown as {
      passwd: { users: { sshAuthorizedKeys: string[] }[] };
    };
    expect(out.passwd.users).toHaveLength(1);
    expect(out.passwd.users[0]?.sshAuthorizedKeys).toHaveLength(40_000);
    // later users' keys first, as the MCO's dedupe walks from the end
    expect(out.passwd.users[0]?.sshAuthorizedKeys[0]).toBe('ssh-ed25519 k9999');
  });
});
