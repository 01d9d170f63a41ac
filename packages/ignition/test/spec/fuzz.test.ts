import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IgnitionError,
  merge,
  parseConfig,
  SPEC_VERSIONS,
  translate,
  validate,
  type IgnitionConfigV3,
  type SpecVersion,
} from '../../src/spec/index.js';

// Keys of the real schema so fuzzed documents reach deep into the validators, mixed with junk.
const KEYS = [
  'ignition',
  'version',
  'config',
  'merge',
  'replace',
  'append',
  'source',
  'compression',
  'verification',
  'hash',
  'httpHeaders',
  'name',
  'value',
  'proxy',
  'httpProxy',
  'httpsProxy',
  'noProxy',
  'security',
  'tls',
  'certificateAuthorities',
  'timeouts',
  'storage',
  'files',
  'directories',
  'links',
  'disks',
  'partitions',
  'filesystems',
  'luks',
  'raid',
  'path',
  'mode',
  'overwrite',
  'contents',
  'user',
  'group',
  'id',
  'target',
  'hard',
  'device',
  'format',
  'label',
  'number',
  'sizeMiB',
  'startMiB',
  'guid',
  'typeGuid',
  'wipeTable',
  'options',
  'mountOptions',
  'clevis',
  'custom',
  'pin',
  'tang',
  'url',
  'thumbprint',
  'advertisement',
  'tpm2',
  'threshold',
  'cex',
  'enabled',
  'keyFile',
  'level',
  'devices',
  'spares',
  'systemd',
  'units',
  'dropins',
  'mask',
  'passwd',
  'users',
  'groups',
  'sshAuthorizedKeys',
  'shouldExist',
  'kernelArguments',
  'shouldNotExist',
  'filesystem',
  'networkd',
  'enable',
  'mount',
  '__proto__',
  'constructor',
  'x',
];
const STRINGS = [
  '',
  '/',
  '/etc/x',
  'rel/path',
  '/a/../b',
  'data:,hi',
  'data:;base64,!!',
  'http://[::1]a',
  'https://e/x',
  's3://b/k?versionId=',
  'arn:aws:s3:::b/k',
  'gs://b/o',
  'tftp://h/f',
  'sha512-00',
  `sha256-${'a'.repeat(64)}`,
  'gzip',
  'xz',
  'ext4',
  'xfs',
  'none',
  'virtiofs',
  'raid1',
  'linear',
  'a.service',
  'a@.service',
  'a@b.service',
  'x.conf',
  '[Unit',
  '[Unit]\nA=B',
  'A=B',
  '[X] junk',
  'core',
  '3.0.0',
  '3.4.0',
  '3.5.0',
  '3.6.0',
  '2.2.0',
  '3.7.0-experimental',
  '3.0',
  'x'.repeat(300),
  '\u0000\u007f',
  '%zz',
];
const prim = fc.oneof(
  fc.constantFrom(...STRINGS),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 0o20000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    prim,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('tree'), { maxKeys: 5 }),
  ),
}));
// documents that usually carry a real version so they get past version detection
const doc = fc.oneof(
  tree,
  fc.record({
    ignition: fc.oneof(fc.record({ version: fc.constantFrom(...STRINGS.slice(33, 39), ...SPEC_VERSIONS) }), tree),
    storage: tree,
    systemd: tree,
    passwd: tree,
    kernelArguments: tree,
  }),
);

function typedOnly(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof IgnitionError)) throw e;
    expect(typeof e.code).toBe('string');
  }
}

describe('hostile input', () => {
  it('10,000 fuzzed documents: parseConfig and validate only fail with typed errors', () => {
    let parsed = 0;
    fc.assert(
      fc.property(doc, (a) => {
        typedOnly(() => {
          parseConfig(JSON.stringify(a));
          parsed++;
        });
        const v = validate(a, { experimental: true });
        expect(Array.isArray(v.entries)).toBe(true);
      }),
      { numRuns: 10_000 },
    );
    // the generator must reach past the parser now and then, or the property would test little
    expect(parsed).toBeGreaterThan(10);
  }, 120_000);

  it('3,000 fuzzed pairs: merge, translate and compatible parsing only fail with typed errors', () => {
    fc.assert(
      fc.property(doc, doc, fc.constantFrom<SpecVersion>(...SPEC_VERSIONS), (a, b, to) => {
        typedOnly(() => parseConfig(JSON.stringify(a), { compatibleWith: '3.5.0', experimental: true }));
        typedOnly(() => merge(a as IgnitionConfigV3, b as IgnitionConfigV3));
        typedOnly(() => translate(a as IgnitionConfigV3, to, { experimental: true }));
      }),
      { numRuns: 3_000 },
    );
  }, 120_000);

  it('survives deep nesting, huge lists and odd bytes', () => {
    const deep = '{"ignition":{"version":"3.4.0"},"x":' + '['.repeat(50_000) + ']'.repeat(50_000) + '}';
    typedOnly(() => parseConfig(deep));
    const nested = JSON.parse('['.repeat(50_000) + ']'.repeat(50_000)) as unknown;
    typedOnly(() =>
      merge({ ignition: { version: '3.4.0' }, x: nested } as IgnitionConfigV3, { ignition: { version: '3.4.0' } }),
    );
    typedOnly(() => translate({ ignition: { version: '3.4.0' }, x: nested } as IgnitionConfigV3, '3.5.0'));
    // never throws: nesting beyond MAX_DEPTH is an error entry (upstream's JSON decoder refuses such depth too)
    const v = validate({ ignition: { version: '3.4.0' }, storage: { files: [{ path: '/a', x: nested }] } });
    expect(v.valid).toBe(false);
    expect(v.entries[0]?.message).toMatch(/nests deeper than 256 levels/);
    const many = JSON.stringify({
      ignition: { version: '3.4.0' },
      storage: { files: Array.from({ length: 20_000 }, (_, i) => ({ path: `/f/${i % 1000}` })) },
    });
    typedOnly(() => parseConfig(many));
    typedOnly(() => parseConfig(new Uint8Array([0xff, 0xfe, 0x00, 0x7b])));
    typedOnly(() => parseConfig('{"__proto__":{"polluted":true},"ignition":{"version":"3.4.0"}}'));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
