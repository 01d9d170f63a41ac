/**
 * The template controller's generation step, as upstream's pkg/controller/template/render.go
 * (generateTemplateMachineConfigs, GenerateMachineConfigsForRole, generateMachineConfigForName, filterTemplates,
 * getPaths, platformStringFromControllerConfigSpec) and template_controller.go getMachineConfigsForControllerConfig:
 * a templates tree + the ControllerConfig (+ pull secret, APIServer TLS profile) → `00-<role>`,
 * `01-<role>-container-runtime`, `01-<role>-kubelet`, … MachineConfigs. The tree is read into memory once by
 * {@link loadTemplateTree}; each template is parsed once and executed per ControllerConfig.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Template, TemplateExecError, TemplateParseError } from '@keelson/gotemplate';
import type { ControllerConfig, ControllerConfigSpec, MachineConfig } from '@keelson/api';
import { Labels, McAnnotations } from '../constants.js';
import { mcoTemplateFuncs } from './funcs.js';
import { renderConfig, type RenderConfig } from './render-config.js';
import { securityProfileCiphers, type TLSSecurityProfile } from './tls.js';
import { TranspileCache, transpileToIgnition } from './transpile.js';
import { cloudPlatformLoadBalancerIPState } from './funcs.js';

/** A failure generating the MachineConfigs, message as upstream's (wrapped with the role). */
export class TemplateError extends Error {
  readonly code = 'MCO_TEMPLATE';
  constructor(
    message: string,
    /** The template file (or directory) concerned, when one is. */
    readonly file: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** A directory of the tree (entries sorted by name, as os.ReadDir) or a file with its text. */
export type TreeEntry =
  | { kind: 'dir'; path: string; entries: Map<string, TreeEntry> }
  | {
      kind: 'file';
      path: string;
      text: string;
      size: number;
      template?: Template;
      last?: { rc: RenderConfig; out: string };
    };

/** A templates tree read into memory. */
export interface TemplateTree {
  root: string;
  top: Extract<TreeEntry, { kind: 'dir' }>;
  /** Transpiled file/unit entries by rendered text, kept with the tree across generate calls. */
  transpiled?: TranspileCache;
}

const MAX_TEMPLATE_BYTES = 4 * 1024 * 1024;

function readDirEntry(path: string, depth: number): Extract<TreeEntry, { kind: 'dir' }> {
  if (depth > 16) throw new TemplateError(`templates directory nests too deeply at ${path}`, path);
  const entries = new Map<string, TreeEntry>();
  for (const name of readdirSync(path).sort()) {
    const p = join(path, name);
    const st = statSync(p);
    if (st.isDirectory()) entries.set(name, readDirEntry(p, depth + 1));
    else if (st.isFile()) {
      if (st.size > MAX_TEMPLATE_BYTES)
        throw new TemplateError(`template ${p} is larger than ${MAX_TEMPLATE_BYTES} bytes`, p);
      entries.set(name, { kind: 'file', path: p, text: readFileSync(p, 'utf8'), size: st.size });
    }
  }
  return { kind: 'dir', path, entries };
}

/** Reads a templates directory (upstream layout) into memory. */
export function loadTemplateTree(root: string): TemplateTree {
  return { root, top: readDirEntry(root, 0) };
}

const PLATFORMS = new Set([
  'AWS',
  'Azure',
  'BareMetal',
  'GCP',
  'OpenStack',
  'Libvirt',
  'Ovirt',
  'VSphere',
  'Kubevirt',
  'PowerVS',
  'None',
  'External',
  'Nutanix',
]);
const ON_PREM = new Set(['BareMetal', 'Ovirt', 'OpenStack', 'VSphere', 'Nutanix']);

type Json = Record<string, unknown>;
const infraStatus = (spec: ControllerConfigSpec): Json =>
  ((spec.infra as unknown as Json | undefined)?.['status'] ?? {}) as Json;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const platformType = (spec: ControllerConfigSpec): string =>
  str(((infraStatus(spec)['platformStatus'] ?? {}) as Json)['type']);
const topology = (spec: ControllerConfigSpec): string => str(infraStatus(spec)['controlPlaneTopology']);

/** platformStringFromControllerConfigSpec. */
export function platformString(spec: ControllerConfigSpec): string {
  const t = platformType(spec);
  if (t === '') throw new Error('cannot generate MachineConfigs when no platformStatus.type is set');
  if (t === '_base') throw new Error('platform _base unsupported');
  return PLATFORMS.has(t) ? t.toLowerCase() : 'none';
}

/** getPaths: the platform directories, in order (later ones override earlier ones). */
export function templatePaths(rc: RenderConfig, platform: string): string[] {
  const out = ['_base'];
  if (ON_PREM.has(platformType(rc.spec))) out.push('on-prem');
  if (cloudPlatformLoadBalancerIPState(rc) === 'Available') out.push('cloud-platform-alt-dns');
  out.push(platform);
  if (topology(rc.spec) === 'SingleReplica') out.push('sno');
  if (topology(rc.spec) === 'DualReplica') out.push('two-node-with-fencing');
  return out;
}

/** The platform directories applied for a ControllerConfig (for tests and `mc generate` explanations). */
export function platformDirs(cc: ControllerConfig): string[] {
  const spec = normalizedSpec(cc.spec);
  return templatePaths(renderConfig(spec, '', '', []), platformString(spec));
}

/** upstream mutates the spec so that Infra.Status.PlatformStatus is never nil while rendering. */
function normalizedSpec(spec: ControllerConfigSpec): ControllerConfigSpec {
  const infra = (spec.infra ?? {}) as unknown as Json;
  const status = (infra['status'] ?? {}) as Json;
  const ps = status['platformStatus'] ?? { type: '' };
  return { ...spec, infra: { ...infra, status: { ...status, platformStatus: ps } } } as ControllerConfigSpec;
}

function render(file: Extract<TreeEntry, { kind: 'file' }>, rc: RenderConfig): string {
  if (!file.template) {
    try {
      file.template = Template.new(file.path).funcs(mcoTemplateFuncs).parse(file.text);
    } catch (e) {
      if (e instanceof TemplateParseError)
        throw new TemplateError(`failed to parse template ${file.path}: ${e.message}`, file.path);
      throw e;
    }
  }
  // a template shared by several MCs (common/ in 00-master and 00-worker) renders once per RenderConfig
  if (file.last?.rc === rc) return file.last.out;
  try {
    const out = file.template.execute(rc);
    file.last = { rc, out };
    return out;
  } catch (e) {
    if (e instanceof TemplateExecError) throw new TemplateError(`failed to execute template: ${e.message}`, file.path);
    throw e;
  }
}

/** filterTemplates: walks `dir` (recursively, lexical order) into name → rendered text. */
function filterTemplates(into: Map<string, string>, dir: Extract<TreeEntry, { kind: 'dir' }>, rc: RenderConfig): void {
  for (const [name, e] of dir.entries) {
    if (e.kind === 'dir') {
      filterTemplates(into, e, rc);
      continue;
    }
    if (e.size === 0) {
      into.delete(name);
      continue;
    }
    const text = render(e, rc);
    if (text.trim().length > 0) into.set(name, text);
  }
}

const sub = (d: TreeEntry | undefined, name: string): Extract<TreeEntry, { kind: 'dir' }> | undefined => {
  const e = d?.kind === 'dir' ? d.entries.get(name) : undefined;
  if (e?.kind === 'file')
    throw new TemplateError(`expected template directory, "${e.path}" is not a directory`, e.path);
  return e;
};
const valuesByKey = (m: Map<string, string>): string[] => [...m.keys()].sort(byteCompare).map((k) => m.get(k) ?? '');
const byteCompare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

function machineConfigForName(
  tree: TemplateTree,
  rc: RenderConfig,
  role: string,
  nameDir: Extract<TreeEntry, { kind: 'dir' }>,
  name: string,
  withCommon: boolean,
): MachineConfig {
  const paths = templatePaths(rc, platformString(rc.spec));
  const dirs = [
    ...(withCommon ? paths.map((p) => sub(sub(tree.top, 'common'), p)) : []),
    ...paths.map((p) => sub(nameDir, p)),
  ];
  const files = new Map<string, string>();
  const units = new Map<string, string>();
  const extensions = new Map<string, string>();
  for (const d of dirs) {
    if (!d) continue;
    for (const [kind, into] of [
      ['files', files],
      ['units', units],
      ['extensions', extensions],
    ] as const) {
      const k = sub(d, kind);
      if (k) filterTemplates(into, k, rc);
    }
  }
  let config: Json;
  try {
    config = transpileToIgnition(valuesByKey(files), valuesByKey(units), (tree.transpiled ??= new TranspileCache()));
  } catch (e) {
    throw new TemplateError(
      `error transpiling CoreOS config to Ignition config: ${(e as Error).message}`,
      nameDir.path,
    );
  }
  const ext = [...extensions.keys()].sort(byteCompare);
  const mc: MachineConfig = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name, labels: { [Labels.role]: role } },
    spec: {
      osImageURL: rc.spec.baseOSContainerImage ?? '',
      baseOSExtensionsContainerImage: '',
      config,
      ...(ext.length > 0 ? { extensions: ext } : {}),
      fips: false,
      kernelType: '',
    },
  };
  return mc;
}

function machineConfigsForRole(tree: TemplateTree, rc: RenderConfig, role: string): MachineConfig[] {
  const rolePath = role === 'worker' || role === 'master' || role === 'arbiter' ? role : 'worker';
  const dir = sub(tree.top, rolePath);
  if (!dir)
    throw new TemplateError(
      `failed to read dir "${join(tree.root, rolePath)}": no such directory`,
      join(tree.root, rolePath),
    );
  const out: MachineConfig[] = [];
  let commonAdded = false;
  for (const [name, e] of dir.entries) {
    if (e.kind !== 'dir') continue;
    out.push(machineConfigForName(tree, rc, role, e, name, !commonAdded));
    commonAdded = true;
  }
  return out;
}

/** generateTemplateMachineConfigs for a RenderConfig: every role directory (arbiter only for HighlyAvailableArbiter). */
export function generateForRenderConfig(
  tree: TemplateTree,
  rc: RenderConfig,
  controllerVersion: string,
): MachineConfig[] {
  const out: MachineConfig[] = [];
  for (const [role, e] of tree.top.entries) {
    if (e.kind !== 'dir' || role === 'common') continue;
    if (role === 'arbiter' && topology(rc.spec) !== 'HighlyAvailableArbiter') continue;
    try {
      out.push(...machineConfigsForRole(tree, rc, role));
    } catch (err) {
      const file = err instanceof TemplateError ? err.file : e.path;
      throw new TemplateError(`failed to create MachineConfig for role ${role}: ${(err as Error).message}`, file);
    }
  }
  for (const mc of out)
    mc.metadata.annotations = {
      ...mc.metadata.annotations,
      [McAnnotations.generatedByControllerVersion]: controllerVersion,
    };
  return out;
}

/** What upstream's template controller reads besides the ControllerConfig. */
export interface TemplateInputs {
  /** The pull secret's `.dockerconfigjson` (JSON text); compacted as Go's json.Compact. */
  pullSecret?: string;
  /** The cluster's APIServer object (`spec.tlsSecurityProfile`); Intermediate when absent. */
  apiServer?: { spec?: { tlsSecurityProfile?: TLSSecurityProfile | null } } | null;
}

/** json.Compact. */
export function compactJSON(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), (_k, v: unknown) => v);
  } catch (e) {
    throw new TemplateError(
      `couldn't compact pullsecret ${JSON.stringify(raw)}: ${(e as Error).message}`,
      'pull secret',
    );
  }
}

/**
 * getMachineConfigsForControllerConfig: the RenderConfig (ControllerConfig spec, compacted pull secret, TLS profile),
 * every generated MachineConfig owned by the ControllerConfig, sorted by name.
 * @throws TemplateError
 */
export function generateTemplateMachineConfigs(
  tree: TemplateTree,
  cc: ControllerConfig,
  controllerVersion: string,
  inputs: TemplateInputs = {},
): MachineConfig[] {
  const pullSecret = inputs.pullSecret === undefined ? '' : compactJSON(inputs.pullSecret);
  const tls = securityProfileCiphers(
    inputs.apiServer ? (inputs.apiServer.spec?.tlsSecurityProfile ?? null) : undefined,
  );
  const rc = renderConfig(normalizedSpec(cc.spec), pullSecret, tls.minTLSVersion, tls.cipherSuites);
  const mcs = generateForRenderConfig(tree, rc, controllerVersion);
  const owner = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    name: cc.metadata.name ?? '',
    uid: cc.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
  for (const mc of mcs) mc.metadata.ownerReferences = [{ ...owner }];
  return mcs.sort((a, b) => byteCompare(a.metadata.name ?? '', b.metadata.name ?? ''));
}

/**
 * renderTemplate: one template text rendered with a RenderConfig (upstream's unit-test entry point).
 * @throws TemplateError
 */
export function renderTemplateText(rc: RenderConfig, name: string, text: string): string {
  return render({ kind: 'file', path: name, text, size: text.length }, rc);
}

/**
 * GenerateMachineConfigsForRole with a RenderConfig holding the ControllerConfig spec (and, for the kubelet-config
 * controller's generateOriginalKubeletConfigIgn, the TLS profile), as the container-runtime-config controller's
 * generateOriginalContainerRuntimeConfigs renders the default registries.conf, policy.json and storage.conf of a role.
 * @throws TemplateError
 */
export function generateMachineConfigsForRole(
  tree: TemplateTree,
  spec: ControllerConfigSpec,
  role: string,
  tls: { minTLSVersion: string; cipherSuites: readonly string[] } = { minTLSVersion: '', cipherSuites: [] },
): MachineConfig[] {
  return machineConfigsForRole(tree, renderConfig(normalizedSpec(spec), '', tls.minTLSVersion, tls.cipherSuites), role);
}
