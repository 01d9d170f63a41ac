/** Shapes shared by the sandbox modules. */
import type { ObjectMeta as ApiObjectMeta, OwnerReference as ApiOwnerReference } from '@keelson/api';

/** A JSON object as stored and served. */
export type JsonObject = { [k: string]: unknown };

/** A Kubernetes object: anything with apiVersion/kind/metadata. */
export interface KubeObject extends JsonObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** `metav1.ObjectMeta` (from `@keelson/api`) as stored: open to fields the sandbox does not know. */
export interface ObjectMeta extends JsonObject, Omit<ApiObjectMeta, 'ownerReferences' | 'managedFields'> {
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
}

/** `metav1.OwnerReference` (from `@keelson/api`) as stored. */
export interface OwnerReference extends JsonObject, ApiOwnerReference {}

/** `metav1.ManagedFieldsEntry`. */
export interface ManagedFieldsEntry extends JsonObject {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

/** Which server-side strategic-merge/apply list semantics a path has. */
export interface ListStrategy {
  /** Merge key ("name", "type", "key"...), or absent for atomic lists / primitive sets. */
  mergeKey?: string;
  /** All key fields of a `x-kubernetes-list-type: map` list (when more than one). */
  mergeKeys?: string[];
  /** Primitive list merged as a set (e.g. finalizers). */
  set?: boolean;
}

/** Description of one served resource type (built in or from a CRD). */
export interface ResourceType {
  group: string;
  version: string;
  /** All versions served for this group/resource (the first is the storage/preferred one). */
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Subresources served: status, scale, eviction... */
  subresources: string[];
  /** Whether metadata.generation is maintained (bumped on non-metadata/status changes). */
  generation: boolean;
  /** Extra selectable fields for fieldSelector, mapped to dotted paths in the object. */
  fields: Record<string, string>;
  /** Patch strategies for strategic merge patch / apply, keyed by dotted path with `[]` for list items. */
  lists: Record<string, ListStrategy>;
  /** Name validation: DNS-1123 subdomain (default) or label. */
  nameRule: 'subdomain' | 'label' | 'path';
  /** Set for resources served from a CRD. */
  crd?: CrdInfo;
  /** Set when objects live in another resource's storage and are converted (events.k8s.io Events → core Events). */
  storedAs?: StoredAs;
}

/** Storage shared with another resource, with conversions both ways. */
export interface StoredAs {
  group: string;
  plural: string;
  toStorage(o: KubeObject): KubeObject;
  fromStorage(o: KubeObject): KubeObject;
}

/** What the sandbox keeps about a CRD-served version. */
export interface CrdInfo {
  crdName: string;
  schema?: JsonObject;
  preserveUnknownAtRoot: boolean;
  statusSubresource: boolean;
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  printerColumns: {
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    priority?: number;
    format?: string;
  }[];
  storage: boolean;
}

/** Key identifying a resource type independent of version: `group/plural`. */
export function grKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

/** apiVersion string for a group/version. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}
