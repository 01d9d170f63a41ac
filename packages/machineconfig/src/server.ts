/**
 * Accept-header negotiation of the machine-config-server (pkg/server/api.go) as a pure function: which Ignition
 * spec version to serve.
 */

/** One parsed Accept entry (field names as in the MCS). */
export interface AcceptEntry {
  MIMEType: string;
  MIMESubtype: string;
  /** `version=` parameter when it is a valid semver, else null. */
  SemVer: string | null;
  QValue: number;
}

/** Raised for an explicitly requested but unsupported version (the MCS answers 400). */
export class AcceptHeaderError extends Error {
  /** Stable error code. */
  readonly code = 'MCS_UNSUPPORTED_IGNITION_VERSION';
  /** HTTP status the server answers with. */
  readonly status = 400;
  constructor(header: string) {
    super(`unsupported Ignition version in Accept header: ${header}`);
    this.name = 'AcceptHeaderError';
  }
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** The Ignition media subtype the MCS looks for. */
export const IGNITION_MEDIA_SUBTYPE = 'vnd.coreos.ignition+json';

/** Parses an Accept header the MCS way: entries without "/" ignored, stable sort by q descending. */
export function parseAcceptHeader(header: string): AcceptEntry[] {
  const out: AcceptEntry[] = [];
  for (const raw of header.split(',')) {
    const parts = raw.split(';').map((p) => p.trim());
    const media = parts[0] ?? '';
    const slash = media.indexOf('/');
    if (slash < 0) continue;
    const entry: AcceptEntry = {
      MIMEType: media.slice(0, slash),
      MIMESubtype: media.slice(slash + 1),
      SemVer: null,
      QValue: 1.0,
    };
    for (const param of parts.slice(1)) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const key = param.slice(0, eq).trim();
      const value = param.slice(eq + 1).trim();
      if (key === 'version') {
        if (SEMVER.test(value)) entry.SemVer = value;
      } else if (key === 'q') {
        const q = Number(value);
        if (value !== '' && Number.isFinite(q)) entry.QValue = q;
      }
    }
    out.push(entry);
  }
  return out
    .map((e, i) => ({ e, i }))
    .sort((a, b) => b.e.QValue - a.e.QValue || a.i - b.i)
    .map(({ e }) => e);
}

/** Ignition spec versions the MCS can serve, newest last. */
export const SERVABLE_IGNITION_VERSIONS = ['2.2.0', '3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0', '3.5.0'] as const;

/**
 * Which Ignition version the MCS serves for this Accept header: the first Ignition entry (by q) carrying a
 * version decides; 2.x (x ≥ 2) → 2.2.0, 3.y → 3.y.0 (newer minors → 3.5.0); no usable entry → 2.2.0.
 * @throws AcceptHeaderError for an explicitly requested unsupported version (e.g. 4.0.0, 2.1.0).
 */
export function negotiateIgnitionVersion(header: string | undefined | null): string {
  if (header === undefined || header === null || header === '') return '2.2.0';
  for (const e of parseAcceptHeader(header)) {
    if (e.MIMESubtype !== IGNITION_MEDIA_SUBTYPE || e.SemVer === null) continue;
    const [major = 0, minor = 0] = e.SemVer.split(/[.+-]/).map(Number);
    if (major === 2 && minor >= 2) return '2.2.0';
    if (major === 3) return minor <= 5 ? `3.${minor}.0` : '3.5.0';
    throw new AcceptHeaderError(header);
  }
  return '2.2.0';
}
