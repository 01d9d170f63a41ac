/** One problem found while loading a payload: the file, the line (1-based, when known) and what is wrong. */
export interface PayloadIssue {
  /** Path of the file relative to the payload root, e.g. `release-manifests/0000_10_x.yaml`. */
  file: string;
  /** 1-based line of the problem inside the file, when known. */
  line?: number;
  /** Human readable description. */
  message: string;
}

/** Error codes raised by this package. */
export type PayloadErrorCode =
  | 'UpdatePayloadIntegrity'
  | 'PayloadMissingFile'
  | 'InvalidReleaseMetadata'
  | 'InvalidImageReferences'
  | 'TemplateError'
  | 'UnsafeArchive'
  | 'ArchiveLimitExceeded'
  | 'DigestMismatch'
  | 'InvalidImageLayout'
  | 'RegistryError'
  | 'RegistryTLSError'
  | 'UnsupportedSource'
  | 'VerificationFailed';

/** Base class of every error thrown by `@keelson/release-payload`; `code` is stable and machine readable. */
export class PayloadError extends Error {
  constructor(
    readonly code: PayloadErrorCode,
    message: string,
    /** File, field or JSON path at fault, when there is one. */
    readonly path?: string,
  ) {
    super(message);
    this.name = 'PayloadError';
  }
}

/**
 * The payload's content is invalid (upstream reason `UpdatePayloadIntegrity`). `issues` lists every bad file and
 * line found, not only the first.
 */
export class PayloadIntegrityError extends PayloadError {
  constructor(
    readonly root: string,
    readonly issues: PayloadIssue[],
  ) {
    super(
      'UpdatePayloadIntegrity',
      `Error loading manifests from ${root}: ${issues.length} problem(s); fix or remove these files:\n` +
        issues.map((i) => `  ${i.file}${i.line !== undefined ? `:${i.line}` : ''}: ${i.message}`).join('\n'),
    );
    this.name = 'PayloadIntegrityError';
  }
}

/** A Go-template rendering error in the CVO's own `manifests/` directory. */
export class TemplateError extends PayloadError {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number,
  ) {
    super('TemplateError', `template: ${file}:${line}: ${message}`, file);
    this.name = 'TemplateError';
  }
}

/** An archive or image layer was refused for safety (traversal, links escaping, devices, caps, digest). */
export class UnsafeArchiveError extends PayloadError {
  constructor(code: 'UnsafeArchive' | 'ArchiveLimitExceeded' | 'DigestMismatch', message: string, path?: string) {
    super(code, message, path);
    this.name = 'UnsafeArchiveError';
  }
}

/**
 * The TLS connection to a registry failed: its certificate could not be verified (unknown CA, wrong host name,
 * expired) or a client certificate could not be loaded. `host` is the registry `host[:port]`; `reason` is the
 * TLS error code (e.g. `SELF_SIGNED_CERT_IN_CHAIN`).
 */
export class RegistryTlsError extends PayloadError {
  constructor(
    readonly host: string,
    readonly reason: string,
    message: string,
  ) {
    super('RegistryTLSError', message, host);
    this.name = 'RegistryTlsError';
  }
}
