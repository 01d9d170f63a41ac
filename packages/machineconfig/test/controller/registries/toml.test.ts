/** registries.conf as BurntSushi/toml encodes and decodes upstream's V2RegistriesConf (`src/controller/registries/toml.ts`). */
import { describe, expect, it } from 'vitest';
import {
  decodeRegistriesConf,
  emptyRegistriesConf,
  emptyRegistry,
  encodeRegistriesConf,
  RegistriesConfError,
  type Registry,
} from '../../../src/index.js';

const TEMPLATE = `unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n`;
const reg = (r: Partial<Registry>): Registry => ({ ...emptyRegistry(), ...r });
const ep = (location: string, pullFromMirror = 'digest-only', insecure = false) => ({
  location,
  insecure,
  pullFromMirror,
});

describe('registries.conf TOML as BurntSushi/toml encodes V2RegistriesConf', () => {
  it('writes the template config with the struct’s unset string keys, no tables', () => {
    expect(encodeRegistriesConf(decodeRegistriesConf(TEMPLATE))).toBe(
      'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]\n' +
        'short-name-mode = ""\n' +
        'additional-layer-store-auth-helper = ""\n',
    );
  });

  it('writes [[registry]] tables indented, omitempty fields left out, mirrors as nested tables (docs/ImageMirrorSetDesign.md)', () => {
    const c = emptyRegistriesConf();
    c.registries = [
      reg({
        location: 'registry.access.redhat.com/ubi8/ubi-minimal',
        blocked: true,
        mirrors: [ep('example.io/digest-example/ubi-minimal')],
      }),
      reg({ prefix: '*.example.com', insecure: true }),
    ];
    expect(encodeRegistriesConf(c)).toBe(
      [
        'short-name-mode = ""',
        'additional-layer-store-auth-helper = ""',
        '',
        '[[registry]]',
        '  prefix = ""',
        '  location = "registry.access.redhat.com/ubi8/ubi-minimal"',
        '  blocked = true',
        '',
        '  [[registry.mirror]]',
        '    location = "example.io/digest-example/ubi-minimal"',
        '    pull-from-mirror = "digest-only"',
        '',
        '[[registry]]',
        '  prefix = "*.example.com"',
        '  insecure = true',
        '',
      ].join('\n'),
    );
  });

  it('escapes strings as the encoder does and sorts aliases', () => {
    const c = emptyRegistriesConf();
    c.shortNameMode = 'a"b\\c\td\u0001';
    c.aliases = { zeta: 'z.io/z', 'a/b': 'a.io/b' };
    expect(encodeRegistriesConf(c)).toBe(
      'short-name-mode = "a\\"b\\\\c\\td\\u0001"\nadditional-layer-store-auth-helper = ""\n\n[aliases]\n  "a/b" = "a.io/b"\n  zeta = "z.io/z"\n',
    );
  });

  it('decodes what it encodes, keeps nil vs empty, and ignores keys the struct lacks (as toml.Decode)', () => {
    const text = `# comment\nunqualified-search-registries = []\nunknown = "x"\n[[registry]]\nlocation = "a.io" # trailing\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = 'b.io'\ninsecure = true\n[other]\nk = "v"\n`;
    const c = decodeRegistriesConf(text);
    expect(c.unqualifiedSearchRegistries).toEqual([]);
    expect(c.registries).toEqual([
      reg({ location: 'a.io', mirrorByDigestOnly: true, mirrors: [ep('b.io', '', true)] }),
    ]);
    expect(decodeRegistriesConf(encodeRegistriesConf(c))).toEqual(c);
  });

  it('refuses what the Go struct cannot hold, naming the line', () => {
    expect(() => decodeRegistriesConf('a = 1\n')).toThrow(RegistriesConfError);
    expect(() => decodeRegistriesConf('\n\nshort-name-mode = true\n')).toThrow(
      /line 3: short-name-mode: incompatible types: TOML value has type boolean; destination has type string/,
    );
    expect(() => decodeRegistriesConf('[[registry.mirror]]\nlocation = "x"\n')).toThrow(
      /line 1: .*outside a \[\[registry\]\]/,
    );
    expect(() => decodeRegistriesConf('k = "unterminated\n')).toThrow(/line 1: unterminated string/);
    expect(() => decodeRegistriesConf('x'.repeat(2 * 1024 * 1024))).toThrow(/larger than/);
  });
});
