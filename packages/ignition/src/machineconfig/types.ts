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

/** A Kubernetes owner reference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

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

/** Annotation keys used by the MCO. */
export const MCO_ANNOTATIONS = {
  generatedByControllerVersion: 'machineconfiguration.openshift.io/generated-by-controller-version',
  releaseImageVersion: 'machineconfiguration.openshift.io/release-image-version',
  osImageURLOverridden: 'machineconfiguration.openshift.io/os-image-url-overridden',
} as const;

/** The role label that puts a MachineConfig into a pool. */
export const MCO_ROLE_LABEL = 'machineconfiguration.openshift.io/role';
