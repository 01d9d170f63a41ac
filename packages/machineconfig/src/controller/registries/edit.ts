/**
 * Editing registries.conf from the cluster's mirror and registry settings, as openshift/runtime-utils
 * `pkg/registries/registries.go` (`EditRegistriesConfig`, `ScopeIsNestedInsideScope`, `IsValidRegistriesConfScope`,
 * the merged mirror sets) and `topo.go` (the deterministic topological sort of mirrors) do, plus the MCO's checks
 * (machine-config-operator `pkg/controller/container-runtime-config/helpers.go` `validateRegistriesConfScopes`).
 */
import { emptyRegistry, type Endpoint, type RegistriesConf, type Registry } from './toml.js';

/** `AllowContactingSource` (default) or `NeverContactSource`. */
export type MirrorSourcePolicy = '' | 'AllowContactingSource' | 'NeverContactSource';

/** One `imageDigestMirrors` / `imageTagMirrors` / ICSP `repositoryDigestMirrors` entry. */
export interface MirrorRule {
  source: string;
  mirrors?: string[] | null;
  mirrorSourcePolicy?: MirrorSourcePolicy;
}

/** The spec parts of the mirror objects the controller reads. */
export interface MirrorInputs {
  idms: ReadonlyArray<{ spec?: { imageDigestMirrors?: MirrorRule[] | null } }>;
  itms: ReadonlyArray<{ spec?: { imageTagMirrors?: MirrorRule[] | null } }>;
  icsp: ReadonlyArray<{ spec?: { repositoryDigestMirrors?: MirrorRule[] | null } }>;
}

/** A registries input the MCO refuses (message as upstream's). */
export class RegistriesInputError extends Error {
  readonly code = 'REGISTRIES_INPUT_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'RegistriesInputError';
  }
}

/** ScopeIsNestedInsideScope. */
export function scopeIsNestedInsideScope(subScope: string, superScope: string): boolean {
  if (superScope === subScope) return true;
  if (subScope.length > superScope.length && subScope.startsWith(superScope) && subScope[superScope.length] === '/')
    return true;
  if (!superScope.startsWith('*.')) return false;
  const suffix = superScope.slice(1);
  if (subScope.includes(':')) {
    const host = subScope.split(':')[0] ?? '';
    return host.endsWith(suffix) && !host.includes('/');
  }
  return (subScope.split('/')[0] ?? '').endsWith(suffix);
}

/** IsValidRegistriesConfScope. */
export function isValidRegistriesConfScope(scope: string): boolean {
  if (scope === '') return false;
  if (!scope.includes('*')) return true;
  return scope.startsWith('*.') && !/[/@:*]/.test(scope.slice(2));
}

/** Deterministic topological sort (topo.go topoGraph.Sorted): loops broken at the first unused node by name. */
export function topoSorted(edges: ReadonlyArray<[string, string]>): string[] {
  const nodes = new Map<string, { name: string; used: boolean; ins: Set<string>; outs: Set<string> }>();
  const node = (n: string) => {
    let x = nodes.get(n);
    if (!x) nodes.set(n, (x = { name: n, used: false, ins: new Set(), outs: new Set() }));
    return x;
  };
  for (const [from, to] of edges) {
    node(from).outs.add(to);
    node(to).ins.add(from);
  }
  const all = [...nodes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const queue = all.filter((n) => n.ins.size === 0);
  const res: string[] = [];
  let idx = 0;
  while (queue.length > 0 || idx < all.length) {
    let n = queue.shift();
    if (n === undefined) {
      n = all[idx++];
      if (n === undefined || n.used) continue;
    }
    n.used = true;
    res.push(n.name);
    const next: string[] = [];
    for (const o of n.outs) {
      const on = node(o);
      on.ins.delete(n.name);
      if (on.ins.size === 0 && !on.used) next.push(o);
    }
    for (const o of next.sort()) queue.push(node(o));
  }
  return res;
}

interface MergedMirrorSet {
  source: string;
  mirrors: string[];
  neverContactSource: boolean;
}

class MirrorSets {
  readonly disjoint = new Map<string, string[][]>();
  readonly blockSource = new Set<string>();
  add(rule: MirrorRule, policy: MirrorSourcePolicy): void {
    const mirrors = rule.mirrors ?? [];
    if (!mirrors.some((m) => m !== rule.source)) return;
    if (policy === 'NeverContactSource') this.blockSource.add(rule.source);
    const ds = this.disjoint.get(rule.source) ?? [];
    ds.push([...mirrors]);
    this.disjoint.set(rule.source, ds);
  }
  merged(): MergedMirrorSet[] {
    return [...this.disjoint.keys()].sort().map((source) => {
      const edges: Array<[string, string]> = [];
      for (const ms of this.disjoint.get(source) ?? []) {
        for (let i = 0; i + 1 < ms.length; i++) edges.push([ms[i] ?? '', ms[i + 1] ?? '']);
        if (!ms.includes(source)) edges.push([ms[ms.length - 1] ?? '', source]);
      }
      let sorted = topoSorted(edges);
      if (sorted[sorted.length - 1] === source) sorted = sorted.slice(0, -1);
      return { source, mirrors: sorted, neverContactSource: this.blockSource.has(source) };
    });
  }
}

function digestMirrorSets(inputs: MirrorInputs): MergedMirrorSet[] {
  const sets = new MirrorSets();
  for (const o of inputs.idms)
    for (const r of o.spec?.imageDigestMirrors ?? []) sets.add(r, r.mirrorSourcePolicy ?? '');
  for (const o of inputs.icsp) for (const r of o.spec?.repositoryDigestMirrors ?? []) sets.add(r, '');
  return sets.merged();
}

function tagMirrorSets(inputs: MirrorInputs): MergedMirrorSet[] {
  const sets = new MirrorSets();
  for (const o of inputs.itms) for (const r of o.spec?.imageTagMirrors ?? []) sets.add(r, r.mirrorSourcePolicy ?? '');
  return sets.merged();
}

const registryScope = (r: Registry): string => (r.prefix !== '' ? r.prefix : r.location);

function mirrorsAdjustedForNestedScope(mirrored: string, sub: string, mirrors: readonly Endpoint[]): Endpoint[] {
  if (!scopeIsNestedInsideScope(sub, mirrored) || mirrored.startsWith('*.') || !sub.startsWith(mirrored))
    throw new RegistriesInputError(`internal error: mirrorsAdjustedForNestedScope for ${mirrored} and ${sub}`);
  const adj = sub.slice(mirrored.length);
  return mirrors.map((m) => ({ ...m, location: m.location + adj }));
}

/** EditRegistriesConfig: edits `conf` in place. */
export function editRegistriesConfig(
  conf: RegistriesConf,
  insecureScopes: readonly string[],
  blockedScopes: readonly string[],
  inputs: MirrorInputs,
): void {
  const regs = (conf.registries ??= []);
  const entry = (scope: string): Registry => {
    const found = regs.find((r) => registryScope(r) === scope);
    if (found) return found;
    const r = emptyRegistry();
    if (scope.startsWith('*.')) r.prefix = scope;
    else r.location = scope;
    regs.push(r);
    return r;
  };
  const addMirrors = (sets: MergedMirrorSet[], pullFromMirror: string): void => {
    for (const s of sets) {
      const r = entry(s.source);
      if (s.neverContactSource) r.blocked = true;
      for (const m of s.mirrors) (r.mirrors ??= []).push({ location: m, insecure: false, pullFromMirror });
    }
  };
  const digest = digestMirrorSets(inputs);
  addMirrors(digest, 'digest-only');
  const tag = tagMirrorSets(inputs);
  addMirrors(tag, 'tag-only');
  for (const s of blockedScopes) entry(s);
  for (const ins of insecureScopes) {
    entry(ins).insecure = true;
    for (const r of regs) {
      if (scopeIsNestedInsideScope(registryScope(r), ins)) r.insecure = true;
      for (const m of r.mirrors ?? []) if (scopeIsNestedInsideScope(m.location, ins)) m.insecure = true;
    }
  }
  for (const b of blockedScopes) {
    entry(b).blocked = true;
    for (const r of regs) if (scopeIsNestedInsideScope(registryScope(r), b)) r.blocked = true;
  }
  for (const s of [...digest, ...tag]) {
    const mirrored = entry(s.source);
    const scope = registryScope(mirrored);
    for (const r of regs) {
      const sc = registryScope(r);
      if (sc !== scope && scopeIsNestedInsideScope(sc, scope) && (r.mirrors ?? []).length === 0)
        r.mirrors = mirrorsAdjustedForNestedScope(scope, sc, mirrored.mirrors ?? []);
    }
  }
}

// helpers.go sourceRegex / mirrorRegex (the IDMS/ITMS CRD patterns, kept for ICSP)
const LABEL = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOST = `(${LABEL}(?:(?:\\.${LABEL})+)?(?::[0-9]+)?)`;
const PATH = '(?:(?:/[a-z0-9]+(?:(?:(?:[._]|__|[-]*)[a-z0-9]+)+)?)+)?';
const SOURCE_RE = new RegExp(`^\\*(?:\\.${LABEL})+$|^${HOST}${PATH}$`);
const MIRROR_RE = new RegExp(`^${HOST}${PATH}$`);

/** validateRegistriesConfScopes. @throws RegistriesInputError */
export function validateRegistriesConfScopes(
  insecure: readonly string[],
  blocked: readonly string[],
  allowed: readonly string[],
  inputs: MirrorInputs,
): void {
  for (const [list, what] of [
    [insecure, 'insecure'],
    [blocked, 'blocked'],
    [allowed, 'allowed'],
  ] as const)
    for (const s of list)
      if (!isValidRegistriesConfScope(s))
        throw new RegistriesInputError(`invalid entry for ${what} registries ${JSON.stringify(s)}`);
  const policies = new Map<string, string>();
  const check = (r: MirrorRule, policy: string): void => {
    if (!SOURCE_RE.test(r.source))
      throw new RegistriesInputError(`invalid format for source ${JSON.stringify(r.source)}`);
    const p = policy === '' ? 'AllowContactingSource' : policy;
    const seen = policies.get(r.source);
    if (seen === undefined) policies.set(r.source, p);
    else if (seen !== p)
      throw new RegistriesInputError(
        `conflicting mirrorSourcePolicy is set for the same source ${JSON.stringify(r.source)} in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies`,
      );
    for (const m of r.mirrors ?? []) {
      if (!MIRROR_RE.test(m)) throw new RegistriesInputError(`invalid format for mirror ${JSON.stringify(m)}`);
      if (p === 'NeverContactSource' && m === r.source)
        throw new RegistriesInputError(
          `cannot set mirrorSourcePolicy: NeverContactSource if the source ${JSON.stringify(r.source)} is one of the mirrors`,
        );
    }
  };
  for (const o of inputs.idms) for (const r of o.spec?.imageDigestMirrors ?? []) check(r, r.mirrorSourcePolicy ?? '');
  for (const o of inputs.icsp) for (const r of o.spec?.repositoryDigestMirrors ?? []) check(r, '');
  for (const o of inputs.itms) for (const r of o.spec?.imageTagMirrors ?? []) check(r, r.mirrorSourcePolicy ?? '');
}
