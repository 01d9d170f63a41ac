/**
 * Decoding of the Kubernetes protobuf wire format (`application/vnd.kubernetes.protobuf`) for the request bodies
 * kubectl's typed clients send: the `k8s\0` + runtime.Unknown envelope around ConfigMap, Secret, Namespace,
 * ServiceAccount, Eviction, DeleteOptions, and the common fields of Deployment and Pod (kubectl create deployment /
 * kubectl run). Other kinds are refused with 415 so the gap is visible.
 */
import { ApiError } from './errors.js';
import type { JsonObject } from './types.js';
import { must, text } from './util.js';

type FieldType = 'string' | 'bytes' | 'varint' | 'bool' | 'time' | { msg: string } | { map: 'string' | 'bytes' };
interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
  /** Pointer field in Go: a zero value is meaningful and kept (others are omitted like `omitempty`). */
  keep?: boolean;
}
type Schema = Record<number, Field>;

const S: Record<string, Schema> = {
  Unknown: {
    1: { name: 'typeMeta', type: { msg: 'TypeMeta' } },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
    4: { name: 'contentType', type: 'string' },
  },
  TypeMeta: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } },
  ObjectMeta: {
    1: { name: 'name', type: 'string' },
    2: { name: 'generateName', type: 'string' },
    3: { name: 'namespace', type: 'string' },
    4: { name: 'selfLink', type: 'string' },
    5: { name: 'uid', type: 'string' },
    6: { name: 'resourceVersion', type: 'string' },
    7: { name: 'generation', type: 'varint' },
    8: { name: 'creationTimestamp', type: 'time' },
    9: { name: 'deletionTimestamp', type: 'time' },
    10: { name: 'deletionGracePeriodSeconds', type: 'varint' },
    11: { name: 'labels', type: { map: 'string' } },
    12: { name: 'annotations', type: { map: 'string' } },
    13: { name: 'ownerReferences', type: { msg: 'OwnerReference' }, repeated: true },
    14: { name: 'finalizers', type: 'string', repeated: true },
  },
  OwnerReference: {
    1: { name: 'kind', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
    5: { name: 'apiVersion', type: 'string' },
    6: { name: 'controller', type: 'bool' },
    7: { name: 'blockOwnerDeletion', type: 'bool' },
  },
  ConfigMap: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'data', type: { map: 'string' } },
    3: { name: 'binaryData', type: { map: 'bytes' } },
    4: { name: 'immutable', type: 'bool' },
  },
  Secret: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'data', type: { map: 'bytes' } },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: { map: 'string' } },
    5: { name: 'immutable', type: 'bool' },
  },
  Namespace: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'spec', type: { msg: 'NamespaceSpec' } },
  },
  NamespaceSpec: { 1: { name: 'finalizers', type: 'string', repeated: true } },
  ServiceAccount: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'secrets', type: { msg: 'ObjectReference' }, repeated: true },
    3: { name: 'imagePullSecrets', type: { msg: 'LocalObjectReference' }, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool', keep: true },
  },
  ObjectReference: {
    1: { name: 'kind', type: 'string' },
    2: { name: 'namespace', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
    5: { name: 'apiVersion', type: 'string' },
    6: { name: 'resourceVersion', type: 'string' },
    7: { name: 'fieldPath', type: 'string' },
  },
  LocalObjectReference: { 1: { name: 'name', type: 'string' } },
  Eviction: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'deleteOptions', type: { msg: 'DeleteOptions' } },
  },
  DeleteOptions: {
    1: { name: 'gracePeriodSeconds', type: 'varint', keep: true },
    2: { name: 'preconditions', type: { msg: 'Preconditions' } },
    3: { name: 'orphanDependents', type: 'bool', keep: true },
    4: { name: 'propagationPolicy', type: 'string' },
    5: { name: 'dryRun', type: 'string', repeated: true },
  },
  Deployment: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'spec', type: { msg: 'DeploymentSpec' } },
  },
  DeploymentSpec: {
    1: { name: 'replicas', type: 'varint', keep: true },
    2: { name: 'selector', type: { msg: 'LabelSelector' } },
    3: { name: 'template', type: { msg: 'PodTemplateSpec' } },
    5: { name: 'minReadySeconds', type: 'varint' },
    6: { name: 'revisionHistoryLimit', type: 'varint', keep: true },
    7: { name: 'paused', type: 'bool' },
    9: { name: 'progressDeadlineSeconds', type: 'varint', keep: true },
  },
  LabelSelector: {
    1: { name: 'matchLabels', type: { map: 'string' } },
    2: { name: 'matchExpressions', type: { msg: 'LabelSelectorRequirement' }, repeated: true },
  },
  LabelSelectorRequirement: {
    1: { name: 'key', type: 'string' },
    2: { name: 'operator', type: 'string' },
    3: { name: 'values', type: 'string', repeated: true },
  },
  PodTemplateSpec: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'spec', type: { msg: 'PodSpec' } },
  },
  Pod: { 1: { name: 'metadata', type: { msg: 'ObjectMeta' } }, 2: { name: 'spec', type: { msg: 'PodSpec' } } },
  PodSpec: {
    2: { name: 'containers', type: { msg: 'Container' }, repeated: true },
    3: { name: 'restartPolicy', type: 'string' },
    4: { name: 'terminationGracePeriodSeconds', type: 'varint', keep: true },
    6: { name: 'dnsPolicy', type: 'string' },
    7: { name: 'nodeSelector', type: { map: 'string' } },
    8: { name: 'serviceAccountName', type: 'string' },
    10: { name: 'nodeName', type: 'string' },
    11: { name: 'hostNetwork', type: 'bool' },
  },
  Container: {
    1: { name: 'name', type: 'string' },
    2: { name: 'image', type: 'string' },
    3: { name: 'command', type: 'string', repeated: true },
    4: { name: 'args', type: 'string', repeated: true },
    5: { name: 'workingDir', type: 'string' },
    6: { name: 'ports', type: { msg: 'ContainerPort' }, repeated: true },
    7: { name: 'env', type: { msg: 'EnvVar' }, repeated: true },
    14: { name: 'imagePullPolicy', type: 'string' },
  },
  ContainerPort: {
    1: { name: 'name', type: 'string' },
    2: { name: 'hostPort', type: 'varint' },
    3: { name: 'containerPort', type: 'varint', keep: true },
    4: { name: 'protocol', type: 'string' },
    5: { name: 'hostIP', type: 'string' },
  },
  EnvVar: { 1: { name: 'name', type: 'string' }, 2: { name: 'value', type: 'string' } },
  SelfSubjectAccessReview: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'spec', type: { msg: 'SelfSubjectAccessReviewSpec' } },
  },
  SelfSubjectAccessReviewSpec: {
    1: { name: 'resourceAttributes', type: { msg: 'ResourceAttributes' } },
    2: { name: 'nonResourceAttributes', type: { msg: 'NonResourceAttributes' } },
  },
  ResourceAttributes: {
    1: { name: 'namespace', type: 'string' },
    2: { name: 'verb', type: 'string' },
    3: { name: 'group', type: 'string' },
    4: { name: 'version', type: 'string' },
    5: { name: 'resource', type: 'string' },
    6: { name: 'subresource', type: 'string' },
    7: { name: 'name', type: 'string' },
  },
  NonResourceAttributes: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } },
  Preconditions: { 1: { name: 'uid', type: 'string' }, 2: { name: 'resourceVersion', type: 'string' } },
  // authentication.k8s.io/v1 (kubectl create token, kubectl auth whoami)
  TokenRequest: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'spec', type: { msg: 'TokenRequestSpec' } },
  },
  TokenRequestSpec: {
    1: { name: 'audiences', type: 'string', repeated: true },
    3: { name: 'boundObjectRef', type: { msg: 'BoundObjectReference' } },
    4: { name: 'expirationSeconds', type: 'varint', keep: true },
  },
  BoundObjectReference: {
    1: { name: 'kind', type: 'string' },
    2: { name: 'apiVersion', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
  },
  SelfSubjectReview: { 1: { name: 'metadata', type: { msg: 'ObjectMeta' } } },
  SelfSubjectRulesReview: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'spec', type: { msg: 'SelfSubjectRulesReviewSpec' } },
  },
  SelfSubjectRulesReviewSpec: { 1: { name: 'namespace', type: 'string' } },
  // rbac.authorization.k8s.io/v1 (kubectl create role/clusterrole/rolebinding/clusterrolebinding)
  Role: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'rules', type: { msg: 'PolicyRule' }, repeated: true },
  },
  ClusterRole: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'rules', type: { msg: 'PolicyRule' }, repeated: true },
    3: { name: 'aggregationRule', type: { msg: 'AggregationRule' } },
  },
  PolicyRule: {
    1: { name: 'verbs', type: 'string', repeated: true },
    2: { name: 'apiGroups', type: 'string', repeated: true },
    3: { name: 'resources', type: 'string', repeated: true },
    4: { name: 'resourceNames', type: 'string', repeated: true },
    5: { name: 'nonResourceURLs', type: 'string', repeated: true },
  },
  AggregationRule: { 1: { name: 'clusterRoleSelectors', type: { msg: 'LabelSelector' }, repeated: true } },
  RoleBinding: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'subjects', type: { msg: 'Subject' }, repeated: true },
    3: { name: 'roleRef', type: { msg: 'RoleRef' } },
  },
  ClusterRoleBinding: {
    1: { name: 'metadata', type: { msg: 'ObjectMeta' } },
    2: { name: 'subjects', type: { msg: 'Subject' }, repeated: true },
    3: { name: 'roleRef', type: { msg: 'RoleRef' } },
  },
  Subject: {
    1: { name: 'kind', type: 'string' },
    2: { name: 'apiGroup', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'namespace', type: 'string' },
  },
  RoleRef: {
    1: { name: 'apiGroup', type: 'string' },
    2: { name: 'kind', type: 'string' },
    3: { name: 'name', type: 'string' },
  },
  Time: { 1: { name: 'seconds', type: 'varint' }, 2: { name: 'nanos', type: 'varint' } },
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw bad('truncated varint');
      const b = this.buf.readUInt8(this.pos++);
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw bad('varint too long');
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (len < 0 || this.pos + len > this.buf.length) throw bad('truncated length-delimited field');
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw bad(`unsupported wire type ${wire}`);
  }
}

function bad(msg: string): ApiError {
  return new ApiError(400, 'BadRequest', `error decoding protobuf request body: ${msg}`);
}

function decodeMessage(buf: Buffer, schemaName: string, depth = 0): JsonObject {
  if (depth > 32) throw bad('message nesting too deep');
  const schema = must(S[schemaName], `protobuf schema ${schemaName}`);
  const r = new Reader(buf);
  const out: JsonObject = {};
  while (r.pos < buf.length) {
    const tag = Number(r.varint());
    const num = tag >>> 3;
    const wire = tag & 7;
    const f = schema[num];
    if (!f) {
      r.skip(wire);
      continue;
    }
    let value: unknown;
    const t = f.type;
    if (t === 'varint' || t === 'bool') {
      const v = r.varint();
      value = t === 'bool' ? v !== 0n : Number(BigInt.asIntN(64, v));
    } else {
      const b = r.bytes();
      if (t === 'string') value = b.toString('utf8');
      else if (t === 'bytes') value = b.toString('base64');
      else if (t === 'time') {
        const tm = decodeMessage(b, 'Time', depth + 1);
        value = tm['seconds'] ? new Date(Number(tm['seconds']) * 1000).toISOString().replace('.000Z', 'Z') : null;
      } else if ('msg' in t) value = decodeMessage(b, t.msg, depth + 1);
      else {
        const er = new Reader(b);
        let k = '';
        let v: unknown = t.map === 'bytes' ? '' : '';
        while (er.pos < b.length) {
          const etag = Number(er.varint());
          const eb = (etag & 7) === 2 ? er.bytes() : (er.skip(etag & 7), Buffer.alloc(0));
          if (etag >>> 3 === 1) k = eb.toString('utf8');
          else if (etag >>> 3 === 2) v = t.map === 'bytes' ? eb.toString('base64') : eb.toString('utf8');
        }
        const m = (out[f.name] ??= {}) as JsonObject;
        m[k] = v;
        continue;
      }
    }
    // gogo-protobuf writes non-pointer zero values; Go's JSON omits them (omitempty), so drop them here
    if (!f.repeated && !f.keep && (value === '' || value === 0 || value === false || value === null)) continue;
    if (f.repeated) ((out[f.name] ??= []) as unknown[]).push(value);
    else out[f.name] = value;
  }
  return out;
}

const TOP_LEVEL = new Set([
  'ConfigMap',
  'Secret',
  'Namespace',
  'ServiceAccount',
  'Eviction',
  'DeleteOptions',
  'Deployment',
  'Pod',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
  'TokenRequest',
  'SelfSubjectReview',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
]);
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a protobuf-encoded request body to its JSON form. */
export function decodeProtobufObject(buf: Buffer): JsonObject {
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw bad('missing k8s protobuf magic prefix');
  const env = decodeMessage(buf.subarray(4), 'Unknown');
  const tm = (env['typeMeta'] ?? {}) as { apiVersion?: string; kind?: string };
  const kind = tm.kind ?? '';
  const raw = Buffer.from(text(env['raw'] ?? ''), 'base64');
  if (!TOP_LEVEL.has(kind))
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the keelson sandbox cannot decode protobuf bodies of kind ${JSON.stringify(kind)}; send application/json instead (kubectl: use "kubectl apply -f" with a manifest)`,
    );
  const obj = decodeMessage(raw, kind);
  return { apiVersion: tm.apiVersion ?? '', kind, ...obj };
}
