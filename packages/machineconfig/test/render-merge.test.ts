import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { merge, mergeOwned } from '@keelson/ignition';
import { normalizeIgnitionV35, serializeIgnitionV35 } from '../src/gojson.js';

const path = fc.constantFrom('/etc/a', '/etc/b', '/etc/c', '/var/d');
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const resource = fc.record(
  { source: opt(fc.constantFrom('data:,x', 'data:,y', '')), compression: opt(fc.constantFrom('', 'gzip')) },
  { requiredKeys: [] },
);
const file = fc.record(
  {
    path,
    overwrite: opt(fc.boolean()),
    mode: opt(fc.constantFrom(420, 384, 493)),
    contents: opt(resource),
    append: opt(fc.array(resource, { maxLength: 2 })),
    user: opt(fc.record({ name: opt(fc.constantFrom('root', 'core')) }, { requiredKeys: [] })),
  },
  { requiredKeys: ['path'] },
);
const dir = fc.record({ path, mode: opt(fc.constantFrom(493, 448)) }, { requiredKeys: ['path'] });
const link = fc.record(
  { path, target: opt(fc.constantFrom('/x', '/y')), hard: opt(fc.boolean()) },
  { requiredKeys: ['path'] },
);
const dropin = fc.record(
  { name: fc.constantFrom('10-a.conf', '20-b.conf'), contents: opt(fc.constantFrom('A', 'B')) },
  { requiredKeys: ['name'] },
);
const unit = fc.record(
  {
    name: fc.constantFrom('a.service', 'b.service'),
    enabled: opt(fc.boolean()),
    mask: opt(fc.boolean()),
    contents: opt(fc.constantFrom('x', 'y')),
    dropins: opt(fc.array(dropin, { maxLength: 3 })),
  },
  { requiredKeys: ['name'] },
);
const user = fc.record(
  {
    name: fc.constantFrom('core', 'other'),
    sshAuthorizedKeys: opt(fc.array(fc.constantFrom('k1', 'k2', 'k3'), { maxLength: 3 })),
    passwordHash: opt(fc.constantFrom('h1', 'h2')),
  },
  { requiredKeys: ['name'] },
);
const config = fc.record(
  {
    ignition: fc.constant({ version: '3.5.0' }),
    kernelArguments: opt(
      fc.record(
        {
          shouldExist: opt(fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 })),
          shouldNotExist: opt(fc.array(fc.constantFrom('a', 'c'), { maxLength: 2 })),
        },
        { requiredKeys: [] },
      ),
    ),
    storage: opt(
      fc.record(
        {
          files: opt(fc.uniqueArray(file, { maxLength: 3, selector: (f) => f.path })),
          directories: opt(fc.uniqueArray(dir, { maxLength: 2, selector: (d) => d.path })),
          links: opt(fc.uniqueArray(link, { maxLength: 2, selector: (l) => l.path })),
        },
        { requiredKeys: [] },
      ),
    ),
    systemd: opt(
      fc.record({ units: opt(fc.uniqueArray(unit, { maxLength: 2, selector: (u) => u.name })) }, { requiredKeys: [] }),
    ),
    passwd: opt(
      fc.record({ users: opt(fc.uniqueArray(user, { maxLength: 2, selector: (u) => u.name })) }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: ['ignition'] },
);

describe('in-place merge used by the render loop (mergeOwned)', () => {
  it('gives the same result as the public merge on v3_5 Go-shape configs, which stay unmodified', () => {
    fc.assert(
      fc.property(config, config, config, (a, b, c) => {
        const norm = (x: unknown) => normalizeIgnitionV35(JSON.parse(JSON.stringify(x)));
        const [na, nb, nc] = [norm(a), norm(b), norm(c)];
        const before = JSON.stringify([na, nb, nc]);
        const reference = merge(merge(na, nb), nc);
        expect(JSON.stringify([na, nb, nc])).toBe(before); // the public merge copies, never mutates
        const owned = mergeOwned(mergeOwned(structuredClone(na), structuredClone(nb)), structuredClone(nc));
        expect(owned).toEqual(reference);
        expect(serializeIgnitionV35(owned as Record<string, unknown>)).toBe(
          serializeIgnitionV35(reference as Record<string, unknown>),
        );
      }),
      { numRuns: 1000 },
    );
  }, 60_000);
});
