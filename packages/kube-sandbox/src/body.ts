/**
 * Request bodies: size limit (413 like kube-apiserver, answered rather than resetting the connection), nesting
 * limit (400 instead of a stack overflow), and the typed-decoding failures kube-apiserver reports as 400 for
 * built-in kinds (`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into
 * Go struct field ConfigMap.data of type string`).
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from './errors.js';
import type { ResourceType } from './types.js';
import { isObject } from './util.js';

/** kube-apiserver's request body limit (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Deepest nesting accepted in a body (kube-apiserver's JSON decoder allows 10000; the sandbox's recursive code less). */
export const MAX_BODY_DEPTH = 1000;
/** Bytes discarded after the limit before the connection is closed anyway. */
const MAX_DISCARD_BYTES = 256 * 1024 * 1024;

/** The 413 kube-apiserver answers for a body over the limit. */
export class RequestTooLargeError extends ApiError {
  constructor() {
    super(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
  }
}

/**
 * Reads a request body up to {@link MAX_BODY_BYTES}. Past the limit it throws {@link RequestTooLargeError} at once and
 * keeps discarding the rest of the upload (bounded), so that the client can finish sending and read the 413.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    const b = c as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) {
      discardRest(req, size);
      throw new RequestTooLargeError();
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

function discardRest(req: IncomingMessage, already: number): void {
  let seen = already;
  req.on('data', (b: Buffer) => {
    seen += b.length;
    if (seen > MAX_DISCARD_BYTES) req.destroy();
  });
  req.resume();
}

/** Nesting depth of parsed JSON, computed without recursion. */
export function jsonDepth(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [cur, d] = stack.pop() as [unknown, number];
    if (cur === null || typeof cur !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_BODY_DEPTH) return max;
    for (const x of Array.isArray(cur) ? cur : Object.values(cur as Record<string, unknown>))
      if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
  }
  return max;
}

/** Throws 400 when a parsed body nests deeper than {@link MAX_BODY_DEPTH}. */
export function checkDepth(v: unknown): void {
  if (jsonDepth(v) > MAX_BODY_DEPTH)
    throw badRequest(`error decoding request body: exceeded max depth of ${MAX_BODY_DEPTH}`);
}

/** Go's name of a JSON value's type in `UnmarshalTypeError`. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'number' ? 'number' : 'string';
}

/** String-map fields of built-in kinds: JSON field path → Go struct and field as `UnmarshalTypeError` names them. */
const STRING_MAPS: Record<string, { path: string[]; goStruct: string; goField: string }[]> = {
  '/configmaps': [{ path: ['data'], goStruct: 'ConfigMap', goField: 'data' }],
  '/secrets': [
    { path: ['data'], goStruct: 'Secret', goField: 'data' },
    { path: ['stringData'], goStruct: 'Secret', goField: 'stringData' },
  ],
};

const META_MAPS = [
  { path: ['metadata', 'labels'], goStruct: 'ObjectMeta', goField: 'metadata.labels' },
  { path: ['metadata', 'annotations'], goStruct: 'ObjectMeta', goField: 'metadata.annotations' },
];

/**
 * The typed-decoding check of a create/update body of a built-in kind: string maps (ConfigMap/Secret data,
 * labels, annotations) must hold strings (null is accepted, as Go decodes it to ""). Throws the 400 upstream answers.
 */
export function checkTypedBody(t: ResourceType, body: unknown): void {
  if (t.crd || !isObject(body)) return;
  const fields = [...(STRING_MAPS[`${t.group}/${t.plural}`] ?? []), ...META_MAPS];
  for (const f of fields) {
    let cur: unknown = body;
    for (const p of f.path) cur = isObject(cur) ? cur[p] : undefined;
    if (cur === undefined || cur === null) continue;
    const fail = (what: string, type: string): never => {
      throw badRequest(
        `${t.kind} in version ${JSON.stringify(t.version)} cannot be handled as a ${t.kind}: json: cannot unmarshal ${what} into Go struct field ${f.goStruct}.${f.goField} of type ${type}`,
      );
    };
    if (!isObject(cur)) fail(jsonKind(cur), 'map[string]string');
    for (const v of Object.values(cur as Record<string, unknown>))
      if (v !== null && typeof v !== 'string') fail(jsonKind(v), 'string');
  }
}
