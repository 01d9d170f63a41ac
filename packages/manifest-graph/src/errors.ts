/** Machine-readable codes of {@link ManifestGraphError}. */
export type ManifestGraphErrorCode = 'INVALID_ARGUMENT' | 'INVALID_GRAPH' | 'TASK_FAILED' | 'INCOMPLETE' | 'CANCELED';

/**
 * Error raised by `@keelson/manifest-graph`. `code` tells the failure class; the message names the
 * argument, node or task at fault and what to do about it.
 */
export class ManifestGraphError extends Error {
  /** Machine-readable failure class. */
  readonly code: ManifestGraphErrorCode;

  constructor(code: ManifestGraphErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ManifestGraphError';
    this.code = code;
  }
}
