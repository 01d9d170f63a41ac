/** One problem found while loading a payload: the file, the line (1-based, when known) and what is wrong. */
export interface PayloadIssue {
  /** Path of the file relative to the payload root, e.g. `release-manifests/0000_10_x.yaml`. */
  file: string;
  /** 1-based line of the problem inside the file, when known. */
  line?: number;
  /** Human readable description. */
  message: string;
  /** 0-based byte offset of the problem inside the file, when known (e.g. invalid UTF-8). */
  offset?: number;
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
  | 'InvalidMirrorConfig'
  | 'ProxyError'
  | 'UnsupportedSource'
  | 'VerificationFailed'
  | 'ExtractError'
  | 'SourceReadError'
  | 'InvalidEncoding';

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

const FS_HINTS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EMFILE: 'too many open files; raise the open-file limit (ulimit -n)',
  ENFILE: 'too many open files in the system',
  EISDIR: 'is a directory',
  ENOTDIR: 'a path component is not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EIO: 'input/output error',
  ENOSPC: 'no space left on device',
};

/**
 * Turns any error raised while reading `source` into a {@link PayloadError}: system errors keep their errno code in
 * the message (`ENOENT` becomes `PayloadMissingFile`), anything else becomes `SourceReadError` with the cause kept.
 */
export function asPayloadError(e: unknown, source: string): PayloadError {
  if (e instanceof PayloadError) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  const errno = (err as NodeJS.ErrnoException).code;
  const path = (err as NodeJS.ErrnoException).path ?? source;
  let out: PayloadError;
  if (typeof errno === 'string' && errno in FS_HINTS) {
    out = new PayloadError(
      errno === 'ENOENT' ? 'PayloadMissingFile' : 'SourceReadError',
      `${path}: ${FS_HINTS[errno] ?? errno} (${errno}) while reading ${source}`,
      path,
    );
  } else {
    out = new PayloadError(
      'SourceReadError',
      `${source}: cannot read the payload: ${err.name}: ${err.message}`,
      source,
    );
  }
  (out as { cause?: unknown }).cause = err;
  return out;
}

/** Runs `fn`, turning any error it raises into a {@link PayloadError} (see {@link asPayloadError}). */
export async function typedErrors<T>(source: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw asPayloadError(e, source);
  }
}
