/** Configuration and environment errors of the Cluster Version Operator process. */

/** Error codes of {@link CvoError}. */
export type CvoErrorCode = 'InvalidFlag' | 'InvalidOptions' | 'PayloadDir' | 'PayloadCache' | 'PullSecret' | 'Render';

/** A configuration or environment error: `code`, the path/flag at fault and what to do. */
export class CvoError extends Error {
  readonly code: CvoErrorCode;
  readonly path: string;
  constructor(code: CvoErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CvoError';
    this.code = code;
    this.path = path;
  }
}
