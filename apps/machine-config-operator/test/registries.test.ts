/**
 * The registries half of the container-runtime-config controller and the daemon's registries drain decision, against
 * upstream's tests (helpers_test.go TestUpdateRegistriesConfig / TestUpdatePolicyJSON / TestValidateRegistriesConfScopes,
 * drain_test.go TestIsDrainRequired) and BurntSushi/toml's output format.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  decodeRegistriesConf,
  emptyRegistriesConf,
  emptyRegistry,
  encodeRegistriesConf,
  RegistriesConfError,
  type Registry,
} from '../src/common/registries-toml.js';
import {
  editRegistriesConfig,
  RegistriesInputError,
  scopeIsNestedInsideScope,
  topoSorted,
  validateRegistriesConfScopes,
  type MirrorInputs,
} from '../src/controllers/registries/edit.js';
import { parsePayloadRef, updatePolicyJSON, validBlockedAndAllowed } from '../src/controllers/registries/policy.js';
import {
  originalFiles,
  registriesFiles,
  registriesIgnition,
  updateRegistriesConfig,
} from '../src/controllers/registries/content.js';
import { generateMachineConfigsForRole, type LegacyPostConfigAction, loadTemplateTree } from '@keelson/machineconfig';
import { defaultTemplatesDir } from '../src/controllers/template/controller.js';
import { isDrainRequired, isDrainRequiredForNodeDisruptionActions } from '../src/daemon/registries-drain.js';
import type { ControllerConfig } from '../src/common/api-types.js';

const TEMPLATE = `unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n`;
const none: MirrorInputs = { idms: [], itms: [], icsp: [] };
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

describe('EditRegistriesConfig (runtime-utils) through updateRegistriesConfig', () => {
  it('unchanged: no inputs keep the template config', () => {
    expect(decodeRegistriesConf(updateRegistriesConfig(TEMPLATE, [], [], none))).toEqual(
      decodeRegistriesConf(TEMPLATE),
    );
  });

  it('insecure+blocked (helpers_test.go)', () => {
    const out = decodeRegistriesConf(
      updateRegistriesConfig(
        TEMPLATE,
        ['registry.access.redhat.com', 'insecure.com', 'common.com'],
        ['blocked.com', 'common.com', 'docker.io'],
        none,
      ),
    );
    expect(out.registries).toEqual([
      reg({ location: 'blocked.com', blocked: true }),
      reg({ location: 'common.com', insecure: true, blocked: true }),
      reg({ location: 'docker.io', blocked: true }),
      reg({ location: 'registry.access.redhat.com', insecure: true }),
      reg({ location: 'insecure.com', insecure: true }),
    ]);
  });

  it('imageContentSourcePolicy with wildcard insecure/blocked scopes (helpers_test.go)', () => {
    const out = decodeRegistriesConf(
      updateRegistriesConfig(
        TEMPLATE,
        ['insecure.com', '*.insecure-example.com', '*.insecure.blocked-example.com'],
        ['blocked.com', '*.blocked.insecure-example.com', '*.blocked-example.com'],
        {
          idms: [],
          itms: [],
          icsp: [
            {
              spec: {
                repositoryDigestMirrors: [
                  { source: 'insecure.com/ns-i1', mirrors: ['blocked.com/ns-b1', 'other.com/ns-o1'] },
                  { source: 'blocked.com/ns-b/ns2-b', mirrors: ['other.com/ns-o2', 'insecure.com/ns-i2'] },
                  {
                    source: 'other.com/ns-o3',
                    mirrors: ['insecure.com/ns-i2', 'blocked.com/ns-b/ns3-b', 'foo.insecure-example.com/bar'],
                  },
                ],
              },
            },
          ],
        },
      ),
    );
    expect(out.registries).toEqual([
      reg({
        location: 'blocked.com/ns-b/ns2-b',
        blocked: true,
        mirrors: [ep('other.com/ns-o2'), ep('insecure.com/ns-i2', 'digest-only', true)],
      }),
      reg({
        location: 'insecure.com/ns-i1',
        insecure: true,
        mirrors: [ep('blocked.com/ns-b1'), ep('other.com/ns-o1')],
      }),
      reg({
        location: 'other.com/ns-o3',
        mirrors: [
          ep('insecure.com/ns-i2', 'digest-only', true),
          ep('blocked.com/ns-b/ns3-b'),
          ep('foo.insecure-example.com/bar', 'digest-only', true),
        ],
      }),
      reg({ location: 'blocked.com', blocked: true }),
      reg({ prefix: '*.blocked.insecure-example.com', blocked: true, insecure: true }),
      reg({ prefix: '*.blocked-example.com', blocked: true }),
      reg({ location: 'insecure.com', insecure: true }),
      reg({ prefix: '*.insecure-example.com', insecure: true }),
      reg({ prefix: '*.insecure.blocked-example.com', blocked: true, insecure: true }),
    ]);
  });

  it('merges mirror sets per source in preference order, NeverContactSource blocks, tag mirrors are tag-only, nested scopes inherit', () => {
    const c = decodeRegistriesConf(TEMPLATE);
    editRegistriesConfig(c, [], [], {
      idms: [
        { spec: { imageDigestMirrors: [{ source: 'q.io/ns', mirrors: ['b.io/m', 'c.io/m'] }] } },
        {
          spec: {
            imageDigestMirrors: [
              { source: 'q.io/ns', mirrors: ['a.io/m', 'b.io/m'], mirrorSourcePolicy: 'NeverContactSource' },
              { source: 'q.io/ns/sub', mirrors: ['q.io/ns/sub'] }, // only the source: not a mirror set
            ],
          },
        },
      ],
      itms: [{ spec: { imageTagMirrors: [{ source: 'q.io/ns/repo', mirrors: ['t.io/r'] }] } }],
      icsp: [],
    });
    expect(c.registries).toEqual([
      reg({ location: 'q.io/ns', blocked: true, mirrors: [ep('a.io/m'), ep('b.io/m'), ep('c.io/m')] }),
      reg({ location: 'q.io/ns/repo', mirrors: [ep('t.io/r', 'tag-only')] }),
    ]);
  });

  it('topological sort is deterministic and breaks loops at the first unused node', () => {
    expect(
      topoSorted([
        ['b', 'c'],
        ['a', 'b'],
      ]),
    ).toEqual(['a', 'b', 'c']);
    expect(
      topoSorted([
        ['x', 'y'],
        ['y', 'x'],
        ['y', 'z'],
      ]),
    ).toEqual(['x', 'y', 'z']);
  });

  it('scopes nest as ScopeIsNestedInsideScope says', () => {
    expect(scopeIsNestedInsideScope('a.io/ns/repo', 'a.io/ns')).toBe(true);
    expect(scopeIsNestedInsideScope('a.io/nsx', 'a.io/ns')).toBe(false);
    expect(scopeIsNestedInsideScope('foo.example.com/bar', '*.example.com')).toBe(true);
    expect(scopeIsNestedInsideScope('quay/bar.example.com', '*.example.com')).toBe(false);
    expect(scopeIsNestedInsideScope('foo.example.com:5000', '*.example.com')).toBe(true);
  });

  it('validateRegistriesConfScopes refuses bad scopes and policies with upstream’s messages', () => {
    expect(() => validateRegistriesConfScopes(['*.a/b'], [], [], none)).toThrow(
      'invalid entry for insecure registries "*.a/b"',
    );
    expect(() => validateRegistriesConfScopes([], [''], [], none)).toThrow('invalid entry for blocked registries ""');
    const conflict: MirrorInputs = {
      idms: [
        {
          spec: {
            imageDigestMirrors: [{ source: 'a.io/x', mirrors: ['m.io/x'], mirrorSourcePolicy: 'NeverContactSource' }],
          },
        },
      ],
      itms: [{ spec: { imageTagMirrors: [{ source: 'a.io/x', mirrors: ['m.io/x'] }] } }],
      icsp: [],
    };
    expect(() => validateRegistriesConfScopes([], [], [], conflict)).toThrow(
      /conflicting mirrorSourcePolicy is set for the same source "a.io\/x"/,
    );
    const self: MirrorInputs = {
      idms: [
        {
          spec: {
            imageDigestMirrors: [{ source: 'a.io/x', mirrors: ['a.io/x'], mirrorSourcePolicy: 'NeverContactSource' }],
          },
        },
      ],
      itms: [],
      icsp: [],
    };
    expect(() => validateRegistriesConfScopes([], [], [], self)).toThrow(
      /cannot set mirrorSourcePolicy: NeverContactSource if the source "a.io\/x" is one of the mirrors/,
    );
    const icsp: MirrorInputs = {
      idms: [],
      itms: [],
      icsp: [{ spec: { repositoryDigestMirrors: [{ source: 'Bad Source', mirrors: [] }] } }],
    };
    expect(() => validateRegistriesConfScopes([], [], [], icsp)).toThrow(RegistriesInputError);
    expect(() => validateRegistriesConfScopes([], [], [], icsp)).toThrow('invalid format for source "Bad Source"');
  });
});

describe('policy.json and blocked/allowed registries', () => {
  const template = readFileSync(
    new URL('../src/templates/worker/01-worker-container-runtime/_base/files/policy.yaml', import.meta.url),
    'utf8',
  )
    .split('\n')
    .slice(4)
    .map((l) => l.slice(4))
    .join('\n');
  const release = `release-reg.io/image/release@sha256:${'a'.repeat(64)}`;

  it('unchanged without lists; allowed → default reject; blocked → default accept (json.MarshalIndent)', () => {
    expect(updatePolicyJSON(template, null, null, release)).toBe(template);
    expect(updatePolicyJSON(template, null, ['allow.io', '*.allowed-example.com'], release)).toBe(
      `{
  "default": [
    {
      "type": "reject"
    }
  ],
  "transports": {
    "atomic": {
      "*.allowed-example.com": [
        {
          "type": "insecureAcceptAnything"
        }
      ],
      "allow.io": [
        {
          "type": "insecureAcceptAnything"
        }
      ]
    },
    "docker": {
      "*.allowed-example.com": [
        {
          "type": "insecureAcceptAnything"
        }
      ],
      "allow.io": [
        {
          "type": "insecureAcceptAnything"
        }
      ]
    },
    "docker-daemon": {
      "": [
        {
          "type": "insecureAcceptAnything"
        }
      ]
    }
  }
}`,
    );
    const blocked = JSON.parse(updatePolicyJSON(template, ['block.com', 'a.io/b/c/d'], null, release)) as {
      default: unknown;
      transports: Record<string, Record<string, unknown>>;
    };
    expect(blocked.default).toEqual([{ type: 'insecureAcceptAnything' }]);
    expect(Object.keys(blocked.transports['docker'] ?? {})).toEqual(['a.io/b/c/d', 'block.com']);
    expect(Object.keys(blocked.transports['atomic'] ?? {})).toEqual(['block.com']); // 3+ slashes are not atomic scopes
  });

  it('both lists only when allowed is just the payload repository', () => {
    const both = JSON.parse(updatePolicyJSON(template, ['block.com'], ['release-reg.io/image/release'], release)) as {
      default: unknown;
      transports: Record<string, Record<string, unknown>>;
    };
    expect(both.default).toEqual([{ type: 'insecureAcceptAnything' }]);
    expect(both.transports['docker']).toEqual({
      'block.com': [{ type: 'reject' }],
      'release-reg.io/image/release': [{ type: 'insecureAcceptAnything' }],
    });
    expect(() => updatePolicyJSON(template, ['block.com'], ['other.io'], release)).toThrow(
      'invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified',
    );
  });

  it('the payload registry is dropped from the blocked list unless an unblocked mirror serves it', () => {
    const src = { blockedRegistries: ['block.com', 'release-reg.io'] };
    const noMirror = validBlockedAndAllowed(release, src, none);
    expect(noMirror).toEqual({
      registriesBlocked: ['block.com'],
      policyBlocked: ['block.com'],
      allowed: null,
      error:
        'error adding ["release-reg.io"] to blocked registries, cannot block the repository being used by the payload',
    });
    const mirrored = validBlockedAndAllowed(release, src, {
      idms: [
        { spec: { imageDigestMirrors: [{ source: 'release-reg.io/image/release', mirrors: ['mirror.io/release'] }] } },
      ],
      itms: [],
      icsp: [],
    });
    expect(mirrored).toEqual({
      registriesBlocked: ['block.com', 'release-reg.io'],
      policyBlocked: ['block.com', 'release-reg.io'],
      allowed: ['release-reg.io/image/release'],
    });
  });

  it('parses release images as reference.ParseNamed (fully qualified only)', () => {
    expect(parsePayloadRef(release)).toEqual({ name: 'release-reg.io/image/release', digested: true });
    expect(parsePayloadRef('localhost:5000/ocp/release:4.20.1')).toEqual({
      name: 'localhost:5000/ocp/release',
      digested: false,
    });
    expect(() => parsePayloadRef('ubuntu')).toThrow('error parsing reference of release image');
    expect(() => parsePayloadRef('')).toThrow('error parsing reference of release image');
  });
});

describe('99-<pool>-generated-registries content from the shipped templates', () => {
  const tree = loadTemplateTree(defaultTemplatesDir());
  const cc = parseYaml(
    readFileSync(new URL('./data/upstream-template/controller_config_aws.yaml', import.meta.url), 'utf8'),
  ) as ControllerConfig;
  const spec = cc.spec;

  it('registries.conf from the role’s template with an IDMS; policy.json and search drop-in as asked', () => {
    const orig = originalFiles(generateMachineConfigsForRole(tree, spec, 'worker'));
    expect(orig.registriesConf).toBe(TEMPLATE);
    const files = registriesFiles(orig, {
      releaseImage: `quay.io/openshift-release-dev/ocp-release@sha256:${'b'.repeat(64)}`,
      registrySources: { allowedRegistries: ['quay.io'], containerRuntimeSearchRegistries: ['reg.example.com'] },
      mirrors: {
        idms: [
          {
            spec: {
              imageDigestMirrors: [
                { source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['mirror.example.com/ocp/release'] },
              ],
            },
          },
        ],
        itms: [],
        icsp: [],
      },
    });
    expect(files.map((f) => f.path)).toEqual([
      '/etc/containers/registries.conf',
      '/etc/containers/policy.json',
      '/etc/containers/registries.conf.d/01-image-searchRegistries.conf',
    ]);
    expect(files[0]?.data).toBe(
      [
        'unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]',
        'short-name-mode = ""',
        'additional-layer-store-auth-helper = ""',
        '',
        '[[registry]]',
        '  prefix = ""',
        '  location = "quay.io/openshift-release-dev/ocp-release"',
        '',
        '  [[registry.mirror]]',
        '    location = "mirror.example.com/ocp/release"',
        '    pull-from-mirror = "digest-only"',
        '',
      ].join('\n'),
    );
    expect(files[2]?.data).toBe(
      'unqualified-search-registries = ["reg.example.com"]\nshort-name-mode = ""\nadditional-layer-store-auth-helper = ""\n',
    );
    const ign = registriesIgnition(files) as { storage: { files: Array<Record<string, unknown>> } };
    expect(ign.storage.files[0]).toMatchObject({ path: '/etc/containers/registries.conf', overwrite: true, mode: 420 });
  });

  it('no registry settings: an MC with no files (upstream always writes it)', () => {
    const orig = originalFiles(generateMachineConfigsForRole(tree, spec, 'master'));
    const files = registriesFiles(orig, {
      releaseImage: `quay.io/openshift-release-dev/ocp-release@sha256:${'b'.repeat(64)}`,
      registrySources: {},
      mirrors: none,
    });
    expect(files).toEqual([]);
  });
});

describe('daemon: drain for registries.conf changes (drain_test.go TestIsDrainRequired)', () => {
  const data = JSON.parse(readFileSync(new URL('./data/registries/drain-cases.json', import.meta.url), 'utf8')) as {
    registriesConf: Record<string, string>;
    cases: Array<{ comment: string; actions: LegacyPostConfigAction[]; old: string; new: string; drain: boolean }>;
  };
  const ign = (name: string) => ({
    storage: {
      files: [
        {
          path: '/etc/containers/registries.conf',
          contents: { source: `data:,${encodeURIComponent(data.registriesConf[name] ?? '')}` },
        },
      ],
    },
  });

  it.each(data.cases.map((c, i) => [i, c] as const))('case#%i', (_i, c) => {
    const diff = c.old === c.new ? [] : ['/etc/containers/registries.conf'];
    expect(isDrainRequired(c.actions, diff, ign(c.old), ign(c.new)), c.comment).toBe(c.drain);
  });

  it('the Special node-disruption action drains only for unsafe changes; Reboot/Drain always', () => {
    const special = [{ type: 'Special' as const }];
    expect(isDrainRequiredForNodeDisruptionActions(special, ign('mc1'), ign('mc2'))).toBe(false); // mirror added
    expect(isDrainRequiredForNodeDisruptionActions(special, ign('mc2'), ign('mc1'))).toBe(true); // mirror removed
    expect(isDrainRequiredForNodeDisruptionActions([{ type: 'Drain' }], ign('mc1'), ign('mc1'))).toBe(true);
    expect(isDrainRequiredForNodeDisruptionActions([{ type: 'None' }], ign('mc1'), ign('mc2'))).toBe(false);
    const absent = { storage: { files: [] } };
    expect(isDrainRequiredForNodeDisruptionActions(special, absent, ign('mc3'))).toBe(true); // a mirror for all pulls
    const digestOnly = {
      storage: {
        files: [
          {
            path: '/etc/containers/registries.conf',
            contents: {
              source: `data:,${encodeURIComponent('[[registry]]\nlocation = "q.io/r"\n[[registry.mirror]]\nlocation = "m.io/r"\npull-from-mirror = "digest-only"\n')}`,
            },
          },
        ],
      },
    };
    expect(isDrainRequiredForNodeDisruptionActions(special, absent, digestOnly)).toBe(false); // an IDMS added
  });
});
