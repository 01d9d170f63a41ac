import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { SCHEMAS } from '../../src/spec/generated/schemas.js';
import { VALIDATORS } from '../../src/spec/generated/validators.js';
import { schemaIssues } from '../../src/spec/schema.js';

/** Configs that break the schema in different ways (types, enums, required, patterns, nested arrays). */
function samples(version: string): unknown[] {
  const v = { version };
  return [
    { ignition: v },
    { ignition: v, storage: { files: [{ path: '/etc/a', mode: 'x', contents: { source: 7 } }] } },
    { ignition: v, storage: { files: [{ mode: 420 }] } },
    { ignition: v, systemd: { units: [{ name: 1, enabled: 'yes', dropins: [{ name: [] }] }] } },
    { ignition: v, passwd: { users: [{ name: 'core', sshAuthorizedKeys: 'not-a-list' }] } },
    { ignition: { version: 3 }, storage: 'none' },
    { ignition: v, storage: { disks: [{ device: '/dev/sda', partitions: [{ number: 'one', sizeMiB: -1 }] }] } },
  ];
}

describe('Ignition schema validators generated at build time', () => {
  it('exist for every bundled schema version', () => {
    expect(Object.keys(VALIDATORS).sort()).toEqual(Object.keys(SCHEMAS).sort());
  });

  it('answer exactly as ajv compiling the schema at run time with the same options', () => {
    for (const [version, { schema }] of Object.entries(SCHEMAS)) {
      const runtime = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(
        structuredClone(schema),
      );
      const standalone = VALIDATORS[version]?.();
      expect(standalone, version).toBeDefined();
      for (const config of samples(version)) {
        const want = runtime(config);
        expect(standalone?.(config), `${version} ${JSON.stringify(config)}`).toBe(want);
        expect(standalone?.errors ?? null, `${version} ${JSON.stringify(config)}`).toEqual(runtime.errors ?? null);
      }
    }
  });

  it('report a wrong type with its path through schemaIssues', () => {
    const issues = schemaIssues(
      { ignition: { version: '3.4.0' }, systemd: { units: [{ name: 'a.service', enabled: 'yes' }] } },
      '3.4.0',
    );
    expect(issues).toContainEqual(
      expect.objectContaining({ keyword: 'type', path: ['systemd', 'units', 0, 'enabled'] }),
    );
  });

  it('are used by the built package without loading ajv at all', () => {
    const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
    // a resolve hook that fails any import of ajv; then every schema version is validated through the public API
    const script = `
      import { registerHooks } from 'node:module';
      registerHooks({ resolve(spec, ctx, next) { if (spec === 'ajv' || spec.startsWith('ajv/')) throw new Error('ajv was imported: ' + spec); return next(spec, ctx); } });
      const { validate } = await import(${JSON.stringify(dist)});
      const out = ['3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0', '3.5.0'].map((version) => validate({ ignition: { version }, systemd: { units: [{ name: 'a.service', enabled: 'yes' }] } }).valid);
      console.log(JSON.stringify(out));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([false, false, false, false, false, false]);
  });
});
