/**
 * The upstream OpenShift CRD manifests shipped in this package (`crds/`, unmodified copies of openshift/api files),
 * as file paths and, on demand, as parsed objects.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CustomResourceDefinition } from './apiextensions.js';
import { OPENSHIFT_KINDS, type OpenShiftKind } from './constants/groups.js';

/** Absolute path of the folder holding the CRD YAML files (`<package>/crds`). */
export const CRD_DIR: string = fileURLToPath(new URL('../crds/', import.meta.url));

/** One shipped CRD manifest. */
export interface CrdFile {
  /** Kind served by the CRD. */
  readonly kind: OpenShiftKind;
  readonly group: string;
  readonly plural: string;
  /** CRD object name (`<plural>.<group>`). */
  readonly name: string;
  /** File name inside {@link CRD_DIR}, as upstream names it. */
  readonly file: string;
  /** Absolute path of the file. */
  readonly path: string;
}

const FILES: Record<OpenShiftKind, string> = {
  ClusterOperator: '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
  ClusterVersion: '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
  ContainerRuntimeConfig: '0000_80_machine-config_01_containerruntimeconfigs-Default.crd.yaml',
  ControllerConfig: '0000_80_machine-config_01_controllerconfigs-Default.crd.yaml',
  KubeletConfig: '0000_80_machine-config_01_kubeletconfigs-Default.crd.yaml',
  MachineConfigNode: '0000_80_machine-config_01_machineconfignodes-SelfManagedHA-Default.crd.yaml',
  MachineConfigPool: '0000_80_machine-config_01_machineconfigpools.crd.yaml',
  MachineConfig: '0000_80_machine-config_01_machineconfigs.crd.yaml',
  MachineConfiguration: '0000_80_machine-config_01_machineconfigurations.crd.yaml',
  Image: '0000_10_config-operator_01_images.crd.yaml',
  ImageDigestMirrorSet: '0000_10_config-operator_01_imagedigestmirrorsets.crd.yaml',
  ImageTagMirrorSet: '0000_10_config-operator_01_imagetagmirrorsets.crd.yaml',
  ImageContentSourcePolicy: '0000_10_config-operator_01_imagecontentsourcepolicies.crd.yaml',
};

/** The shipped CRD files, in file-name order (the order the CVO would apply them). */
export const crdFiles: readonly CrdFile[] = (Object.keys(FILES) as OpenShiftKind[])
  .map((kind): CrdFile => {
    const k = OPENSHIFT_KINDS[kind];
    const file = FILES[kind];
    return { kind, group: k.group, plural: k.plural, name: `${k.plural}.${k.group}`, file, path: `${CRD_DIR}${file}` };
  })
  .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

/** The shipped CRD file of a kind. */
export function crdFile(kind: OpenShiftKind): CrdFile {
  const f = crdFiles.find((c) => c.kind === kind);
  if (!f)
    throw new CrdError(
      'UNKNOWN_KIND',
      `no CRD is shipped for kind ${kind}; known kinds: ${crdFiles.map((c) => c.kind).join(', ')}`,
    );
  return f;
}

/** Error reading a shipped CRD (code `UNKNOWN_KIND`, `UNREADABLE`, `INVALID`). */
export class CrdError extends Error {
  override readonly name = 'CrdError';
  constructor(
    readonly code: 'UNKNOWN_KIND' | 'UNREADABLE' | 'INVALID',
    message: string,
    readonly file?: string,
  ) {
    super(message);
  }
}

const cache = new Map<OpenShiftKind, Promise<CustomResourceDefinition>>();

async function parseCrd(f: CrdFile): Promise<CustomResourceDefinition> {
  let text: string;
  try {
    text = await readFile(f.path, 'utf8');
  } catch (e) {
    throw new CrdError('UNREADABLE', `cannot read ${f.path}: ${(e as Error).message}; reinstall @keelson/api`, f.path);
  }
  const { parse } = await import('yaml');
  const doc: unknown = parse(text);
  const crd = doc as Partial<CustomResourceDefinition> | null;
  if (crd?.kind !== 'CustomResourceDefinition' || crd.metadata?.name !== f.name)
    throw new CrdError(
      'INVALID',
      `${f.path} is not the CustomResourceDefinition ${f.name}; reinstall @keelson/api`,
      f.path,
    );
  return crd as CustomResourceDefinition;
}

/**
 * The CRD of one kind, parsed (cached: every call returns a fresh deep copy, so callers may modify it).
 */
export async function loadCrd(kind: OpenShiftKind): Promise<CustomResourceDefinition> {
  const f = crdFile(kind);
  let p = cache.get(kind);
  if (!p) {
    p = parseCrd(f);
    cache.set(kind, p);
    p.catch(() => cache.delete(kind));
  }
  return structuredClone(await p);
}

/** The CRDs of `kinds` (default: all shipped), parsed, in file-name order. */
export async function loadCrds(kinds?: readonly OpenShiftKind[]): Promise<CustomResourceDefinition[]> {
  const wanted = kinds ? crdFiles.filter((f) => kinds.includes(f.kind)) : crdFiles;
  if (kinds) for (const k of kinds) crdFile(k);
  return Promise.all(wanted.map((f) => loadCrd(f.kind)));
}

/** The shipped CRDs as one namespace object: `crds.files`, `crds.dir`, `crds.load(kinds?)`, `crds.loadOne(kind)`. */
export const crds = {
  /** The shipped CRD files. */
  files: crdFiles,
  /** Absolute path of the folder holding them. */
  dir: CRD_DIR,
  /** Parsed CRDs of `kinds` (default: all). */
  load: loadCrds,
  /** The parsed CRD of one kind. */
  loadOne: loadCrd,
} as const;
