/** Response writing and request-body decoding shared by the HTTP front end and its watch stream. */
import type { ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { checkDepth, MAX_BODY_DEPTH } from './body.js';
import { ApiError, badRequest } from './errors.js';
import { decodeProtobufObject } from './protobuf.js';

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError, extra: Record<string, string> = {}): void {
  const headers: Record<string, string> = { ...extra };
  if (err.httpCode === 429 && err.details?.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(err.details.retryAfterSeconds);
  sendJson(res, err.httpCode, err.toStatus(), headers);
}

/** Decodes a request body per its Content-Type (protobuf, JSON or YAML), bounded in depth. */
export function parseBody(buf: Buffer, contentType: string): unknown {
  const ct = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (ct === 'application/vnd.kubernetes.protobuf') return buf.length ? decodeProtobufObject(buf) : undefined;
  const text = buf.toString('utf8');
  if (text.trim() === '') return undefined;
  if (!(ct.endsWith('json') || ct.endsWith('yaml') || ct === '' || ct === 'text/plain'))
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    );
  let parsed: unknown;
  try {
    parsed = ct.endsWith('yaml') ? (parseYaml(text, { maxAliasCount: 100 }) as unknown) : (JSON.parse(text) as unknown);
  } catch (e) {
    if (e instanceof RangeError)
      throw badRequest(`error decoding request body: exceeded max depth of ${MAX_BODY_DEPTH}`);
    throw badRequest(`error decoding request body: ${(e as Error).message}`);
  }
  checkDepth(parsed);
  return parsed;
}

const jsonCache = new WeakMap<object, string>();
/** JSON of an object, cached per object identity (watch fan-out serializes each event once). */
export function jsonOf(o: unknown): string {
  if (o === null || typeof o !== 'object') return JSON.stringify(o);
  let s = jsonCache.get(o);
  if (s === undefined) {
    s = JSON.stringify(o);
    jsonCache.set(o, s);
  }
  return s;
}

/** `Warning` response header of field-validation warnings (none when there are none). */
export function warningHeaders(w: string[]): Record<string, string> {
  if (w.length === 0) return {};
  return { Warning: w.map((x) => `299 - ${JSON.stringify(x)}`).join(', ') };
}

/** The 404 the real server answers for a path it does not serve. */
export function pageNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}
