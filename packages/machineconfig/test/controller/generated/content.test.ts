/** The generated kubelet / container-runtime MachineConfigs (`src/controller/generated/content.ts`). */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { containerRuntimeMachineConfig, decodeDataURL, kubeletMachineConfig } from '../../../src/index.js';

type Files = Array<{ path: string; contents: { source: string }; mode?: number }>;
const files = (mc: { spec?: { config?: Record<string, unknown> | null } }): Files =>
  (mc.spec?.config as { storage?: { files?: Files } } | undefined)?.storage?.files ?? [];

describe('KubeletConfig / ContainerRuntimeConfig machine configs', () => {
  const owner = { name: 'k', uid: 'u' };
  it('merges the user fragment into the base kubelet.conf and adds the logging drop-in', () => {
    const mc = kubeletMachineConfig({
      name: '99-worker-generated-kubelet',
      pool: 'worker',
      owner,
      spec: { kubeletConfig: { maxPods: 500 }, logLevel: 4 },
      baseKubeletConf: 'kind: KubeletConfiguration\nmaxPods: 250\nclusterDNS: [1.2.3.4]\n',
      controllerVersion: 'h',
    });
    const f = files(mc);
    // upstream's order: the logging drop-in, then kubelet.conf
    // kubelet.conf as the Go KubeletConfiguration YAML (struct fields, durations, yaml.v2 layout)
    const conf = decodeDataURL(f[1]?.contents.source ?? '') ?? '';
    expect(conf).toContain('\nclusterDNS:\n- 1.2.3.4\n');
    expect(conf).toContain('\nmaxPods: 500\n');
    expect(conf).toContain('\nsyncFrequency: 0s\n');
    expect(decodeDataURL(f[0]?.contents.source ?? '')).toBe('[Service]\nEnvironment="KUBELET_LOG_LEVEL=4"\n');
    expect(f[0]?.path).toBe('/etc/systemd/system/kubelet.service.d/20-logging.conf');
    expect(() =>
      kubeletMachineConfig({
        name: 'n',
        pool: 'worker',
        owner,
        spec: { kubeletConfig: { staticPodPath: '/x' } },
        baseKubeletConf: undefined,
        controllerVersion: 'h',
      }),
    ).toThrow('KubeletConfiguration: staticPodPath is not allowed to be set, but contains: "/x"');
    const tls = files(
      kubeletMachineConfig({
        name: 'n',
        pool: 'worker',
        owner,
        spec: { tlsSecurityProfile: { type: 'Modern' }, kubeletConfig: { protectKernelDefaults: false } },
        baseKubeletConf: 'kind: KubeletConfiguration\nprotectKernelDefaults: true\ntlsMinVersion: VersionTLS12\n',
        controllerVersion: 'h',
        features: { KMSv1: true },
      }),
    );
    const text = decodeDataURL(tls[0]?.contents.source ?? '') ?? '';
    expect(text).toContain('\ntlsMinVersion: VersionTLS13\n'); // the KubeletConfig's profile wins
    expect(text).toContain('\nfeatureGates:\n  KMSv1: true\n');
    expect(text).not.toContain('protectKernelDefaults'); // an explicit false turns it off (upstream's workaround)
  });
  it('autoSizingReserved and systemReserved memory/cpu/ephemeral-storage go to /etc/node-sizing-enabled.env (generateKubeletIgnFiles)', () => {
    const base = 'kind: KubeletConfiguration\nsystemReserved:\n  ephemeral-storage: 1Gi\n  pid: "100"\n';
    const auto = files(
      kubeletMachineConfig({
        name: 'n',
        pool: 'worker',
        owner,
        spec: { autoSizingReserved: true, kubeletConfig: { featureGates: { Foo: true } } },
        baseKubeletConf: base,
        controllerVersion: 'h',
      }),
    );
    expect(auto.map((f) => f.path)).toEqual(['/etc/node-sizing-enabled.env', '/etc/kubernetes/kubelet.conf']);
    expect(decodeDataURL(auto[0]?.contents.source ?? '')).toBe(
      'NODE_SIZING_ENABLED=true\nSYSTEM_RESERVED_MEMORY=1Gi\nSYSTEM_RESERVED_CPU=500m\nSYSTEM_RESERVED_ES=1Gi\n',
    );
    expect(parseYaml(decodeDataURL(auto[1]?.contents.source ?? '') ?? '')).not.toHaveProperty('featureGates');
    const user = files(
      kubeletMachineConfig({
        name: 'n',
        pool: 'worker',
        owner,
        spec: { autoSizingReserved: true, kubeletConfig: { systemReserved: { memory: '3Gi', cpu: '1', pid: '200' } } },
        baseKubeletConf: base,
        controllerVersion: 'h',
      }),
    );
    expect(decodeDataURL(user[0]?.contents.source ?? '')).toBe(
      'NODE_SIZING_ENABLED=false\nSYSTEM_RESERVED_MEMORY=3Gi\nSYSTEM_RESERVED_CPU=1\nSYSTEM_RESERVED_ES=1Gi\n',
    );
    expect(parseYaml(decodeDataURL(user[1]?.contents.source ?? '') ?? '')).toMatchObject({
      systemReserved: { 'ephemeral-storage': '1Gi', pid: '200' },
    });
  });
  it('writes CRI-O drop-ins per field and validates them', () => {
    const mc = containerRuntimeMachineConfig({
      name: '99-worker-generated-containerruntime',
      pool: 'worker',
      owner,
      spec: { containerRuntimeConfig: { pidsLimit: 2048, logLevel: 'debug', logSizeMax: '1Ki' } },
      controllerVersion: 'h',
    });
    expect(files(mc).map((f) => [f.path, decodeDataURL(f.contents.source)])).toEqual([
      ['/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit', '[crio]\n  [crio.runtime]\n    pids_limit = 2048\n'],
      ['/etc/crio/crio.conf.d/01-ctrcfg-logLevel', '[crio]\n  [crio.runtime]\n    log_level = "debug"\n'],
      ['/etc/crio/crio.conf.d/01-ctrcfg-logSizeMax', '[crio]\n  [crio.runtime]\n    log_size_max = 1024\n'],
    ]);
    expect(() =>
      containerRuntimeMachineConfig({
        name: 'n',
        pool: 'worker',
        owner,
        spec: { containerRuntimeConfig: { defaultRuntime: 'kata' } },
        controllerVersion: 'h',
      }),
    ).toThrow('invalid DefaultRuntime "kata", must be runc or crun');
  });
});
