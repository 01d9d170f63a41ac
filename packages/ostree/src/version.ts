import { parse as parseYaml } from 'yaml';
import { OstreeError } from './errors.js';

/** `rpm-ostree --version` data. */
export interface RpmOstreeVersion {
  readonly version: string;
  readonly git: string | undefined;
  readonly features: readonly string[];
}

/** Parses the YAML of `rpm-ostree --version` (`rpm-ostree: {Version, Git, Features[]}`). */
export function parseRpmOstreeVersion(text: string): RpmOstreeVersion {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 10 });
  } catch (e) {
    throw new OstreeError(
      'VERSION_PARSE',
      `failed to parse \`rpm-ostree --version\` output as YAML: ${(e as Error).message}`,
    );
  }
  const root = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)['rpm-ostree'] : undefined;
  if (typeof root !== 'object' || root === null) {
    throw new OstreeError(
      'VERSION_PARSE',
      'failed to parse `rpm-ostree --version` output: missing "rpm-ostree" mapping',
    );
  }
  const r = root as Record<string, unknown>;
  const version = r['Version'];
  if (typeof version !== 'string' && typeof version !== 'number') {
    throw new OstreeError(
      'VERSION_PARSE',
      'failed to parse `rpm-ostree --version` output: "rpm-ostree.Version" missing',
    );
  }
  const features = Array.isArray(r['Features']) ? r['Features'].filter((f): f is string => typeof f === 'string') : [];
  const git = r['Git'];
  return { version: String(version), git: typeof git === 'string' ? git : undefined, features };
}

/** True when `actual` (dotted numbers) is at least `required`, compared part by part like rpmostree-client-go. */
export function versionAtLeast(actual: string, required: string): boolean {
  const a = actual.split('.').map((x) => Number.parseInt(x, 10));
  const r = required.split('.').map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < r.length && i < a.length; i++) {
    const av = a[i] ?? 0;
    const rv = r[i] ?? 0;
    if (Number.isNaN(av) || Number.isNaN(rv)) return false;
    if (av > rv) return true;
    if (av < rv) return false;
  }
  return true;
}
