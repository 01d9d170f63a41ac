/**
 * Pool selection as the MCO does it: a MachineConfigPool's `spec.machineConfigSelector` (a Kubernetes label
 * selector) chooses the MachineConfigs that compose the pool, and {@link renderPool} renders exactly those.
 */
import { MachineConfigRenderError, renderMachineConfigs, type RenderResult } from './render.js';
import type { StorageOverride } from './daemon.js';
import { MCO_ANNOTATIONS, MCO_ROLE_LABEL, type ControllerConfigInput, type MachineConfig } from './types.js';

/** One requirement of a label selector (`metav1.LabelSelectorRequirement`). */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[] | null;
}

/** A Kubernetes label selector (`metav1.LabelSelector`). */
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

/** The MachineConfigPool fields pool selection and rendering read. */
export interface MachineConfigPoolInput {
  metadata: { name: string; uid?: string; labels?: Record<string, string> | null };
  spec?: {
    machineConfigSelector?: LabelSelector | null;
    nodeSelector?: LabelSelector | null;
    osImageStream?: { name?: string } | null;
  } | null;
}

/** A ControllerConfig object (the fields rendering reads), or the already flattened {@link ControllerConfigInput}. */
export type ControllerConfigSource =
  | ControllerConfigInput
  | {
      metadata?: { annotations?: Record<string, string> | null } | null;
      spec?: { baseOSContainerImage?: string; baseOSExtensionsContainerImage?: string; osImageURL?: string } | null;
    };

/** Error codes of {@link PoolSelectionError}. */
export type PoolSelectionErrorCode = 'POOL_SELECTOR_INVALID' | 'POOL_SELECTING_ALL';

/** A pool whose selector cannot be used. `path` points at the field in the MachineConfigPool. */
export class PoolSelectionError extends Error {
  constructor(
    readonly code: PoolSelectionErrorCode,
    message: string,
    /** Pool name. */
    readonly pool: string,
    /** JSON path of the offending field inside the pool. */
    readonly path: (string | number)[] = [],
  ) {
    super(message);
    this.name = 'PoolSelectionError';
  }
}

/** Label on pools the operator waits for before reporting a new version. */
export const REQUIRED_FOR_UPGRADE_LABEL = 'operator.machineconfiguration.openshift.io/required-for-upgrade';
/** Label on the pools the MCO ships. */
export const MCO_BUILT_IN_LABEL = 'machineconfiguration.openshift.io/mco-built-in';
/** Prefix of the per-pool label that KubeletConfig/ContainerRuntimeConfig selectors match (`…/<pool>: ""`). */
export const POOL_LABEL_PREFIX = 'pools.operator.machineconfiguration.openshift.io/';

type Requirement = { key: string; op: '=' | 'in' | 'notin' | 'exists' | '!'; values: string[] };

function requirements(sel: LabelSelector, pool: string, path: (string | number)[]): Requirement[] {
  const out: Requirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) out.push({ key, op: '=', values: [value] });
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const at = [...path, 'matchExpressions', i];
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          throw new PoolSelectionError('POOL_SELECTOR_INVALID', `${e.operator} requires a non-empty values list for key ${e.key}`, pool, [...at, 'values']);
        }
        out.push({ key: e.key, op: e.operator === 'In' ? 'in' : 'notin', values: [...values].sort() });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          throw new PoolSelectionError('POOL_SELECTOR_INVALID', `${e.operator} requires an empty values list for key ${e.key}`, pool, [...at, 'values']);
        }
        out.push({ key: e.key, op: e.operator === 'Exists' ? 'exists' : '!', values: [] });
        break;
      default:
        throw new PoolSelectionError('POOL_SELECTOR_INVALID', `"${String(e.operator)}" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`, pool, [...at, 'operator']);
    }
  });
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function matchesRequirement(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case '=':
    case 'in':
      return has && r.values.includes(labels[r.key] ?? '');
    case 'notin':
      return !has || !r.values.includes(labels[r.key] ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
  }
}

/** True when the selector is `{}` (no matchLabels, no matchExpressions): it selects everything. */
export function isEmptySelector(sel: LabelSelector | null | undefined): boolean {
  return sel !== null && sel !== undefined && Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
}

/**
 * A compiled label selector with Kubernetes semantics: `null`/absent matches nothing, `{}` matches everything,
 * matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) are ANDed.
 * @throws PoolSelectionError for an invalid operator or values list.
 */
export function compileLabelSelector(
  sel: LabelSelector | null | undefined,
  where: { pool?: string; path?: (string | number)[] } = {},
): { matches(labels: Record<string, string> | null | undefined): boolean; toString(): string } {
  if (sel === null || sel === undefined) return { matches: () => false, toString: () => '' };
  const reqs = requirements(sel, where.pool ?? '', where.path ?? []);
  return {
    matches: (labels) => reqs.every((r) => matchesRequirement(r, labels ?? {})),
    toString: () => reqs.map(requirementString).join(','),
  };
}

function requirementString(r: Requirement): string {
  switch (r.op) {
    case '=':
      return `${r.key}=${r.values[0] ?? ''}`;
    case 'in':
      return `${r.key} in (${r.values.join(',')})`;
    case 'notin':
      return `${r.key} notin (${r.values.join(',')})`;
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
  }
}

/** True when `labels` satisfy the selector (Kubernetes semantics, see {@link compileLabelSelector}). */
export function labelSelectorMatches(sel: LabelSelector | null | undefined, labels: Record<string, string> | null | undefined): boolean {
  return compileLabelSelector(sel).matches(labels);
}

/** The selector as Kubernetes prints it (`labels.Selector.String()`): `k=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`. */
export function labelSelectorString(sel: LabelSelector | null | undefined): string {
  return compileLabelSelector(sel).toString();
}

/** The `master` or `worker` MachineConfigPool as the MCO ships it (labels, MC and node selectors). */
export function defaultPool(role: 'master' | 'worker'): MachineConfigPoolInput & { apiVersion: string; kind: string } {
  const labels: Record<string, string> = { [MCO_BUILT_IN_LABEL]: '', [`${POOL_LABEL_PREFIX}${role}`]: '' };
  if (role === 'master') labels[REQUIRED_FOR_UPGRADE_LABEL] = '';
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: role, labels },
    spec: {
      machineConfigSelector: { matchLabels: { [MCO_ROLE_LABEL]: role } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${role}`]: '' } },
    },
  };
}

/**
 * A custom pool in the documented convention: MCs with role `worker` or `<name>`, nodes labelled
 * `node-role.kubernetes.io/<name>`.
 */
export function customPool(name: string): MachineConfigPoolInput & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name, labels: { [`${POOL_LABEL_PREFIX}${name}`]: '' } },
    spec: {
      machineConfigSelector: { matchExpressions: [{ key: MCO_ROLE_LABEL, operator: 'In', values: ['worker', name] }] },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
    },
  };
}

/**
 * The MachineConfigs a pool selects (its machineConfigSelector matched against MC labels), sorted by name.
 * @throws PoolSelectionError `POOL_SELECTING_ALL` for an empty `{}` selector (the MCO refuses it), or
 *   `POOL_SELECTOR_INVALID`.
 */
export function selectMachineConfigs(pool: MachineConfigPoolInput, all: readonly MachineConfig[]): MachineConfig[] {
  const sel = pool.spec?.machineConfigSelector;
  if (isEmptySelector(sel)) {
    throw new PoolSelectionError(
      'POOL_SELECTING_ALL',
      `This machineconfigpool ${pool.metadata.name} is selecting all machineconfigs. A non-empty selector is required.`,
      pool.metadata.name,
      ['spec', 'machineConfigSelector'],
    );
  }
  const m = compileLabelSelector(sel, { pool: pool.metadata.name, path: ['spec', 'machineConfigSelector'] });
  return all
    .filter((mc) => m.matches(mc.metadata.labels))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

/** Flattens a ControllerConfig object into the fields rendering uses (release-image-version from its annotation). */
export function controllerConfigInput(cc: ControllerConfigSource | null | undefined): ControllerConfigInput {
  if (cc === null || cc === undefined) return {};
  if (!('spec' in cc) && !('metadata' in cc)) return cc as ControllerConfigInput;
  const o = cc;
  const out: ControllerConfigInput = {};
  const spec = o.spec ?? {};
  for (const k of ['baseOSContainerImage', 'baseOSExtensionsContainerImage', 'osImageURL'] as const) {
    const v = spec[k];
    if (typeof v === 'string') out[k] = v;
  }
  const rel = o.metadata?.annotations?.[MCO_ANNOTATIONS.releaseImageVersion];
  if (rel !== undefined) out.releaseImageVersion = rel;
  return out;
}

/** Options of {@link renderPool}. */
export interface RenderPoolOptions {
  /** Running controller's version hash (generated-by-controller-version annotation, stale-MC check). */
  controllerVersion?: string;
  /** Rendered MC the pool targets now (reconcilability check). */
  currentRendered?: MachineConfig;
  /** MachineConfiguration storage overrides. */
  irreconcilableStorageOverrides?: readonly StorageOverride[];
}

/**
 * Renders a pool as the MCO render controller does: selects the MCs with the pool's machineConfigSelector, merges
 * them and names the result `rendered-<pool>-<hash>`, with the generated-by-controller-version and
 * release-image-version annotations and the controller owner reference to the pool.
 * @throws PoolSelectionError for an empty or invalid selector; MachineConfigRenderError `MC_NO_CONFIGS`
 *   ("no MachineConfigs found matching selector …") when nothing matches, or any render error.
 */
export function renderPool(
  pool: MachineConfigPoolInput,
  allConfigs: readonly MachineConfig[],
  controllerConfig?: ControllerConfigSource | null,
  options: RenderPoolOptions = {},
): RenderResult {
  const selected = selectMachineConfigs(pool, allConfigs);
  if (selected.length === 0) {
    throw new MachineConfigRenderError('MC_NO_CONFIGS', `no MachineConfigs found matching selector ${labelSelectorString(pool.spec?.machineConfigSelector)}`);
  }
  const stream = pool.spec?.osImageStream?.name;
  return renderMachineConfigs({
    pool: {
      name: pool.metadata.name,
      ...(pool.metadata.uid !== undefined ? { uid: pool.metadata.uid } : {}),
      ...(stream !== undefined && stream !== '' ? { osImageStreamName: stream } : {}),
    },
    configs: selected,
    controllerConfig: controllerConfigInput(controllerConfig),
    ...(options.controllerVersion !== undefined ? { controllerVersion: options.controllerVersion } : {}),
    ...(options.currentRendered !== undefined ? { currentRendered: options.currentRendered } : {}),
    ...(options.irreconcilableStorageOverrides !== undefined ? { irreconcilableStorageOverrides: options.irreconcilableStorageOverrides } : {}),
  });
}
