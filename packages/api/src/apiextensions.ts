/** `apiextensions.k8s.io/v1` CustomResourceDefinition: the parts a reader of the shipped CRDs needs. */
import type { Condition, KubeObject } from './core/meta.js';

/** One `x-kubernetes-validations` entry (a CEL rule). */
export interface ValidationRule {
  /** CEL expression over `self` (and `oldSelf` for transition rules). */
  rule: string;
  message?: string;
  /** CEL expression producing the message. */
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** JSONPath-like path relative to the schema node, used as the error field. */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** A structural OpenAPI v3 schema node as CRDs carry it. */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** One served version of a CRD. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: {
    status?: Record<string, never>;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: Array<{
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    priority?: number;
    format?: string;
  }>;
}

/** `apiextensions.k8s.io/v1` CustomResourceDefinition. */
export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    scope: 'Cluster' | 'Namespaced';
    names: {
      kind: string;
      plural: string;
      singular?: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CustomResourceDefinitionVersion[];
    preserveUnknownFields?: boolean;
    conversion?: Record<string, unknown>;
  };
  status?: { conditions?: Condition[]; acceptedNames?: Record<string, unknown>; storedVersions?: string[] };
}
