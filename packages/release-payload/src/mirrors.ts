/**
 * Registry mirrors as CRI-O applies them (containers/image `sysregistriesv2`): each rule names a source scope
 * (`host[:port][/path]` or `*.domain`) and its mirrors, tried in order before the source; a `blocked` source is never
 * contacted (IDMS `mirrorSourcePolicy: NeverContactSource`). Rules come from the cluster's ImageDigestMirrorSet,
 * ImageTagMirrorSet and ImageContentSourcePolicy objects ({@link mirrorRulesFromCluster}, as the MCO's
 * container-runtime-config controller merges them into registries.conf) or from a node's registries.conf
 * ({@link parseRegistriesConf}).
 */
import { PayloadError } from './errors.js';

/** When a mirror is used: `digest-only` (IDMS/ICSP), `tag-only` (ITMS) or `all`. */
export type PullFromMirror = 'all' | 'digest-only' | 'tag-only';

/** One mirror of a {@link MirrorRule}. */
export interface Mirror {
  location: string;
  pullFromMirror: PullFromMirror;
  /** registries.conf `insecure`: reached without TLS verification. */
  insecure?: boolean;
}

/** A registries.conf `[[registry]]` entry: a source scope and its mirrors. */
export interface MirrorRule {
  /** `host[:port][/path]`, or `*.domain` (any host under that domain). */
  source: string;
  mirrors: Mirror[];
  /** Never pull from the source itself (only its mirrors). */
  blocked: boolean;
  /** registries.conf `location` when it differs from the prefix: where the source itself is pulled from. */
  location?: string;
  /** registries.conf `insecure`: the source is reached without TLS verification. */
  insecure?: boolean;
}

/** The scopes a set of rules marks `insecure` (sources and mirrors), for `insecureRegistries`. */
export function insecureScopes(rules: readonly MirrorRule[]): string[] {
  const out: string[] = [];
  for (const r of rules) {
    if (r.insecure) out.push(r.location ?? r.source);
    for (const m of r.mirrors) if (m.insecure) out.push(m.location);
  }
  return out;
}

/** One place to pull an image from, in the order tried. */
export interface PullSource {
  /** The rewritten reference (`mirror/path@sha256:…`). */
  reference: string;
  /** True for a mirror, false for the source named in the pull spec. */
  mirror: boolean;
}

interface MirrorSetEntry {
  source?: unknown;
  mirrors?: unknown;
  mirrorSourcePolicy?: unknown;
}

/** A cluster object with a list of mirror entries (IDMS, ITMS, ICSP); only the fields read here. */
export interface MirrorSetObject {
  metadata?: { name?: string };
  spec?: { imageDigestMirrors?: unknown; imageTagMirrors?: unknown; repositoryDigestMirrors?: unknown };
}

function addRule(rules: Map<string, MirrorRule>, e: MirrorSetEntry, mode: PullFromMirror, where: string): void {
  if (typeof e.source !== 'string' || e.source === '')
    throw new PayloadError('InvalidMirrorConfig', `${where}: source must be a non-empty string`, where);
  const rule = rules.get(e.source) ?? { source: e.source, mirrors: [], blocked: false };
  rules.set(e.source, rule);
  const mirrors = Array.isArray(e.mirrors) ? e.mirrors : [];
  for (const m of mirrors) {
    if (typeof m !== 'string' || m === '')
      throw new PayloadError('InvalidMirrorConfig', `${where}: mirrors must be non-empty strings`, where);
    const same = rule.mirrors.find((x) => x.location === m);
    if (!same) rule.mirrors.push({ location: m, pullFromMirror: mode });
    else if (same.pullFromMirror !== mode) same.pullFromMirror = 'all';
  }
  if (e.mirrorSourcePolicy === 'NeverContactSource') rule.blocked = true;
}

function byName(a: MirrorSetObject, b: MirrorSetObject): number {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

function entriesOf(list: unknown): MirrorSetEntry[] {
  return Array.isArray(list) ? (list.filter((x) => x !== null && typeof x === 'object') as MirrorSetEntry[]) : [];
}

/**
 * Merges the cluster's mirror objects into rules, as the MCO's container-runtime-config controller does for
 * registries.conf (machine-config-operator `pkg/controller/container-runtime-config/helpers.go` `updateRegistriesConfig`,
 * runtime-utils `EditRegistriesConfig`): ICSP `repositoryDigestMirrors` and IDMS `imageDigestMirrors` give digest-only
 * mirrors, ITMS `imageTagMirrors` tag-only ones; one rule per source, mirrors in object-name then list order,
 * duplicates dropped; `NeverContactSource` blocks the source.
 */
export function mirrorRulesFromCluster(objects: {
  idms?: readonly MirrorSetObject[];
  itms?: readonly MirrorSetObject[];
  icsp?: readonly MirrorSetObject[];
}): MirrorRule[] {
  const rules = new Map<string, MirrorRule>();
  for (const o of [...(objects.icsp ?? [])].sort(byName))
    for (const e of entriesOf(o.spec?.repositoryDigestMirrors))
      addRule(rules, e, 'digest-only', `ImageContentSourcePolicy ${o.metadata?.name ?? ''}`);
  for (const o of [...(objects.idms ?? [])].sort(byName))
    for (const e of entriesOf(o.spec?.imageDigestMirrors))
      addRule(rules, e, 'digest-only', `ImageDigestMirrorSet ${o.metadata?.name ?? ''}`);
  for (const o of [...(objects.itms ?? [])].sort(byName))
    for (const e of entriesOf(o.spec?.imageTagMirrors))
      addRule(rules, e, 'tag-only', `ImageTagMirrorSet ${o.metadata?.name ?? ''}`);
  return [...rules.values()];
}

/** Length of the part of `name` (`host/repo`) that `source` matches, or -1 (containers/image prefix matching). */
export function matchLength(name: string, source: string): number {
  if (source.startsWith('*.')) {
    const slash = name.indexOf('/');
    const host = slash < 0 ? name : name.slice(0, slash);
    return host.endsWith(source.slice(1)) ? host.length : -1;
  }
  if (name === source) return source.length;
  return name.startsWith(source) && name[source.length] === '/' ? source.length : -1;
}

/** The rule that applies to `name` (`host/repo`): the longest matching source, as containers/image picks it. */
export function findRule(name: string, rules: readonly MirrorRule[]): { rule: MirrorRule; length: number } | undefined {
  let best: { rule: MirrorRule; length: number; exact: boolean } | undefined;
  for (const rule of rules) {
    const length = matchLength(name, rule.source);
    if (length < 0) continue;
    const exact = !rule.source.startsWith('*.');
    // a non-wildcard source beats a wildcard one; then the longer match wins
    if (!best || (exact && !best.exact) || (exact === best.exact && length > best.length))
      best = { rule, length, exact };
  }
  return best;
}

/**
 * Where to pull `reference` (`host/repo@sha256:…` or `host/repo:tag`) from, in order: the rule's mirrors that apply to
 * the reference kind, then the source unless blocked (containers/image `PullSourcesFromReference`). Without a rule,
 * only the source.
 */
export function pullSources(reference: string, rules: readonly MirrorRule[]): PullSource[] {
  const at = reference.indexOf('@');
  const byDigest = at >= 0;
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  const nameEnd = byDigest ? at : colon > slash ? colon : reference.length;
  const name = reference.slice(0, nameEnd);
  const suffix = reference.slice(nameEnd);
  const found = findRule(name, rules);
  if (!found) return [{ reference, mirror: false }];
  const rest = name.slice(found.length);
  const out: PullSource[] = [];
  for (const m of found.rule.mirrors) {
    if (m.pullFromMirror === 'digest-only' && !byDigest) continue;
    if (m.pullFromMirror === 'tag-only' && byDigest) continue;
    out.push({ reference: `${m.location}${rest}${suffix}`, mirror: true });
  }
  if (!found.rule.blocked)
    out.push({
      reference: found.rule.location !== undefined ? `${found.rule.location}${rest}${suffix}` : reference,
      mirror: false,
    });
  return out;
}
