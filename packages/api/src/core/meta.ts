/**
 * `k8s.io/apimachinery` meta shapes shared by every object: ObjectMeta, owner references, label selectors,
 * conditions and object references, with the JSON names the API server serves.
 */

/** An RFC 3339 timestamp as `metav1.Time` serialises it (second precision, `Z`). */
export type Time = string;

/** `intstr.IntOrString`: an integer or a string such as `"50%"`. */
export type IntOrString = number | string;

/** `metav1.OwnerReference`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metav1.ManagedFieldsEntry` (server-side apply bookkeeping). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: Time;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** `metav1.ObjectMeta`. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** `metav1.ListMeta`. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Any Kubernetes object: `apiVersion`, `kind` and `metadata`. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** A list as served by a `list` call. */
export interface KubeList<T extends KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** Operator of a label selector requirement. */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** `metav1.LabelSelectorRequirement`. */
export interface LabelSelectorRequirement {
  key: string;
  operator: LabelSelectorOperator;
  values?: string[];
}

/** `metav1.LabelSelector`. An empty selector (`{}`) selects everything; an absent one selects nothing. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** Status of a condition as Kubernetes and OpenShift spell it. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * A status condition: the common shape of `metav1.Condition`, OpenShift's `ClusterOperatorStatusCondition`,
 * `MachineConfigPoolCondition` and `OperatorCondition`. Which fields are required differs by kind (see each CRD);
 * they are optional here so that one set of helpers serves all of them.
 */
export interface Condition {
  type: string;
  status: ConditionStatus;
  /** RFC 3339 time of the last `status` change (some CRDs allow null). */
  lastTransitionTime?: Time | null;
  reason?: string;
  message?: string;
  /** `metav1.Condition` only: the `.metadata.generation` the condition was computed for. */
  observedGeneration?: number;
}

/** `metav1.Condition` (all of type, status, lastTransitionTime, reason and message are required). */
export interface MetaCondition extends Condition {
  lastTransitionTime: Time;
  reason: string;
  message: string;
}

/** `corev1.ObjectReference`. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** `corev1.LocalObjectReference`. */
export interface LocalObjectReference {
  name?: string;
}
