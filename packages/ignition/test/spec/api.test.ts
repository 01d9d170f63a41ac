import { describe, expect, it } from 'vitest';
import {
  convertIgnition,
  getSchema,
  getSupportedMinorVersion,
  getSupportedMinorVersions,
  IgnitionConverterError,
  IgnitionParseError,
  IgnitionTranslateError,
  IgnitionMergeError,
  merge,
  parseAndConvertConfig,
  parseConfig,
  translate,
  validate,
  type IgnitionConfig,
  type IgnitionConfigV2,
  type IgnitionConfigV3,
  type SpecVersion,
} from '../../src/spec/index.js';
import { mcoVectors, prune } from './vectors.js';

function parseErr(fn: () => unknown): IgnitionParseError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(IgnitionParseError);
    return e as IgnitionParseError;
  }
  throw new Error('expected an IgnitionParseError');
}

function translateErr(fn: () => unknown): IgnitionTranslateError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(IgnitionTranslateError);
    return e as IgnitionTranslateError;
  }
  throw new Error('expected an IgnitionTranslateError');
}

describe('mco-vectors: IgnitionConverter', () => {
  const vs = mcoVectors.filter((v) => v.function.startsWith('IgnitionConverter.'));
  it('has the vectors', () => expect(vs.length).toBe(11));
  for (const v of vs) {
    it(v.name, () => {
      if (v.function === 'IgnitionConverter.GetSupportedMinorVersions') {
        expect(getSupportedMinorVersions()).toEqual(v.expected['versions']);
      } else if (v.function === 'IgnitionConverter.GetSupportedMinorVersion') {
        if ('error' in v.expected) {
          expect(() => getSupportedMinorVersion(v.input['version']!)).toThrow(
            new IgnitionConverterError(String(v.expected['error'])),
          );
        } else {
          expect(getSupportedMinorVersion(v.input['version']!)).toBe(v.expected['version']);
        }
      } else {
        const from = v.input['sourceVersion'] as SpecVersion;
        const to = v.input['targetVersion'] as SpecVersion;
        const cfg = { ignition: { version: from } } as IgnitionConfig;
        if ('error' in v.expected) {
          expect(() => convertIgnition(cfg, from, to)).toThrow(String(v.expected['error']));
        } else {
          expect((convertIgnition(cfg, from, to) as { ignition: { version: string } }).ignition.version).toBe(to);
        }
      }
    });
  }
  it('converts a 2.2 MachineConfig the way the render vector expects', () => {
    const v = mcoVectors.find((x) => x.name === 'render/ignition-2.2-converted-and-deduplicated')!;
    const input = (v.input as unknown as { configs: { spec: { configRaw: string } }[] }).configs[0]!.spec.configRaw;
    const expected = JSON.parse((v.expected as unknown as { spec: { configRaw: string } }).spec.configRaw) as unknown;
    expect(prune(parseAndConvertConfig(input))).toEqual(expected);
  });
});

describe('parseConfig', () => {
  it('detects the version and returns the config with warnings', () => {
    const text = JSON.stringify(
      { ignition: { version: '3.3.0' }, storage: { files: [{ path: '/a', bogus: 1 }] } },
      null,
      1,
    );
    const r = parseConfig(text);
    expect(r.version).toBe('3.3.0');
    // line/column of the value, 1-based
    const line = text.split('\n').findIndex((l) => l.includes('"bogus"')) + 1;
    const column = (text.split('\n')[line - 1] ?? '').indexOf(': 1') + 3;
    expect(r.report).toEqual([
      {
        kind: 'warning',
        message: 'unused key bogus',
        path: ['storage', 'files', 0, 'bogus'],
        name: null,
        line,
        column,
      },
    ]);
  });
  it('accepts bytes', () => {
    expect(parseConfig(new TextEncoder().encode('{"ignition":{"version":"2.2.0"}}')).version).toBe('2.2.0');
  });
  it('refuses empty input', () => {
    const e = parseErr(() => parseConfig(''));
    expect(e.code).toBe('IGNITION_EMPTY');
    expect(e.message).toBe('not a config (empty)');
  });
  it('refuses bad JSON', () => {
    const e = parseErr(() => parseConfig('{"ignition": {"version": "3.0.0"},}'));
    expect(e.code).toBe('IGNITION_INVALID_JSON');
    expect(e.message.startsWith('config is not valid')).toBe(true);
  });
  it('refuses an unparsable version', () => {
    const e = parseErr(() => parseConfig('{"ignition": {"version": "three"}}'));
    expect(e.code).toBe('IGNITION_INVALID_VERSION');
    expect(e.message.startsWith("invalid config version (couldn't parse)")).toBe(true);
    expect(e.path).toEqual(['ignition', 'version']);
  });
  it('refuses unknown versions', () => {
    for (const v of ['3.99.0', '2.1.0', '4.0.0', '3.7.0-experimental']) {
      const e = parseErr(() => parseConfig(JSON.stringify({ ignition: { version: v } })));
      expect(e.code).toBe('IGNITION_UNKNOWN_VERSION');
      expect(e.message.startsWith('unsupported config version')).toBe(true);
    }
  });
  it('accepts 3.7.0-experimental only with the option', () => {
    expect(parseConfig('{"ignition":{"version":"3.7.0-experimental"}}', { experimental: true }).version).toBe(
      '3.7.0-experimental',
    );
  });
  it('refuses type errors with the JSON path', () => {
    const e = parseErr(() =>
      parseConfig('{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/a","mode":"0644"}]}}'),
    );
    expect(e.code).toBe('IGNITION_INVALID');
    expect(e.report[0]!.path).toEqual(['storage', 'files', 0, 'mode']);
  });
  it('refuses a non-object document', () => {
    expect(parseErr(() => parseConfig('[1,2]')).code).toBe('IGNITION_INVALID');
  });
  it('enforces maxBytes', () => {
    expect(parseErr(() => parseConfig('{"ignition":{"version":"3.0.0"}}', { maxBytes: 5 })).message).toContain(
      'exceeds',
    );
  });
  it('translates with compatibleWith and refuses newer configs', () => {
    expect(parseConfig('{"ignition":{"version":"3.1.0"}}', { compatibleWith: '3.4.0' }).config).toEqual({
      ignition: { version: '3.4.0' },
    });
    expect(parseErr(() => parseConfig('{"ignition":{"version":"3.5.0"}}', { compatibleWith: '3.4.0' })).code).toBe(
      'IGNITION_UNKNOWN_VERSION',
    );
  });
});

describe('validate', () => {
  it('reports semantic errors, schema errors and unused keys with paths', () => {
    const r = validate({
      ignition: { version: '3.4.0' },
      storage: {
        files: [{ path: '/etc/x', contents: { source: 'ftp://example.com/x', compression: 'xz' } }, { path: '/etc/x' }],
        directories: [{ path: '/etc/x' }],
        links: [{ path: '/l', target: '/t', extra: true }],
      },
      systemd: { units: [{ name: 'foo', contents: '[Unit' }] },
      passwd: { users: [{ name: 'core', uid: 'zero' }] },
    });
    expect(r.valid).toBe(false);
    const got = r.entries.map((e) => `${e.kind} ${e.path.join('.')}: ${e.message}`);
    expect(got).toEqual([
      'error storage.files.0.contents.compression: invalid compression method',
      'error storage.files.0.contents.source: invalid url scheme',
      'error systemd.units.0.name: invalid systemd unit extension',
      'error systemd.units.0.contents: invalid unit content: unable to find end of section',
      // files, directories and links share one key space; directories come first in upstream's field order
      'error storage.files.0: duplicate entry defined',
      'error storage.files.1: duplicate entry defined',
      'error passwd.users.0.uid: cannot unmarshal string into a field of type integer or null',
      'warning storage.links.0.extra: unused key extra',
    ]);
  });
  it('applies per-version rules', () => {
    const sha256 = {
      ignition: { version: '3.0.0' },
      storage: {
        files: [{ path: '/a', contents: { source: 'data:,', verification: { hash: `sha256-${'a'.repeat(64)}` } } }],
      },
    };
    expect(validate(sha256).entries.map((e) => e.message)).toEqual(['unrecognized hash function']);
    expect(validate({ ...sha256, ignition: { version: '3.1.0' } }).valid).toBe(true);
    const special = { ignition: { version: '3.5.0' }, storage: { files: [{ path: '/a', mode: 0o4755 }] } };
    expect(validate(special).entries).toEqual([
      {
        kind: 'warning',
        message: 'setuid/setgid/sticky bits are not supported or functional in spec versions older than 3.6.0',
        path: ['storage', 'files', 0, 'mode'],
        name: 'ErrModeSpecialBits',
      },
    ]);
    expect(validate({ ...special, ignition: { version: '3.6.0' } }).entries).toEqual([]);
    const gs = {
      ignition: { version: '3.1.0' },
      storage: { files: [{ path: '/a', contents: { source: 'gs://b/o' } }] },
    };
    expect(validate(gs).entries.map((e) => e.message)).toEqual(['invalid url scheme']);
    expect(validate({ ...gs, ignition: { version: '3.2.0' } }).valid).toBe(true);
    const none = { ignition: { version: '3.2.0' }, storage: { filesystems: [{ device: '/dev/sda', format: 'none' }] } };
    expect(validate(none).entries.map((e) => e.message)).toEqual(['invalid filesystem format']);
    expect(validate({ ...none, ignition: { version: '3.3.0' } }).valid).toBe(true);
    const virtiofs = {
      ignition: { version: '3.7.0-experimental' },
      storage: { filesystems: [{ device: 'tag', format: 'virtiofs', path: '/mnt' }] },
    };
    expect(validate(virtiofs).valid).toBe(false);
    expect(validate(virtiofs, { experimental: true }).valid).toBe(true);
  });
  it('warns about fields a version does not define', () => {
    const r = validate({ ignition: { version: '3.2.0' }, kernelArguments: { shouldExist: ['a'] } });
    expect(r.entries).toEqual([
      { kind: 'warning', message: 'unused key kernelArguments', path: ['kernelArguments'], name: null },
    ]);
  });
  it('validates spec 2.2', () => {
    expect(
      validate({ ignition: { version: '2.2.0' }, storage: { files: [{ filesystem: 'root', path: '/a', mode: 420 }] } })
        .valid,
    ).toBe(true);
    const r = validate({
      ignition: { version: '2.2.0' },
      storage: { files: [{ path: 'a', mode: 99999 }] },
      networkd: { units: [{ name: 'x.txt' }] },
    });
    expect(r.entries.map((e) => `${e.path.join('.')}: ${e.message}`)).toEqual([
      'storage.files.0.filesystem: no filesystem specified',
      'storage.files.0.path: path not absolute',
      'storage.files.0.mode: illegal file mode',
      'networkd.units.0.name: invalid networkd unit extension',
    ]);
  });
  it('applies the spec 2.2 warnings and filesystem rules of ignition v0.35', () => {
    const r = validate({
      ignition: { version: '2.2.0' },
      storage: {
        filesystems: [
          { name: 'data', mount: { device: '/dev/sdb', format: 'xfs', create: { force: true } }, path: '/x' },
        ],
        files: [{ filesystem: 'other', path: '/a', append: true, overwrite: true, contents: { source: 'data:,' } }],
      },
    });
    expect(r.entries.map((e) => `${e.kind} ${e.path.join('.')}: ${e.message}`)).toEqual([
      'warning storage.files.0.filesystem: File "/a" references nonexistent filesystem "other". (This is ok if it is defined in a referenced config)',
      'warning storage.files.0.mode: permissions unset, defaulting to 0000',
      'error storage.files.0: cannot set both append and overwrite to true',
      'error storage.filesystems.0: filesystem has both mount and path defined',
      'warning storage.filesystems.0.mount.create: the create object has been deprecated in favor of mount-level options',
    ]);
  });
  it('reports an unusable version', () => {
    expect(validate({ ignition: { version: 'x' } }).entries[0]!.message).toBe(
      "invalid config version (couldn't parse)",
    );
    expect(validate('nope').valid).toBe(false);
  });
  it('ships the upstream schemas', () => {
    expect(Object.keys(getSchema('3.4.0')!['properties'] as object)).toContain('kernelArguments');
    expect(getSchema('9.9.9')).toBeUndefined();
  });
});

describe('merge API', () => {
  it('refuses spec 2 configs', () => {
    expect(() => merge({ ignition: { version: '2.2.0' } }, { ignition: { version: '3.0.0' } })).toThrow(
      IgnitionMergeError,
    );
  });
  it('does not modify its inputs', () => {
    const p: IgnitionConfigV3 = { ignition: { version: '3.4.0' }, storage: { files: [{ path: '/a', mode: 1 }] } };
    const c: IgnitionConfigV3 = { ignition: { version: '3.4.0' }, storage: { files: [{ path: '/a', mode: 2 }] } };
    const before = JSON.stringify([p, c]);
    merge(p, c);
    expect(JSON.stringify([p, c])).toBe(before);
  });
});

describe('translate', () => {
  it('translates up with the 3.3 and 3.6 adjustments', () => {
    const c = {
      ignition: { version: '3.2.0' },
      storage: {
        raid: [
          { name: 'md', devices: ['/dev/a'], level: 'raid1' },
          { name: 'x', devices: ['/dev/b'] },
        ],
        links: [{ path: '/l', target: '/t' }],
        files: [{ path: '/f', mode: 0o4755 }],
      },
    } as IgnitionConfigV3;
    expect(translate(c, '3.3.0')).toEqual({
      ...c,
      ignition: { version: '3.3.0' },
      storage: {
        ...c.storage,
        raid: [
          { name: 'md', devices: ['/dev/a'], level: 'raid1' },
          { name: 'x', devices: ['/dev/b'], level: '' },
        ],
      },
    });
    const six = translate(c, '3.6.0') as IgnitionConfigV3;
    expect(six.storage!.files![0]!.mode).toBe(0o755);
  });
  it('turns 3.2 clevis/custom pointer objects into 3.3 values and back', () => {
    const c32: IgnitionConfigV3 = {
      ignition: { version: '3.2.0' },
      storage: {
        luks: [
          { name: 'r', device: '/dev/a', clevis: { custom: { pin: 'tpm2', config: '{}' } } },
          { name: 's', device: '/dev/b', clevis: { tpm2: true } },
        ],
      },
    };
    const c33 = translate(c32, '3.3.0') as IgnitionConfigV3;
    expect(c33.storage!.luks).toEqual(c32.storage!.luks);
    expect(translate(c33, '3.2.0')).toEqual(c32);
  });
  it('drops tang advertisement on 3.5 -> 3.4 like ign-converter', () => {
    const tang = { url: 'http://t', thumbprint: 'x', advertisement: '{"payload":"e30"}' };
    const c: IgnitionConfigV3 = {
      ignition: { version: '3.5.0' },
      storage: { luks: [{ name: 'r', device: '/dev/a', clevis: { tang: [tang] } }] },
    };
    expect((translate(c, '3.4.0') as IgnitionConfigV3).storage!.luks![0]!.clevis!.tang).toEqual([
      { url: 'http://t', thumbprint: 'x' },
    ]);
  });
  it('round-trips 3.1 -> 3.5 -> 3.1', () => {
    const c: IgnitionConfigV3 = {
      ignition: { version: '3.1.0' },
      storage: {
        files: [{ path: '/a', contents: { source: 'https://x/y', httpHeaders: [{ name: 'A', value: 'b' }] } }],
      },
      systemd: { units: [{ name: 'a.service', mask: true }] },
    };
    expect(translate(translate(c, '3.5.0'), '3.1.0')).toEqual(c);
  });
  const down: [string, IgnitionConfigV3, SpecVersion, string, (string | number)[]][] = [
    [
      'cex',
      { ignition: { version: '3.5.0' }, storage: { luks: [{ name: 'r', device: '/dev/a', cex: { enabled: true } }] } },
      '3.4.0',
      "invalid input config: 'Cex' type is not supported in spec v3.4",
      ['storage', 'luks', 0, 'cex'],
    ],
    [
      'openOptions',
      { ignition: { version: '3.5.0' }, storage: { luks: [{ name: 'r', device: '/dev/a', openOptions: ['--x'] }] } },
      '3.3.0',
      'Invalid input config: luks openOptions is not supported in spec v3.3',
      ['storage', 'luks', 0, 'openOptions'],
    ],
    [
      'special bits',
      { ignition: { version: '3.4.0' }, storage: { directories: [{ path: '/d', mode: 0o1777 }] } },
      '3.3.0',
      'Invalid input config: special mode bits are not supported in spec v3.3',
      ['storage', 'directories', 0, 'mode'],
    ],
    [
      'arn',
      {
        ignition: { version: '3.4.0' },
        storage: { files: [{ path: '/a', contents: { source: 'arn:aws:s3:::bucket/key' } }] },
      },
      '3.3.0',
      'Invalid input config: arn: scheme for s3 is not supported in spec v3.3',
      ['storage', 'files', 0, 'contents', 'source'],
    ],
    [
      'kargs',
      { ignition: { version: '3.3.0' }, kernelArguments: { shouldExist: ['a'] } },
      '3.2.0',
      'KernelArguments is not supported on 3.2',
      ['kernelArguments'],
    ],
    [
      'luks',
      { ignition: { version: '3.2.0' }, storage: { luks: [{ name: 'r', device: '/dev/a' }] } },
      '3.1.0',
      'LUKS is not supported on 3.1',
      ['storage', 'luks'],
    ],
    [
      'shouldExist',
      { ignition: { version: '3.2.0' }, passwd: { users: [{ name: 'u', shouldExist: false }] } },
      '3.1.0',
      'ShouldExist in Passwd.Users is not supported on 3.1',
      ['passwd', 'users', 0, 'shouldExist'],
    ],
    [
      'resize',
      {
        ignition: { version: '3.2.0' },
        storage: { disks: [{ device: '/dev/a', partitions: [{ number: 1, resize: true }] }] },
      },
      '3.1.0',
      'Resize in Storage.Disks.Partitions is not supported on 3.1',
      ['storage', 'disks', 0, 'partitions', 0, 'resize'],
    ],
    [
      'proxy to 2.2',
      { ignition: { version: '3.2.0', proxy: { httpProxy: 'http://p' } } },
      '2.2.0',
      'HTTP proxies in Ignition.Proxy are not supported on 2.2',
      ['ignition', 'proxy'],
    ],
    [
      'sizeMiB to 2.2',
      {
        ignition: { version: '3.5.0' },
        storage: { disks: [{ device: '/dev/a', partitions: [{ number: 1, sizeMiB: 5 }] }] },
      },
      '2.2.0',
      'SizeMiB and StartMiB in Storage.Disks.Partitions is not supported on 2.2',
      ['storage', 'disks', 0, 'partitions', 0],
    ],
    [
      'invalid input',
      { ignition: { version: '3.4.0' }, storage: { files: [{ path: 'rel' }] } },
      '3.3.0',
      'Invalid input config:\nerror at $.storage.files.0.path: path not absolute',
      ['storage', 'files', 0, 'path'],
    ],
  ];
  for (const [name, cfg, to, message, path] of down) {
    it(`refuses down-translation: ${name}`, () => {
      const e = translateErr(() => translate(cfg, to));
      expect(e.message).toBe(message);
      expect(e.path).toEqual(path);
      expect(e.code).toBe('IGNITION_TRANSLATE');
    });
  }
  it('serves 2.2 from 3.0 and 3.1 through 3.2', () => {
    const c: IgnitionConfigV3 = {
      ignition: { version: '3.0.0' },
      systemd: { units: [{ name: 'a.service', enabled: true, contents: '[Unit]' }] },
    };
    expect(translate(c, '2.2.0')).toEqual({
      ignition: { version: '2.2.0' },
      systemd: { units: [{ name: 'a.service', enabled: true, contents: '[Unit]' }] },
    });
  });
  it('has no converter down to 3.0', () => {
    expect(translateErr(() => translate({ ignition: { version: '3.2.0' } }, '3.0.0')).message).toContain(
      'not supported',
    );
  });
  it('serves 2.2 from 3.5 (filesystem mapping, appends split, overwrite default)', () => {
    const c: IgnitionConfigV3 = {
      ignition: { version: '3.5.0', config: { merge: [{ source: 'https://x/c.ign' }] } },
      storage: {
        filesystems: [
          { device: '/dev/sdb', format: 'xfs', path: '/var/data' },
          { device: '/dev/sdc', format: 'ext4' },
        ],
        files: [
          { path: '/var/data/a', contents: { source: 'data:,a' }, append: [{ source: 'data:,b' }] },
          { path: '/etc/only-path' },
        ],
        links: [{ path: '/etc/l', target: '/t', user: { id: 0 } }],
      },
    };
    expect(translate(c, '2.2.0')).toEqual({
      ignition: { version: '2.2.0', config: { append: [{ source: 'https://x/c.ign' }] } },
      storage: {
        filesystems: [
          { name: '/var/data', mount: { device: '/dev/sdb', format: 'xfs' } },
          { name: '1', mount: { device: '/dev/sdc', format: 'ext4' } },
        ],
        files: [
          // Go's 2.2 types drop zero values except in pointer fields (overwrite stays false explicitly)
          { filesystem: '/var/data', path: '/a', overwrite: false, contents: { source: 'data:,a' } },
          { filesystem: '/var/data', path: '/a', overwrite: false, contents: { source: 'data:,b' }, append: true },
        ],
        links: [{ filesystem: 'root', path: '/etc/l', user: { id: 0 }, target: '/t' }],
      },
    });
  });
  it('converts 2.2 like the MCO: dedupe, core user collapse, root filesystem', () => {
    const v2: IgnitionConfigV2 = {
      ignition: { version: '2.2.0' },
      passwd: {
        users: [
          { name: 'core', sshAuthorizedKeys: ['k1', 'k1'] },
          { name: 'core', sshAuthorizedKeys: ['k2', 'k1'] },
        ],
      },
      storage: {
        files: [
          { filesystem: 'root', path: '/etc/a', contents: { source: 'data:,old' }, mode: 420 },
          { filesystem: 'root', path: '/etc/b', contents: { source: 'data:,b' }, mode: 420, overwrite: false },
          { filesystem: 'root', path: '/etc/a', contents: { source: 'data:,new' }, mode: 420 },
        ],
        directories: [{ filesystem: 'root', path: '/etc/d', mode: 493 }],
      },
      systemd: {
        units: [
          { name: 'x.service', enable: true, contents: '[Unit]', dropins: [{ name: 'a.conf', contents: '[Unit]' }] },
          { name: 'x.service', enabled: false, dropins: [{ name: 'b.conf', contents: '[Unit]' }] },
        ],
      },
    };
    expect(translate(v2, '3.5.0')).toEqual({
      ignition: { version: '3.5.0' },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k2', 'k1'] }] },
      storage: {
        files: [
          { path: '/etc/a', overwrite: true, mode: 420, contents: { source: 'data:,new' } },
          { path: '/etc/b', overwrite: false, mode: 420, contents: { source: 'data:,b' } },
        ],
        directories: [{ path: '/etc/d', mode: 493 }],
      },
      systemd: {
        units: [
          {
            name: 'x.service',
            enabled: false,
            dropins: [
              { name: 'b.conf', contents: '[Unit]' },
              { name: 'a.conf', contents: '[Unit]' },
            ],
          },
        ],
      },
    });
  });
  it('refuses 2.2 content spec 3 cannot take', () => {
    expect(
      translateErr(() => translate({ ignition: { version: '2.2.0' }, passwd: { users: [{ name: 'bob' }] } }, '3.5.0'))
        .message,
    ).toBe('unexpected user with name: bob. Only core user is supported');
    expect(
      translateErr(() =>
        translate(
          { ignition: { version: '2.2.0' }, networkd: { units: [{ name: 'a.network', contents: '[Match]' }] } },
          '3.5.0',
        ),
      ).message,
    ).toBe('config includes deprecated networkd section - use Files instead');
    const fs: IgnitionConfigV2 = {
      ignition: { version: '2.2.0' },
      storage: { filesystems: [{ name: 'data', mount: { device: '/dev/sdb', format: 'xfs' } }] },
    };
    expect(translateErr(() => translate(fs, '3.5.0')).message).toContain(
      'Config defined filesystem "data" but no mapping was defined.',
    );
    const dup: IgnitionConfigV2 = {
      ignition: { version: '2.2.0' },
      storage: {
        files: [{ filesystem: 'root', path: '/a', contents: { source: 'data:,' } }],
        directories: [{ filesystem: 'root', path: '/a' }],
      },
    };
    expect(translateErr(() => translate(dup, '3.5.0')).message).toBe(
      'Config has conflicting inodes: "File: /a" and "Directory: /a".  All files, directories and links must specify a unique `path`.',
    );
  });
  it('refuses unknown versions', () => {
    expect(() => translate({ ignition: { version: '3.9.0' } }, '3.4.0')).toThrow(IgnitionTranslateError);
    expect(() => translate({ ignition: { version: '3.4.0' } }, '3.7.0-experimental')).toThrow(IgnitionTranslateError);
    expect(
      (translate({ ignition: { version: '3.4.0' } }, '3.7.0-experimental', { experimental: true }) as IgnitionConfigV3)
        .ignition!.version,
    ).toBe('3.7.0-experimental');
  });
});
