/**
 * Minimal OpenAPI documents: v2 (`/openapi/v2`) with the schemas of custom resources, and v3
 * (`/openapi/v3`, `/openapi/v3/apis/<g>/<v>`) with per-resource paths (so kubectl detects server-side field
 * validation) and CRD schemas (so `kubectl explain` works).
 */
import { createHash } from 'node:crypto';
import type { Cluster } from './cluster.js';
import { SERVER_VERSION } from './http.js';
import type { JsonObject, ResourceType } from './types.js';
import { clone, isObject } from './util.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

function defName(t: ResourceType): string {
  const g = t.group ? t.group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${g}.${t.version}.${t.kind}`;
}

function gvk(t: ResourceType): JsonObject[] {
  return [{ group: t.group, version: t.version, kind: t.kind }];
}

function kindSchema(t: ResourceType, refPrefix: string): JsonObject {
  let s: JsonObject;
  if (t.crd?.schema) {
    s = clone(t.crd.schema);
    const props = (isObject(s['properties']) ? s['properties'] : (s['properties'] = {})) as JsonObject;
    props['metadata'] = {
      $ref: `${refPrefix}${OBJECT_META}`,
      description:
        "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    };
    props['apiVersion'] ??= {
      type: 'string',
      description: 'APIVersion defines the versioned schema of this representation of an object.',
    };
    props['kind'] ??= {
      type: 'string',
      description: 'Kind is a string value representing the REST resource this object represents.',
    };
  } else {
    s = {
      type: 'object',
      description: `${t.kind} (schema not published by the keelson sandbox)`,
      'x-kubernetes-preserve-unknown-fields': true,
    };
  }
  s['x-kubernetes-group-version-kind'] = gvk(t);
  return s;
}

const OBJECT_META_SCHEMA: JsonObject = {
  type: 'object',
  description:
    'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  properties: {
    name: { type: 'string', description: 'Name must be unique within a namespace.' },
    generateName: {
      type: 'string',
      description: 'GenerateName is an optional prefix, used by the server, to generate a unique name.',
    },
    namespace: { type: 'string', description: 'Namespace defines the space within which each name must be unique.' },
    labels: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Map of string keys and values that can be used to organize and categorize objects.',
    },
    annotations: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Annotations is an unstructured key value map stored with a resource.',
    },
    uid: { type: 'string', description: 'UID is the unique in time and space value for this object.' },
    resourceVersion: {
      type: 'string',
      description: 'An opaque value that represents the internal version of this object.',
    },
    generation: {
      type: 'integer',
      format: 'int64',
      description: 'A sequence number representing a specific generation of the desired state.',
    },
    creationTimestamp: {
      type: 'string',
      format: 'date-time',
      description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    },
    deletionTimestamp: {
      type: 'string',
      format: 'date-time',
      description: 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.',
    },
    finalizers: {
      type: 'array',
      items: { type: 'string' },
      description: 'Must be empty before the object is deleted from the registry.',
    },
    ownerReferences: {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      description: 'List of objects depended by this object.',
    },
  },
};

/** `/openapi/v2`. */
export function buildOpenApiV2(c: Cluster): JsonObject {
  const definitions: JsonObject = { [OBJECT_META]: OBJECT_META_SCHEMA };
  for (const t of c.allTypes()) if (t.crd) definitions[defName(t)] = kindSchema(t, '#/definitions/');
  return { swagger: '2.0', info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion }, paths: {}, definitions };
}

function gvPath(t: ResourceType): string {
  return t.group ? `apis/${t.group}/${t.version}` : 'api/v1';
}

/** `/openapi/v3` discovery of group-version documents. */
export function openApiV3Paths(c: Cluster): JsonObject {
  const paths: JsonObject = {};
  const gvs = new Set(c.allTypes().map(gvPath));
  for (const gv of [...gvs].sort()) {
    const hash = createHash('sha256')
      .update(JSON.stringify(buildOpenApiV3(c, gv)))
      .digest('hex')
      .slice(0, 32)
      .toUpperCase();
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
  }
  return { paths };
}

/** `/openapi/v3/<gv>`: paths with the fieldValidation parameter, schemas of custom kinds. */
export function buildOpenApiV3(c: Cluster, gv: string): JsonObject | undefined {
  const types = c.allTypes().filter((t) => gvPath(t) === gv);
  if (types.length === 0) return undefined;
  const schemas: JsonObject = { [OBJECT_META]: OBJECT_META_SCHEMA };
  const paths: JsonObject = {};
  const fieldValidation = {
    name: 'fieldValidation',
    in: 'query',
    description:
      'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.',
    schema: { type: 'string', uniqueItems: true },
  };
  const dryRun = { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } };
  for (const t of types) {
    const name = defName(t);
    schemas[name] = kindSchema(t, '#/components/schemas/');
    const ref = { $ref: `#/components/schemas/${name}` };
    const base = `/${gv}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}`;
    const ext = { 'x-kubernetes-group-version-kind': gvk(t)[0] };
    paths[base] = {
      get: {
        operationId: `list${t.kind}`,
        'x-kubernetes-action': 'list',
        ...ext,
        responses: { '200': { description: 'OK' } },
      },
      post: {
        operationId: `create${t.kind}`,
        'x-kubernetes-action': 'post',
        ...ext,
        parameters: [dryRun, fieldValidation],
        requestBody: { content: { '*/*': { schema: ref } }, required: true },
        responses: { '201': { description: 'Created', content: { 'application/json': { schema: ref } } } },
      },
    };
    paths[`${base}/{name}`] = {
      get: {
        operationId: `read${t.kind}`,
        'x-kubernetes-action': 'get',
        ...ext,
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
      },
      put: {
        operationId: `replace${t.kind}`,
        'x-kubernetes-action': 'put',
        ...ext,
        parameters: [dryRun, fieldValidation],
        requestBody: { content: { '*/*': { schema: ref } }, required: true },
        responses: { '200': { description: 'OK' } },
      },
      patch: {
        operationId: `patch${t.kind}`,
        'x-kubernetes-action': 'patch',
        ...ext,
        parameters: [
          dryRun,
          fieldValidation,
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        requestBody: {
          content: {
            'application/json-patch+json': { schema: { type: 'object' } },
            'application/merge-patch+json': { schema: { type: 'object' } },
            'application/apply-patch+yaml': { schema: { type: 'object' } },
          },
          required: true,
        },
        responses: { '200': { description: 'OK' } },
      },
      delete: {
        operationId: `delete${t.kind}`,
        'x-kubernetes-action': 'delete',
        ...ext,
        parameters: [dryRun],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}
