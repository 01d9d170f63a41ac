import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildControllerConfig, containerRuntimeMachineConfig, defaultTemplatesDir, generateTemplateMachineConfigs, kubeletMachineConfig, loadTemplateTree, platformDirs, type ControllerConfig } from '../src/index.js';
import { decodeDataURL } from '../src/controllers/generated/content.js';
import { chooseSuffix } from '../src/controllers/generated/controller.js';
import { renderGoTemplate, TemplateError } from '../src/controllers/template/gotemplate.js';

const cc = (infraStatus: Record<string, unknown> = { platformStatus: { type: 'None' }, controlPlaneTopology: 'HighlyAvailable' }): ControllerConfig => {
  const c = buildControllerConfig({ baseOSContainerImage: 'os', baseOSExtensionsContainerImage: '', releaseVersion: '4.99.0' }, { clusterDNSIP: '172.30.0.10', releaseImage: 'r', images: { infraImageKey: 'quay.io/pause@sha256:9' } }, '0.1.0');
  return { ...c, metadata: { ...c.metadata, uid: 'cc-uid' }, spec: { ...c.spec, infra: { spec: {}, status: infraStatus } } };
};
type Files = Array<{ path: string; contents: { source: string }; mode?: number }>;
const files = (mc: { spec?: { config?: Record<string, unknown> | null } }): Files => ((mc.spec?.config as { storage?: { files?: Files } } | undefined)?.storage?.files) ?? [];
const tmp: string[] = [];
afterAll(() => { for (const d of tmp) rmSync(d, { recursive: true, force: true }); });

describe('template controller generation', () => {
  it('renders 00-, 01-…-container-runtime and 01-…-kubelet for master and worker from the shipped templates', () => {
    const mcs = generateTemplateMachineConfigs(loadTemplateTree(defaultTemplatesDir()), cc(), 'hash');
    expect(mcs.map((m) => m.metadata.name)).toEqual(['00-master', '01-master-container-runtime', '01-master-kubelet', '00-worker', '01-worker-container-runtime', '01-worker-kubelet']);
    const k = mcs.find((m) => m.metadata.name === '01-worker-kubelet');
    expect(k?.metadata.labels).toEqual({ 'machineconfiguration.openshift.io/role': 'worker' });
    expect(k?.metadata.annotations).toEqual({ 'machineconfiguration.openshift.io/generated-by-controller-version': 'hash' });
    expect(k?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'ControllerConfig', name: 'machine-config-controller', uid: 'cc-uid', controller: true });
    expect(k?.spec).toMatchObject({ osImageURL: '', baseOSExtensionsContainerImage: '' });
    const conf = files(k ?? { spec: {} }).find((f) => f.path === '/etc/kubernetes/kubelet.conf');
    expect(decodeDataURL(conf?.contents.source ?? '')).toContain('- 172.30.0.10');
    const crio = files(mcs.find((m) => m.metadata.name === '01-worker-container-runtime') ?? { spec: {} }).find((f) => f.path === '/etc/crio/crio.conf.d/00-default');
    expect(decodeDataURL(crio?.contents.source ?? '')).toContain('pause_image = "quay.io/pause@sha256:9"');
    // common/ goes into 00-<role> only
    expect(files(mcs[0] ?? { spec: {} }).map((f) => f.path)).toContain('/etc/kubernetes/cluster-dns-ip');
    expect(files(mcs[1] ?? { spec: {} }).map((f) => f.path)).not.toContain('/etc/kubernetes/cluster-dns-ip');
  });
  it('platform directories in upstream order', () => {
    expect(platformDirs(cc({ platformStatus: { type: 'BareMetal' }, controlPlaneTopology: 'SingleReplica' }))).toEqual(['_base', 'on-prem', 'baremetal', 'sno']);
    expect(platformDirs(cc({ platformStatus: { type: 'Weird' } }))).toEqual(['_base', 'none']);
  });
  it('a later platform dir overrides a file of the same name; whitespace-only templates are dropped', () => {
    const root = mkdtempSync(join(tmpdir(), 'tpl-'));
    tmp.push(root);
    for (const [dir, body] of [['_base', 'path: /etc/x\ncontents:\n  inline: base\n'], ['aws', 'path: /etc/x\ncontents:\n  inline: aws\n']] as const) {
      mkdirSync(join(root, 'worker/00-worker', dir, 'files'), { recursive: true });
      writeFileSync(join(root, 'worker/00-worker', dir, 'files/x.yaml'), body);
    }
    writeFileSync(join(root, 'worker/00-worker/_base/files/empty.yaml'), '{{if .Missing}}path: /etc/empty{{end}}\n');
    const mcs = generateTemplateMachineConfigs(loadTemplateTree(root), cc({ platformStatus: { type: 'AWS' } }), 'h');
    expect(mcs.map((m) => m.metadata.name)).toEqual(['00-worker']);
    expect(files(mcs[0] ?? { spec: {} }).map((f) => decodeDataURL(f.contents.source))).toEqual(['aws']);
  });
  it('the template engine refuses what it does not support, naming the file', () => {
    expect(renderGoTemplate('a{{- if .A }} yes {{- else}} no{{end -}} b', { a: 1 }, 'f')).toBe('a yesb');
    expect(() => renderGoTemplate('{{ cloudProvider . }}', {}, 'dir/f.yaml')).toThrow(TemplateError);
    expect(() => renderGoTemplate('{{ cloudProvider . }}', {}, 'dir/f.yaml')).toThrow('dir/f.yaml: unsupported template action {{cloudProvider .}}');
  });
});

describe('KubeletConfig / ContainerRuntimeConfig machine configs', () => {
  const owner = { name: 'k', uid: 'u' };
  it('merges the user fragment into the base kubelet.conf and adds the logging drop-in', () => {
    const mc = kubeletMachineConfig({ name: '99-worker-generated-kubelet', pool: 'worker', owner, spec: { kubeletConfig: { maxPods: 500 }, logLevel: 4 }, baseKubeletConf: 'kind: KubeletConfiguration\nmaxPods: 250\nclusterDNS: [1.2.3.4]\n', controllerVersion: 'h' });
    const f = files(mc);
    expect(JSON.parse(decodeDataURL(f[0]?.contents.source ?? '') ?? '{}')).toEqual({ kind: 'KubeletConfiguration', maxPods: 500, clusterDNS: ['1.2.3.4'] });
    expect(decodeDataURL(f[1]?.contents.source ?? '')).toBe('[Service]\nEnvironment="KUBELET_LOG_LEVEL=4"\n');
    expect(f[1]?.path).toBe('/etc/systemd/system/kubelet.service.d/20-logging.conf');
    expect(() => kubeletMachineConfig({ name: 'n', pool: 'worker', owner, spec: { kubeletConfig: { staticPodPath: '/x' } }, baseKubeletConf: undefined, controllerVersion: 'h' })).toThrow('KubeletConfiguration: staticPodPath is not allowed to be set, but contains: "/x"');
  });
  it('writes CRI-O drop-ins per field and validates them', () => {
    const mc = containerRuntimeMachineConfig({ name: '99-worker-generated-containerruntime', pool: 'worker', owner, spec: { containerRuntimeConfig: { pidsLimit: 2048, logLevel: 'debug', logSizeMax: '1Ki' } }, controllerVersion: 'h' });
    expect(files(mc).map((f) => [f.path, decodeDataURL(f.contents.source)])).toEqual([
      ['/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit', '[crio]\n  [crio.runtime]\n    pids_limit = 2048\n'],
      ['/etc/crio/crio.conf.d/01-ctrcfg-logLevel', '[crio]\n  [crio.runtime]\n    log_level = "debug"\n'],
      ['/etc/crio/crio.conf.d/01-ctrcfg-logSizeMax', '[crio]\n  [crio.runtime]\n    log_size_max = 1024\n'],
    ]);
    expect(() => containerRuntimeMachineConfig({ name: 'n', pool: 'worker', owner, spec: { containerRuntimeConfig: { defaultRuntime: 'kata' } }, controllerVersion: 'h' })).toThrow('invalid DefaultRuntime "kata", must be runc or crun');
  });
  it('numbers further configs for the same kind with the mc-name-suffix annotation', () => {
    const kc = (name: string, suffix?: string): { metadata: { name: string; annotations?: Record<string, string> }; spec: Record<string, never> } => ({ metadata: { name, ...(suffix !== undefined ? { annotations: { 'machineconfiguration.openshift.io/mc-name-suffix': suffix } } : {}) }, spec: {} });
    expect(chooseSuffix(kc('a'), [kc('a')])).toBe('');
    expect(chooseSuffix(kc('b'), [kc('a', ''), kc('b')])).toBe('1');
    expect(chooseSuffix(kc('c'), [kc('a', ''), kc('b', '1'), kc('c')])).toBe('2');
    expect(chooseSuffix(kc('a', '3'), [])).toBe('3');
  });
});
