/**
 * The registries content against the MCO's shipped templates (policy.json, `99-<pool>-generated-registries`) and the
 * daemon's registries drain decision (helpers_test.go TestUpdatePolicyJSON, drain_test.go TestIsDrainRequired). The
 * TOML encoding and EditRegistriesConfig are tested in `@keelson/machineconfig` (test/controller/registries/).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  generateMachineConfigsForRole,
  loadTemplateTree,
  originalFiles,
  parsePayloadRef,
  registriesFiles,
  registriesIgnition,
  updatePolicyJSON,
  validBlockedAndAllowed,
  type LegacyPostConfigAction,
  type MirrorInputs,
} from '@keelson/machineconfig';
import { defaultTemplatesDir } from '../src/controllers/template/controller.js';
import { isDrainRequired, isDrainRequiredForNodeDisruptionActions } from '../src/daemon/registries-drain.js';
import type { ControllerConfig } from '../src/common/api-types.js';

const TEMPLATE = `unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n`;
const none: MirrorInputs = { idms: [], itms: [], icsp: [] };

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
