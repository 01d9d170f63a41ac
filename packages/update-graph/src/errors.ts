/**
 * Typed errors of @keelson/update-graph.
 *
 * Client errors carry the CVO `RetrievedUpdates` reason as `code`, and their
 * `message` is exactly `<Reason>: <Message>` like the CVO's `cincinnati.Error`.
 */

/** Reasons used by the CVO (and this client) for update-retrieval failures. */
export type UpdateRetrievalReason =
  | 'InvalidURL'
  | 'InvalidRequest'
  | 'RemoteFailed'
  | 'ResponseFailed'
  | 'ResponseInvalid'
  | 'VersionNotFound'
  | 'NoChannel'
  | 'NoCurrentVersion'
  | 'InvalidCurrentVersion';

/** Base class of every error thrown by this package. */
export class UpdateGraphError extends Error {
  /** Machine-readable code (a CVO reason for client errors). */
  readonly code: string;
  /** What the user can do about it. */
  readonly hint: string | undefined;
  constructor(code: string, message: string, options?: { cause?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options?.hint;
  }
}

/**
 * Failure retrieving or interpreting an update graph. `message` is `<reason>: <detail>`,
 * identical to the CVO's error string; `detail` is the part after the reason.
 */
export class UpdateRetrievalError extends UpdateGraphError {
  /** The CVO reason (same as `code`). */
  readonly reason: UpdateRetrievalReason;
  /** Message without the reason prefix (what the CVO puts in the condition message). */
  readonly detail: string;
  constructor(reason: UpdateRetrievalReason, detail: string, options?: { cause?: unknown; hint?: string }) {
    super(reason, `${reason}: ${detail}`, options);
    this.reason = reason;
    this.detail = detail;
  }
}

/** A graph document is malformed; `path` is the JSON path at fault (e.g. `$.edges[3][1]`). */
export class GraphValidationError extends UpdateGraphError {
  /** JSON path of the offending value. */
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown; hint?: string }) {
    super('GRAPH_INVALID', message, options);
    this.path = path;
  }
}

/** A version string is not strict SemVer 2.0 (messages follow blang/semver). */
export class SemverError extends UpdateGraphError {
  /** The offending input. */
  readonly input: string;
  constructor(input: string, message: string) {
    super('SEMVER_INVALID', message, { hint: 'use a SemVer 2.0 version such as 4.18.3 (no leading "v")' });
    this.input = input;
  }
}

/** Graph-data (cincinnati-graph-data directory) or release metadata is unusable. */
export class GraphDataError extends UpdateGraphError {
  /** File at fault. */
  readonly file: string;
  constructor(file: string, message: string, options?: { cause?: unknown; hint?: string }) {
    super('GRAPH_DATA_INVALID', `${file}: ${message}`, options);
    this.file = file;
  }
}

/** No path can be planned; `missingHop` describes the hop that does not exist. */
export class NoPathError extends UpdateGraphError {
  /** Human-readable description of the missing hop. */
  readonly missingHop: string;
  /** Risks that would have to be accepted for a path to exist (empty if none helps). */
  readonly risksToAccept: readonly string[];
  constructor(message: string, missingHop: string, risksToAccept: readonly string[]) {
    super('NO_PATH', message);
    this.missingHop = missingHop;
    this.risksToAccept = risksToAccept;
  }
}

/** Risk (cluster condition) evaluation failure. */
export class RiskEvaluationError extends UpdateGraphError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RISK_EVALUATION_FAILED', message, options);
  }
}
