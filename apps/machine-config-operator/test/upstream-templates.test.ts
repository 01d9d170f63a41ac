/**
 * Upstream's template tests of release-4.20 (pkg/controller/template/render_test.go) reproduced: every
 * test_data/controller_config_*.yaml fixture through the whole default template tree (upstream's `templates/`),
 * plus the function tables of TestCloudProvider, TestCredentialProviderConfigFlag and TestSkipMissing.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ControllerConfig } from '../src/common/api-types.js';
import { defaultTemplatesDir } from '../src/controllers/template/controller.js';
import {
  dataURLEscape,
  generateTemplateMachineConfigs,
  loadTemplateTree,
  platformDirs,
  renderConfig,
  renderTemplateText,
  type TemplateInputs,
} from '@keelson/machineconfig';

const dataDir = join(import.meta.dirname, 'data', 'upstream-template');
const fixtures = readdirSync(dataDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const tree = loadTemplateTree(defaultTemplatesDir());
const load = (f: string): ControllerConfig =>
  ({
    metadata: { name: 'machine-config-controller', uid: 'uid-1' },
    ...(parseYaml(readFileSync(join(dataDir, f), 'utf8')) as object),
  }) as ControllerConfig;
type Ign = {
  storage?: { files?: Array<{ path: string; contents: { source?: string }; mode?: number }> };
  systemd?: { units?: Array<{ name: string }> };
};
const ign = (mc: { spec?: unknown }): Ign => (mc.spec as { config?: Ign } | undefined)?.config ?? {};
const hasFile = (mcs: Array<{ spec?: unknown }>, path: string): boolean =>
  mcs.some((m) => (ign(m).storage?.files ?? []).some((f) => f.path === path));
const hasUnit = (mcs: Array<{ spec?: unknown }>, name: string): boolean =>
  mcs.some((m) => (ign(m).systemd?.units ?? []).some((u) => u.name === name));
const role = (m: { metadata: { labels?: Record<string, string> } }): string =>
  m.metadata.labels?.['machineconfiguration.openshift.io/role'] ?? '';

describe('TestGenerateMachineConfigs: every upstream fixture through the whole tree', () => {
  it.each(fixtures)('%s', (f) => {
    const cc = load(f);
    const mcs = generateTemplateMachineConfigs(tree, cc, 'dummy', { pullSecret: '{"dummy":"dummy"}' });
    const arbiter =
      (cc.spec.infra?.status as { controlPlaneTopology?: string } | undefined)?.controlPlaneTopology ===
      'HighlyAvailableArbiter';
    const roles = arbiter ? ['arbiter', 'master', 'worker'] : ['master', 'worker'];
    expect(mcs.map((m) => m.metadata.name)).toEqual(
      roles.flatMap((r) => [`00-${r}`, `01-${r}-container-runtime`, `01-${r}-kubelet`]).sort(),
    );
    for (const m of mcs) {
      expect(role(m)).not.toBe('');
      expect(m.metadata.annotations).toEqual({
        'machineconfiguration.openshift.io/generated-by-controller-version': 'dummy',
      });
      expect(m.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'ControllerConfig',
          name: 'machine-config-controller',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    for (const r of ['master', 'worker']) {
      const mine = mcs.filter((m) => role(m) === r);
      expect(hasFile(mine, '/var/lib/kubelet/config.json')).toBe(true);
      expect(hasUnit(mine, 'kubelet.service')).toBe(true);
      const mtu =
        hasFile(mine, '/usr/local/bin/mtu-migration.sh') || hasFile(mine, '/etc/systemd/system/mtu-migration.service');
      expect(mtu).toBe(f === 'controller_config_mtu_migration.yaml');
    }
    if (cc.spec.networkType !== 'OpenShiftSDN') expect(hasFile(mcs, '/etc/sysctl.d/forward.conf')).toBe(false);
    // the pull secret file carries the compacted secret, percent-encoded as Go's dataurl does
    const ps = mcs[0] && (ign(mcs[0]).storage?.files ?? []).find((x) => x.path === '/var/lib/kubelet/config.json');
    expect(ps?.contents.source).toBe(`data:,${dataURLEscape('{"dummy":"dummy"}\n')}`);
    expect(ps?.mode).toBe(0o600);
  });
});

describe('TestInvalidPlatform', () => {
  it('an unknown platform renders as none; _base is refused with upstream’s message', () => {
    const cc = load('controller_config_aws.yaml');
    const status = (cc.spec.infra as { status: { platformStatus: { type: string } } }).status;
    status.platformStatus.type = '_bad_';
    expect(() => generateTemplateMachineConfigs(tree, cc, 'dummy', { pullSecret: '{}' })).not.toThrow();
    expect(platformDirs(cc)).toEqual(['_base', 'none']);
    status.platformStatus.type = '_base';
    expect(() => generateTemplateMachineConfigs(tree, cc, 'dummy', { pullSecret: '{}' })).toThrow(
      'failed to create MachineConfig for role master: platform _base unsupported',
    );
  });
});

const withPlatform = (type: string): ReturnType<typeof renderConfig> =>
  renderConfig(
    { infra: { status: { platform: type, platformStatus: { type } } } } as ControllerConfig['spec'],
    '{"dummy":"dummy"}',
    'dummy',
    [],
  );

describe('template functions (TestCloudProvider, TestCredentialProviderConfigFlag, TestSkipMissing)', () => {
  it.each([
    ['AWS', 'external'],
    ['OpenStack', 'external'],
    ['Azure', 'external'],
    ['GCP', 'external'],
    ['VSphere', 'external'],
    ['PowerVS', 'external'],
    ['Nutanix', 'external'],
    ['BareMetal', ''],
    ['Libvirt', ''],
    ['KubeVirt', ''],
    ['Kubevirt', 'external'],
    ['None', ''],
  ])('cloudProvider %s', (p, want) =>
    expect(renderTemplateText(withPlatform(p), 'x', '{{cloudProvider .}}')).toBe(want),
  );

  const flags = (file: string): string =>
    `--image-credential-provider-bin-dir=/usr/libexec/kubelet-image-credential-provider-plugins --image-credential-provider-config=/etc/kubernetes/credential-providers/${file}`;
  it.each([
    ['AWS', flags('ecr-credential-provider.yaml')],
    ['Azure', flags('acr-credential-provider.yaml')],
    ['GCP', flags('gcr-credential-provider.yaml')],
    ['VSphere', ''],
    ['OpenStack', ''],
    ['BareMetal', ''],
  ])('credentialProviderConfigFlag %s', (p, want) =>
    expect(renderTemplateText(withPlatform(p), 'x', '{{credentialProviderConfigFlag .}}')).toBe(want),
  );

  it.each([
    ['', true, ''],
    ['2two', true, ''],
    ['test index', true, ''],
    ['index', false, '{{.index}}'],
  ])('skip %j', (key, err, want) => {
    const run = (): string => renderTemplateText(withPlatform('None'), 'x', `{{skip "${key}"}}`);
    if (err) expect(run).toThrow('error calling skip: invalid key for skipKey');
    else expect(run()).toBe(want);
  });

  it('toString, indent, urlHost/urlPort, join, onPrem IPs, Go errors', () => {
    const rc = renderConfig(
      {
        additionalTrustBundle: Buffer.from('A\nB').toString('base64'),
        infra: {
          status: {
            platformStatus: {
              type: 'BareMetal',
              baremetal: { apiServerInternalIPs: ['10.0.0.1', 'fd00::1'], ingressIPs: [] },
            },
          },
        },
      } as unknown as ControllerConfig['spec'],
      '',
      '',
      [],
    );
    expect(renderTemplateText(rc, 'x', '{{.AdditionalTrustBundle | toString | indent 4}}')).toBe('    A\n    B');
    expect(
      renderTemplateText(
        rc,
        'x',
        '{{urlHost "https://[fd00::1]:6443/x"}} {{urlPort "https://api:6443"}} {{urlPort "http://a"}} {{urlHost "https://api.example.com"}}',
      ),
    ).toBe('fd00::1 6443 80 api.example.com');
    expect(
      renderTemplateText(
        rc,
        'x',
        '{{join (onPremPlatformAPIServerInternalIPs .) ","}} {{onPremPlatformAPIServerInternalIP .}} {{onPremPlatformShortName .}}',
      ),
    ).toBe('10.0.0.1,fd00::1 10.0.0.1 kni');
    expect(() => renderTemplateText(rc, 'f.yaml', 'x\n {{onPremPlatformIngressIP .}}')).toThrow(
      'failed to execute template: template: f.yaml:2:3: executing "f.yaml" at <onPremPlatformIngres...>: error calling onPremPlatformIngressIP: runtime error: index out of range [0] with length 0',
    );
    expect(() => renderTemplateText(rc, 'f.yaml', '{{.Proxy.HTTPProxy}}')).toThrow(
      'template: f.yaml:1:8: executing "f.yaml" at <.Proxy.HTTPProxy>: nil pointer evaluating *v1.ProxyStatus.HTTPProxy',
    );
    expect(
      renderTemplateText(rc, 'x', '{{if .Proxy}}p{{else}}no proxy{{end}} {{if and .Proxy .Proxy.HTTPProxy}}x{{end}}'),
    ).toBe('no proxy ');
    expect(() => renderTemplateText(rc, 'x', '{{urlPort "ftp://a"}}')).toThrow(
      'error calling urlPort: unknown scheme in ftp://a',
    );
  });
});

describe('APIServer TLS profile and pull secret in the rendered kubelet config', () => {
  const kubeletConf = (apiServer: TemplateInputs['apiServer']): string => {
    const mcs = generateTemplateMachineConfigs(tree, load('controller_config_aws.yaml'), 'v', {
      pullSecret: '{}',
      ...(apiServer !== undefined ? { apiServer } : {}),
    });
    const f = (ign(mcs.find((m) => m.metadata.name === '01-worker-kubelet') ?? {}).storage?.files ?? []).find(
      (x) => x.path === '/etc/kubernetes/kubelet.conf',
    );
    return decodeURIComponent((f?.contents.source ?? '').replace(/^data:,/, ''));
  };
  it('Intermediate when absent; Modern, Old and Custom as GetSecurityProfileCiphers (OpenSSL names mapped to IANA, unknown dropped)', () => {
    const intermediate = kubeletConf(undefined);
    expect(intermediate).toContain('\ntlsMinVersion: VersionTLS12\n');
    expect(intermediate).toContain(
      'tlsCipherSuites:\n    - TLS_AES_128_GCM_SHA256\n    - TLS_AES_256_GCM_SHA384\n    - TLS_CHACHA20_POLY1305_SHA256\n    - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256\n',
    );
    // DHE-RSA-* have no IANA mapping in library-go's table: dropped
    expect(intermediate).not.toContain('DHE-RSA');
    expect(kubeletConf({ spec: {} })).toBe(intermediate);
    expect(kubeletConf({ spec: { tlsSecurityProfile: { type: 'Custom' } } })).toBe(intermediate);
    const modern = kubeletConf({ spec: { tlsSecurityProfile: { type: 'Modern' } } });
    expect(modern).toContain(
      '\ntlsMinVersion: VersionTLS13\ntlsCipherSuites:\n    - TLS_AES_128_GCM_SHA256\n    - TLS_AES_256_GCM_SHA384\n    - TLS_CHACHA20_POLY1305_SHA256\n',
    );
    const custom = kubeletConf({
      spec: {
        tlsSecurityProfile: {
          type: 'Custom',
          custom: { minTLSVersion: 'VersionTLS11', ciphers: ['ECDHE-RSA-AES128-SHA', 'NOPE'] },
        },
      },
    });
    expect(custom).toContain(
      '\ntlsMinVersion: VersionTLS11\ntlsCipherSuites:\n    - TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA\n',
    );
    expect(kubeletConf({ spec: { tlsSecurityProfile: { type: 'Old' } } })).toContain('tlsMinVersion: VersionTLS10');
  });
});

describe('tree walking as upstream', () => {
  const tmp: string[] = [];
  afterAll(() => {
    for (const d of tmp) rmSync(d, { recursive: true, force: true });
  });
  it('later platform dirs override by file name, empty files delete, whitespace-only renders are dropped, mode is YAML 1.1 octal', () => {
    const root = mkdtempSync(join(tmpdir(), 'tpl-'));
    tmp.push(root);
    const put = (p: string, body: string): void => {
      mkdirSync(join(root, p, '..'), { recursive: true });
      writeFileSync(join(root, p), body);
    };
    put('worker/00-worker/_base/files/x.yaml', 'mode: 0644\npath: /etc/x\ncontents:\n  inline: base\n');
    put('worker/00-worker/aws/files/x.yaml', 'mode: 0644\npath: /etc/x\ncontents:\n  inline: "a b/c%"\n');
    put('worker/00-worker/_base/files/gone.yaml', 'path: /etc/gone\n');
    put('worker/00-worker/aws/files/gone.yaml', '');
    put('worker/00-worker/_base/files/ws.yaml', '{{if .Proxy}}path: /etc/proxy{{end}}\n  \n');
    put('worker/00-worker/_base/units/a.service.yaml', 'name: a.service\nenabled: yes\ncontents: |\n  [Unit]\n');
    put('worker/00-worker/_base/extensions/usbguard', 'x');
    put('common/_base/files/c.yaml', 'path: /etc/common\n');
    const cc = load('controller_config_aws.yaml');
    const mcs = generateTemplateMachineConfigs(loadTemplateTree(root), cc, 'v', { pullSecret: '{}' });
    expect(mcs.map((m) => m.metadata.name)).toEqual(['00-worker']);
    const conf = ign(mcs[0] ?? {});
    expect(conf.storage?.files).toEqual([
      { group: {}, overwrite: true, path: '/etc/common', user: {}, contents: { verification: {} } },
      {
        group: {},
        overwrite: true,
        path: '/etc/x',
        user: {},
        contents: { source: 'data:,a%20b%2Fc%25', verification: {} },
        mode: 420,
      },
    ]);
    expect(conf.systemd?.units).toEqual([{ contents: '[Unit]\n', enabled: true, name: 'a.service' }]);
    expect((mcs[0]?.spec as { extensions?: string[]; osImageURL?: string }).extensions).toEqual(['usbguard']);
  });
});
