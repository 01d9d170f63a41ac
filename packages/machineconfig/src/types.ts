import { MACHINE_CONFIG_ANNOTATIONS, MCO_LABELS, type OwnerReference as ApiOwnerReference } from '@keelson/api';

/** Any JSON value (as parsed from JSON or YAML). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * `spec` of a machineconfiguration.openshift.io/v1 MachineConfig.
 * Absent lists are Go nil (they hash as `null`), `[]` is an empty list — the difference changes the rendered name.
 */
export interface MachineConfigSpec {
  /** OS container image; "" = no opinion. */
  osImageURL?: string;
  /** Image carrying the extensions RPM repository. */
  baseOSExtensionsContainerImage?: string;
  /**
   * The Ignition config: a JSON object, or its raw JSON text (the RawExtension bytes), or null/absent.
   */
  config?: JsonObject | string | null;
  /** Kernel arguments; one element may hold several space-separated arguments. */
  kernelArguments?: string[] | null;
  /** RHCOS extensions (allow-listed names). */
  extensions?: string[] | null;
  /** Enable FIPS mode. */
  fips?: boolean;
  /** "", "default", "realtime" or "64k-pages". */
  kernelType?: string;
}

/** Kubernetes object metadata (the fields the MCO reads or writes). */
export interface ObjectMeta {
  name: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[];
  [key: string]: unknown;
}

/** A Kubernetes owner reference (`metav1.OwnerReference`, from `@keelson/api`). */
export type OwnerReference = ApiOwnerReference;

/** A MachineConfig object. */
export interface MachineConfig {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: MachineConfigSpec;
}

/** The ControllerConfig fields rendering uses (spec of `machine-config-controller`, flattened). */
export interface ControllerConfigInput {
  /** Cluster default OS image (ControllerConfig spec.baseOSContainerImage). */
  baseOSContainerImage?: string;
  /** Cluster default extensions image. */
  baseOSExtensionsContainerImage?: string;
  /** Legacy field, ignored by render. */
  osImageURL?: string;
  /** Value of the `release-image-version` annotation copied onto rendered MCs. */
  releaseImageVersion?: string;
}

/**
 * Annotation keys used by the MCO.
 * @deprecated Use `MACHINE_CONFIG_ANNOTATIONS` from `@keelson/api` (the same object).
 */
export const MCO_ANNOTATIONS: typeof MACHINE_CONFIG_ANNOTATIONS = MACHINE_CONFIG_ANNOTATIONS;

/**
 * The role label that puts a MachineConfig into a pool.
 * @deprecated Use `MCO_LABELS.role` from `@keelson/api`.
 */
export const MCO_ROLE_LABEL: typeof MCO_LABELS.role = MCO_LABELS.role;
