/**
 * The template controller's generation step (upstream pkg/controller/template, mco.md 2.9): a templates tree in
 * upstream layout + the ControllerConfig → the `00-<role>`, `01-<role>-container-runtime`, `01-<role>-kubelet`
 * MachineConfigs. Pure: the tree is read into memory by {@link loadTemplateTree}.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ControllerConfig, MachineConfig } from '../../common/api-types.js';
import { Labels, McAnnotations } from '../../common/constants.js';
import { renderGoTemplate, TemplateError } from './gotemplate.js';

/** Template files of one platform directory: `files/`, `units/`, `extensions/` (file name → text). */
export interface PlatformTemplates {
  files: Map<string, string>;
  units: Map<string, string>;
  extensions: Map<string, string>;
}

/** A templates tree: `<role>/<mc-name>/<platform-dir>/…` plus `common/<platform-dir>/…`; paths kept for errors. */
export interface TemplateTree {
  root: string;
  roles: Map<string, Map<string, Map<string, PlatformTemplates>>>;
  common: Map<string, PlatformTemplates>;
}

const KINDS = ['files', 'units', 'extensions'] as const;
const dirs = (p: string): string[] => readdirSync(p).filter((n) => statSync(join(p, n)).isDirectory()).sort();

function loadPlatform(dir: string): PlatformTemplates {
  const out: PlatformTemplates = { files: new Map(), units: new Map(), extensions: new Map() };
  for (const k of KINDS) {
    let names: string[];
    try {
      names = readdirSync(join(dir, k)).filter((n) => /\.ya?ml$/.test(n)).sort();
    } catch {
      continue;
    }
    for (const n of names) out[k].set(n, readFileSync(join(dir, k, n), 'utf8'));
  }
  return out;
}

/** Reads a templates directory in upstream layout into memory. */
export function loadTemplateTree(root: string): TemplateTree {
  const tree: TemplateTree = { root, roles: new Map(), common: new Map() };
  for (const top of dirs(root)) {
    if (top === 'common') {
      for (const plat of dirs(join(root, top))) tree.common.set(plat, loadPlatform(join(root, top, plat)));
      continue;
    }
    const mcs = new Map<string, Map<string, PlatformTemplates>>();
    for (const mc of dirs(join(root, top))) {
      const plats = new Map<string, PlatformTemplates>();
      for (const plat of dirs(join(root, top, mc))) plats.set(plat, loadPlatform(join(root, top, mc, plat)));
      mcs.set(mc, plats);
    }
    tree.roles.set(top, mcs);
  }
  return tree;
}

const ON_PREM = new Set(['baremetal', 'ovirt', 'openstack', 'vsphere', 'nutanix']);
const KNOWN_PLATFORMS = new Set(['aws', 'azure', 'baremetal', 'gcp', 'openstack', 'libvirt', 'none', 'vsphere', 'ovirt', 'ibmcloud', 'kubevirt', 'powervs', 'nutanix', 'alibabacloud', 'external']);

/** Platform directories applied, in order, for a ControllerConfig. */
export function platformDirs(cc: ControllerConfig): string[] {
  const infra = cc.spec.infra;
  const type = infra?.status?.platformStatus?.type ?? cc.spec.platform ?? 'None';
  if (type === '') throw new TemplateError('platform type is empty in ControllerConfig spec.infra.status.platformStatus.type', 'ControllerConfig');
  const lower = type.toLowerCase();
  const platform = KNOWN_PLATFORMS.has(lower) ? lower : 'none';
  const out = ['_base'];
  if (ON_PREM.has(platform)) out.push('on-prem');
  out.push(platform);
  const topo = infra?.status?.controlPlaneTopology;
  if (topo === 'SingleReplica') out.push('sno');
  if (topo === 'DualReplica') out.push('two-node-with-fencing');
  return out;
}

/** Roles rendered: master and worker, plus arbiter with the HighlyAvailableArbiter topology. */
export function templateRoles(cc: ControllerConfig): string[] {
  const topo = cc.spec.infra?.status?.controlPlaneTopology;
  return topo === 'HighlyAvailableArbiter' ? ['master', 'worker', 'arbiter'] : ['master', 'worker'];
}

type Obj = Record<string, unknown>;

function dataURL(text: string): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(text, 'utf8').toString('base64')}`;
}

function fileEntry(y: Obj, file: string): Obj {
  const path = y['path'];
  const contents = (y['contents'] ?? {}) as Obj;
  if (typeof path !== 'string') throw new TemplateError('a file template needs path (string)', file);
  const out: Obj = { path, contents: { source: dataURL(typeof contents['inline'] === 'string' ? contents['inline'] : '') }, overwrite: true };
  if (typeof y['mode'] === 'number') out['mode'] = y['mode'];
  return out;
}

function unitEntry(y: Obj, file: string): Obj {
  if (typeof y['name'] !== 'string') throw new TemplateError('a unit template needs name (string)', file);
  const out: Obj = { name: y['name'] };
  if (typeof y['contents'] === 'string') out['contents'] = y['contents'];
  if (typeof y['enabled'] === 'boolean') out['enabled'] = y['enabled'];
  if (typeof y['mask'] === 'boolean') out['mask'] = y['mask'];
  if (Array.isArray(y['dropins'])) out['dropins'] = (y['dropins'] as Obj[]).map((d) => ({ name: d['name'], contents: d['contents'] }));
  return out;
}

/** Collects the rendered templates of several platform dirs; a later file with the same file name replaces an earlier one. */
function collect(plats: Array<PlatformTemplates | undefined>): PlatformTemplates {
  const out: PlatformTemplates = { files: new Map(), units: new Map(), extensions: new Map() };
  for (const p of plats) if (p) for (const k of KINDS) for (const [n, t] of p[k]) out[k].set(n, t);
  return out;
}

/** Template data: the ControllerConfig spec (Go field names resolve case-insensitively). */
function templateData(cc: ControllerConfig): Obj {
  return { ...cc.spec };
}

function renderOne(name: string, role: string, sources: PlatformTemplates, cc: ControllerConfig, controllerVersion: string, root: string): MachineConfig {
  const data = templateData(cc);
  const files: Obj[] = [];
  const units: Obj[] = [];
  const extensions: string[] = [];
  for (const k of KINDS) {
    for (const [n, src] of sources[k]) {
      const where = `${root}/${role}/${name}/…/${k}/${n}`;
      const text = renderGoTemplate(src, data, where);
      if (text.trim() === '') continue;
      const y: unknown = parseYaml(text, { version: '1.1' });
      if (k === 'extensions') {
        if (!Array.isArray(y) || y.some((e) => typeof e !== 'string')) throw new TemplateError('an extensions template must be a list of names', where);
        extensions.push(...(y as string[]));
      } else if (y !== null && typeof y === 'object' && !Array.isArray(y)) {
        (k === 'files' ? files : units).push(k === 'files' ? fileEntry(y as Obj, where) : unitEntry(y as Obj, where));
      } else throw new TemplateError(`expected a YAML mapping`, where);
    }
  }
  const config: Obj = { ignition: { version: '3.5.0' } };
  if (files.length > 0) config['storage'] = { files };
  if (units.length > 0) config['systemd'] = { units };
  const mc: MachineConfig = {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      labels: { [Labels.role]: role },
      annotations: { [McAnnotations.generatedByControllerVersion]: controllerVersion },
      ownerReferences: [
        { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'ControllerConfig', name: cc.metadata.name ?? '', uid: cc.metadata.uid ?? '', controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: { osImageURL: '', baseOSExtensionsContainerImage: '', config, extensions: extensions.sort() },
  };
  if ((cc.spec as unknown as Record<string, unknown>)['fips'] === true) mc.spec = { ...mc.spec, fips: true };
  return mc;
}

/**
 * Generates the base MachineConfigs of every role from the tree. `common/<platform-dir>` goes only into the first
 * MC of a role (`00-<role>`).
 * @throws TemplateError
 */
export function generateTemplateMachineConfigs(tree: TemplateTree, cc: ControllerConfig, controllerVersion: string): MachineConfig[] {
  const plats = platformDirs(cc);
  const out: MachineConfig[] = [];
  for (const role of templateRoles(cc)) {
    const mcs = tree.roles.get(role);
    if (!mcs) continue;
    for (const name of [...mcs.keys()].sort()) {
      const perPlat = mcs.get(name) ?? new Map<string, PlatformTemplates>();
      const first = name === `00-${role}`;
      const sources = collect([...(first ? plats.map((p) => tree.common.get(p)) : []), ...plats.map((p) => perPlat.get(p))]);
      out.push(renderOne(name, role, sources, cc, controllerVersion, tree.root));
    }
  }
  return out;
}
