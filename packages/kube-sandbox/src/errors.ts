/**
 * Errors of the sandbox. `ApiError` carries a Kubernetes `Status` body and is what the HTTP layer writes
 * back to clients; `SandboxError` is for misuse of the embedding API (bad options, TLS setup failures...).
 */

/** A Kubernetes `metav1.Status` object as the real API server writes it. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** `metav1.StatusDetails`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `metav1.StatusCause`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** An error answered to an API client as a `Status` object with an HTTP code. */
export class ApiError extends Error {
  /** A stable machine-readable code: the Status `reason`. */
  readonly code: string;
  constructor(
    readonly httpCode: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = reason;
  }

  /** The `Status` body sent to the client. */
  toStatus(): KubeStatus {
    const s: KubeStatus = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.httpCode,
    };
    if (this.details) s.details = this.details;
    return s;
  }
}

/** Misuse of the sandbox API (options, files), with a `code` naming the problem. */
export class SandboxError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** Resource reference used to phrase errors like the real server: `deployments.apps "x"`. */
export interface ErrResource {
  group: string;
  resource: string;
}

function qualified(r: ErrResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

function details(r: ErrResource, name: string, extra?: Partial<StatusDetails>): StatusDetails {
  const d: StatusDetails = { name };
  if (r.group) d.group = r.group;
  d.kind = r.resource;
  return { ...d, ...extra };
}

/** 404 NotFound, phrased `configmaps "x" not found`. */
export function notFound(r: ErrResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(r)} "${name}" not found`, details(r, name));
}

/** 409 AlreadyExists. */
export function alreadyExists(r: ErrResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, details(r, name));
}

/** 409 Conflict (stale resourceVersion). */
export function conflict(
  r: ErrResource,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`,
    details(r, name),
  );
}

/** One invalid field, reported inside a 422 Invalid. */
export interface FieldError {
  field: string;
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueDuplicate'
    | 'FieldValueTypeInvalid';
  detail: string;
  value?: unknown;
  /** The bad value as the Go server prints it, when JSON would differ (e.g. `%#v` of a map). */
  valueText?: string;
}

const FIELD_TYPE_TEXT: Record<FieldError['type'], string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTypeInvalid: 'Invalid value',
};

function fieldErrorText(e: FieldError): string {
  const head = FIELD_TYPE_TEXT[e.type];
  if (e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden')
    return e.detail ? `${head}: ${e.detail}` : head;
  const v =
    e.valueText !== undefined ? `: ${e.valueText}` : e.value === undefined ? '' : `: ${JSON.stringify(e.value)}`;
  return `${head}${v}${e.detail ? `: ${e.detail}` : ''}`;
}

/** 422 Invalid, phrased `ConfigMap "x" is invalid: <field>: <error>`, with one cause per field. */
export function invalid(group: string, kind: string, name: string, errs: FieldError[]): ApiError {
  const texts = errs.map((e) => `${e.field}: ${fieldErrorText(e)}`);
  const joined = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  const d: StatusDetails = { name };
  if (group) d.group = group;
  d.kind = kind;
  d.causes = errs.map((e) => ({ reason: e.type, message: fieldErrorText(e), field: e.field }));
  return new ApiError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${joined}`, d);
}

/** 400 BadRequest. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(
  message = 'the server does not allow this method on the requested resource',
): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

/** 410 Expired (too old resourceVersion / continue token). */
export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** 403 Forbidden. */
export function forbidden(r: ErrResource, name: string, why: string, causes?: StatusCause[]): ApiError {
  return new ApiError(
    403,
    'Forbidden',
    `${qualified(r)} "${name}" is forbidden: ${why}`,
    details(r, name, causes ? { causes } : {}),
  );
}
