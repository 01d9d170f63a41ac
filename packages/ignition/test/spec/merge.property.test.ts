import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { merge, validate, type IgnitionConfigV3 } from '../../src/spec/index.js';
import { prune } from './vectors.js';

const VERSION = '3.5.0';
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

/** Drops undefined-valued keys so generated objects look like parsed JSON. */
function clean<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

// Keys are unique within a list and each path has one kind (files /f/*, directories /d/*, links /l/*):
// upstream's merge is associative under those conditions (a child entry of another kind, a repeated
// key or a header without value make merge order-dependent by design).
const resource = fc.record({
  source: opt(fc.constantFrom('data:,a', 'data:,b', 'https://e/x')),
  compression: opt(fc.constantFrom('', 'gzip')),
});
const file = (n: number): fc.Arbitrary<object> =>
  fc.record({
    path: fc.constant(`/f/${n}`),
    mode: opt(fc.integer({ min: 0, max: 0o777 })),
    overwrite: opt(fc.constant(false)),
    contents: opt(resource),
    append: opt(fc.array(fc.record({ source: fc.constantFrom('data:,x', 'data:,y') }), { maxLength: 2 })),
    user: opt(fc.record({ name: fc.constantFrom('root', 'core') })),
  });
const keyed = <T>(pool: number, make: (n: number) => fc.Arbitrary<T>, max = 3): fc.Arbitrary<T[]> =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: pool }), { maxLength: max })
    .chain((ns) => (ns.length === 0 ? fc.constant([] as T[]) : fc.tuple(...ns.map(make))));
const unit = (n: number): fc.Arbitrary<object> =>
  fc.record({
    name: fc.constant(`u${n}.service`),
    enabled: opt(fc.boolean()),
    mask: opt(fc.boolean()),
    contents: opt(fc.constantFrom('[Unit]\nA=1', '[Service]\nB=2\n[Install]\nWantedBy=x')),
    dropins: opt(
      keyed(3, (d) =>
        fc.record({ name: fc.constant(`d${d}.conf`), contents: opt(fc.constantFrom('[Unit]', '[Service]')) }),
      ),
    ),
  });
const user = (n: number): fc.Arbitrary<object> =>
  fc.record({
    name: fc.constant(n === 0 ? 'core' : `user${n}`),
    passwordHash: opt(fc.constantFrom('x', 'y')),
    sshAuthorizedKeys: opt(fc.uniqueArray(fc.constantFrom('k1', 'k2', 'k3', 'k4'), { maxLength: 3 })),
  });

const config: fc.Arbitrary<IgnitionConfigV3> = fc
  .record({
    files: keyed(5, file),
    directories: keyed(3, (n) =>
      fc.record({ path: fc.constant(`/d/${n}`), mode: opt(fc.integer({ min: 0, max: 0o777 })) }),
    ),
    links: keyed(3, (n) =>
      fc.record({ path: fc.constant(`/l/${n}`), target: fc.constantFrom('/a', '/b'), hard: opt(fc.boolean()) }),
    ),
    filesystems: keyed(2, (n) =>
      fc.record({
        device: fc.constant(`/dev/sd${n}`),
        format: fc.constantFrom('xfs', 'ext4'),
        options: opt(fc.array(fc.constantFrom('-a', '-b'), { maxLength: 2 })),
      }),
    ),
    units: keyed(4, unit),
    users: keyed(3, user, 2),
    shouldExist: fc.uniqueArray(fc.constantFrom('a=1', 'b', 'c=2'), { maxLength: 3 }),
    shouldNotExist: fc.uniqueArray(fc.constantFrom('x', 'y=1'), { maxLength: 2 }),
  })
  .map((r) =>
    clean({
      ignition: { version: VERSION },
      storage: { files: r.files, directories: r.directories, links: r.links, filesystems: r.filesystems },
      systemd: { units: r.units },
      passwd: { users: r.users },
      kernelArguments: { shouldExist: r.shouldExist, shouldNotExist: r.shouldNotExist },
    } as IgnitionConfigV3),
  );

const empty: IgnitionConfigV3 = { ignition: { version: VERSION } };

describe('merge properties', () => {
  it('generated configs are valid', () => {
    fc.assert(
      fc.property(config, (c) => validate(c).entries.filter((e) => e.kind === 'error').length === 0),
      { numRuns: 100 },
    );
  });
  it('an empty parent is an identity', () => {
    fc.assert(
      fc.property(config, (c) => {
        expect(prune(merge(empty, c))).toEqual(prune(c));
      }),
      { numRuns: 300 },
    );
  });
  it('an empty child is an identity', () => {
    fc.assert(
      fc.property(config, (c) => {
        expect(prune(merge(c, empty))).toEqual(prune(c));
      }),
      { numRuns: 300 },
    );
  });
  it('is associative for configs with unique keys and one kind per path', () => {
    fc.assert(
      fc.property(config, config, config, (a, b, c) => {
        expect(prune(merge(merge(a, b), c))).toEqual(prune(merge(a, merge(b, c))));
      }),
      { numRuns: 300 },
    );
  });
  it('a config merged with itself keeps its keyed entries (only append lists grow)', () => {
    fc.assert(
      fc.property(config, (c) => {
        const m = merge(c, c);
        expect(m.storage?.files?.map((f) => f.path) ?? []).toEqual(c.storage?.files?.map((f) => f.path) ?? []);
        expect(m.systemd?.units?.map((u) => u.name) ?? []).toEqual(c.systemd?.units?.map((u) => u.name) ?? []);
        expect(prune(m.passwd?.users ?? [])).toEqual(prune(c.passwd?.users ?? []));
      }),
      { numRuns: 200 },
    );
  });
});
