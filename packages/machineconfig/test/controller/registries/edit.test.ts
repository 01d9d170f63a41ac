/**
 * EditRegistriesConfig as upstream's runtime-utils does it, through updateRegistriesConfig
 * (`src/controller/registries/edit.ts`; helpers_test.go TestUpdateRegistriesConfig / TestValidateRegistriesConfScopes).
 */
import { describe, expect, it } from 'vitest';
import {
  decodeRegistriesConf,
  emptyRegistry,
  editRegistriesConfig,
  RegistriesInputError,
  scopeIsNestedInsideScope,
  topoSorted,
  updateRegistriesConfig,
  validateRegistriesConfScopes,
  type MirrorInputs,
  type Registry,
} from '../../../src/index.js';

const none: MirrorInputs = { idms: [], itms: [], icsp: [] };
const TEMPLATE = `unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n`;
const reg = (r: Partial<Registry>): Registry => ({ ...emptyRegistry(), ...r });
const ep = (location: string, pullFromMirror = 'digest-only', insecure = false) => ({
  location,
  insecure,
  pullFromMirror,
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
