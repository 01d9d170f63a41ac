/** Machine-readable error codes raised by `@keelson/kube`. */
export type KubeErrorCode =
  | 'KUBE_API_ERROR'
  | 'KUBE_BAD_RESPONSE'
  | 'KUBE_CONFIG'
  | 'KUBE_INVALID_ARGUMENT'
  | 'KUBE_QUEUE_SHUT_DOWN'
  | 'KUBE_NETWORK'
  | 'KUBE_ABORTED';

/** Base class of every error thrown by this package; `code` is stable and machine-readable. */
export class KubeError extends Error {
  /** Stable error code. */
  readonly code: KubeErrorCode;
  constructor(code: KubeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeError';
    this.code = code;
  }
}

/** The `Status` object a Kubernetes API server returns with a failed request. */
export interface KubeStatus {
  kind?: 'Status';
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
    retryAfterSeconds?: number;
  };
}

/** An HTTP error answered by the API server (404 NotFound, 409 Conflict/AlreadyExists, 410 Gone, 422 Invalid, ...). */
export class KubeApiError extends KubeError {
  /** HTTP status code. */
  readonly status: number;
  /** The `reason` of the server's Status (e.g. `NotFound`, `Conflict`, `AlreadyExists`, `Expired`). */
  readonly reason: string;
  /** HTTP method of the failed request. */
  readonly method: string;
  /** Request path (without query) that failed. */
  readonly path: string;
  /** The decoded Status body, when the server sent one. */
  readonly body: KubeStatus | undefined;
  constructor(method: string, path: string, status: number, body: KubeStatus | undefined) {
    const reason = body?.reason ?? httpReason(status);
    const serverMsg = body?.message ?? `HTTP ${status}`;
    super('KUBE_API_ERROR', `${method} ${path} failed: ${status} ${reason}: ${serverMsg}${hint(status)}`);
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
    this.method = method;
    this.path = path;
    this.body = body;
  }
}

function httpReason(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

function hint(status: number): string {
  switch (status) {
    case 401:
      return ' (check the token or client certificate in your kubeconfig)';
    case 403:
      return ' (the identity in your kubeconfig lacks RBAC permission for this verb)';
    case 409:
      return ' (re-read the object and retry with its current resourceVersion)';
    case 410:
      return ' (the resourceVersion is too old: list again and watch from the new resourceVersion)';
    default:
      return '';
  }
}

/** True when `err` is a {@link KubeApiError} with HTTP status 404. */
export function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}

/** True when `err` is a {@link KubeApiError} with HTTP status 409 (Conflict or AlreadyExists). */
export function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409;
}

/** True when `err` is a {@link KubeApiError} reporting `AlreadyExists`. */
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409 && err.reason === 'AlreadyExists';
}

/** True when `err` is a {@link KubeApiError} with HTTP status 410 (resourceVersion expired). */
export function isGone(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 410;
}
