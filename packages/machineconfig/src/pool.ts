/**
 * Pool selection as the MCO does it: a MachineConfigPool's `spec.machineConfigSelector` (a Kubernetes label
 * selector) chooses the MachineConfigs that compose the pool, and {@link renderPool} renders exactly those.
 */
import { MachineConfigRenderError, renderMachineConfigs, type RenderResult } from './render.js';
import type { StorageOverride } from './daemon.js';
import {
  LabelSelectorError,
  MACHINE_CONFIG_ANNOTATIONS,
  MCO_LABELS,
  compileLabelSelector as compileApiLabelSelector,
  isEmptyLabelSelector,
  nodeRoleLabel,
  poolLabel,
} from '@keelson/api';
import type { ControllerConfigInput, MachineConfig } from './types.js';

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

/**
 * Label on pools the operator waits for before reporting a new version.
 * @deprecated Use `MCO_LABELS.requiredForUpgrade` from `@keelson/api`.
 */
export const REQUIRED_FOR_UPGRADE_LABEL: typeof MCO_LABELS.requiredForUpgrade = MCO_LABELS.requiredForUpgrade;
/**
 * Label on the pools the MCO ships.
 * @deprecated Use `MCO_LABELS.mcoBuiltIn` from `@keelson/api`.
 */
export const MCO_BUILT_IN_LABEL: typeof MCO_LABELS.mcoBuiltIn = MCO_LABELS.mcoBuiltIn;
/**
 * Prefix of the per-pool label that KubeletConfig/ContainerRuntimeConfig selectors match (`…/<pool>: ""`).
 * @deprecated Use `MCO_LABELS.poolPrefix` or `poolLabel(pool)` from `@keelson/api`.
 */
export const POOL_LABEL_PREFIX: typeof MCO_LABELS.poolPrefix = MCO_LABELS.poolPrefix;

/**
 * True when the selector is `{}` (no matchLabels, no matchExpressions): it selects everything.
 * @deprecated Use `isEmptyLabelSelector` from `@keelson/api` (the one label-selector implementation).
 */
export function isEmptySelector(sel: LabelSelector | null | undefined): boolean {
  return isEmptyLabelSelector(sel);
}

/**
 * A compiled label selector with Kubernetes semantics (`compileLabelSelector` of `@keelson/api`): `null`/absent
 * matches nothing, `{}` matches everything, matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) are
 * ANDed. Errors name the pool and the path of the selector inside it.
 * @throws PoolSelectionError `POOL_SELECTOR_INVALID` for an invalid operator or values list.
 */
export function compileLabelSelector(
  sel: LabelSelector | null | undefined,
  where: { pool?: string; path?: (string | number)[] } = {},
): { matches(labels: Record<string, string> | null | undefined): boolean; toString(): string } {
  try {
    return compileApiLabelSelector(sel);
  } catch (e) {
    if (e instanceof LabelSelectorError)
      throw new PoolSelectionError('POOL_SELECTOR_INVALID', e.message, where.pool ?? '', [
        ...(where.path ?? []),
        ...e.path,
      ]);
    throw e;
  }
}

/**
 * True when `labels` satisfy the selector (Kubernetes semantics, see {@link compileLabelSelector}).
 * @deprecated Use `labelSelectorMatches` from `@keelson/api`.
 */
export function labelSelectorMatches(
  sel: LabelSelector | null | undefined,
  labels: Record<string, string> | null | undefined,
): boolean {
  return compileLabelSelector(sel).matches(labels);
}

/** The selector as Kubernetes prints it (`labels.Selector.String()`): `k=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`. */
export function labelSelectorString(sel: LabelSelector | null | undefined): string {
  return compileLabelSelector(sel).toString();
}

/** The `master` or `worker` MachineConfigPool as the MCO ships it (labels, MC and node selectors). */
export function defaultPool(role: 'master' | 'worker'): MachineConfigPoolInput & { apiVersion: string; kind: string } {
  const labels: Record<string, string> = { [MCO_LABELS.mcoBuiltIn]: '', [poolLabel(role)]: '' };
  if (role === 'master') labels[MCO_LABELS.requiredForUpgrade] = '';
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: role, labels },
    spec: {
      machineConfigSelector: { matchLabels: { [MCO_LABELS.role]: role } },
      nodeSelector: { matchLabels: { [nodeRoleLabel(role)]: '' } },
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
    metadata: { name, labels: { [poolLabel(name)]: '' } },
    spec: {
      machineConfigSelector: { matchExpressions: [{ key: MCO_LABELS.role, operator: 'In', values: ['worker', name] }] },
      nodeSelector: { matchLabels: { [nodeRoleLabel(name)]: '' } },
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
  if (isEmptyLabelSelector(sel)) {
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
  const rel = o.metadata?.annotations?.[MACHINE_CONFIG_ANNOTATIONS.releaseImageVersion];
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
    throw new MachineConfigRenderError(
      'MC_NO_CONFIGS',
      `no MachineConfigs found matching selector ${labelSelectorString(pool.spec?.machineConfigSelector)}`,
    );
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
    ...(options.irreconcilableStorageOverrides !== undefined
      ? { irreconcilableStorageOverrides: options.irreconcilableStorageOverrides }
      : {}),
  });
}
