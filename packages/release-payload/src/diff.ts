import type { ReleasePayload } from './payload.js';
import type { Manifest } from './parse.js';

/** One changed value inside a manifest, addressed by a JSON path like `spec.containers[0].image`. */
export interface ValueChange {
  path: string;
  /** Absent when the value was added. */
  from?: unknown;
  /** Absent when the value was removed. */
  to?: unknown;
}

/** A manifest present in both payloads whose content differs semantically. */
export interface ManifestChange {
  id: string;
  fromFile: string;
  toFile: string;
  changes: ValueChange[];
}

/** A changed image of `image-references`. */
export interface ImageChange {
  name: string;
  from?: string;
  to?: string;
}

/** Result of {@link diffPayloads}. */
export interface PayloadDiff {
  version: { from: string; to: string; changed: boolean };
  previous: { added: string[]; removed: string[] };
  channels: { added: string[]; removed: string[] };
  manifests: { added: Manifest[]; removed: Manifest[]; changed: ManifestChange[]; unchanged: number };
  images: ImageChange[];
  /** Change of the machine OS image(s) (`rhel-coreos`, `machine-os-content`, ...), a subset of `images`. */
  osImages: ImageChange[];
  /** Component versions (from tags' `io.openshift.build.versions`), e.g. `kubernetes`, `machine-os`. */
  componentVersions: { name: string; from?: string; to?: string }[];
}

const OS_IMAGE =
  /^(machine-os-content|rhel-coreos(-\d+)?(-extensions)?|rhel-coreos-extensions|fedora-coreos|stream-coreos|centos-stream-coreos(-\d+)?)$/;

function keyOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function fmtKey(path: string, k: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(k) && !k.includes('.')
    ? path
      ? `${path}.${k}`
      : k
    : `${path}[${JSON.stringify(k)}]`;
}

/** Semantic (structural) diff of two JSON values; returns the changed leaves. */
export function diffValues(a: unknown, b: unknown, path = '', out: ValueChange[] = []): ValueChange[] {
  if (keyOf(a) !== keyOf(b)) {
    out.push({ path: path || '.', from: a, to: b });
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= a.length) out.push({ path: p, to: b[i] });
      else if (i >= b.length) out.push({ path: p, from: a[i] });
      else diffValues(a[i], b[i], p, out);
    }
    return out;
  }
  if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort();
    for (const k of keys) {
      const p = fmtKey(path, k);
      if (!(k in bo)) out.push({ path: p, from: ao[k] });
      else if (!(k in ao)) out.push({ path: p, to: bo[k] });
      else diffValues(ao[k], bo[k], p, out);
    }
    return out;
  }
  if (a !== b) out.push({ path: path || '.', from: a, to: b });
  return out;
}

function keyed(ms: readonly Manifest[]): Map<string, Manifest> {
  const seen = new Map<string, number>();
  const out = new Map<string, Manifest>();
  for (const m of ms) {
    const n = seen.get(m.id) ?? 0;
    seen.set(m.id, n + 1);
    out.set(n === 0 ? m.id : `${m.id}#${n}`, m);
  }
  return out;
}

function setDiff(a: readonly string[], b: readonly string[]): { added: string[]; removed: string[] } {
  const as = new Set(a);
  const bs = new Set(b);
  return { added: b.filter((x) => !as.has(x)), removed: a.filter((x) => !bs.has(x)) };
}

/** Parses `io.openshift.build.versions` style `name=version,name=version` lists from all tags. */
export function componentVersions(p: Pick<ReleasePayload, 'imageReferences'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of p.imageReferences.tags) {
    const v = t.annotations['io.openshift.build.versions'];
    if (!v) continue;
    for (const part of v.split(',')) {
      const i = part.indexOf('=');
      if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
    }
  }
  return out;
}

/**
 * Semantic difference between two payloads: manifests added/removed/changed (structural diff of the parsed objects,
 * matched by resource identity, so formatting and key order do not matter), image pull specs per component, the OS
 * image, component versions, the version and its `previous` list.
 */
export function diffPayloads(a: ReleasePayload, b: ReleasePayload): PayloadDiff {
  const ka = keyed(a.manifests);
  const kb = keyed(b.manifests);
  const added: Manifest[] = [];
  const removed: Manifest[] = [];
  const changed: ManifestChange[] = [];
  let unchanged = 0;
  for (const [k, m] of ka) {
    const o = kb.get(k);
    if (!o) {
      removed.push(m);
      continue;
    }
    const changes = diffValues(m.object, o.object);
    if (changes.length > 0)
      changed.push({ id: m.id, fromFile: `${m.dir}/${m.filename}`, toFile: `${o.dir}/${o.filename}`, changes });
    else unchanged++;
  }
  for (const [k, m] of kb) if (!ka.has(k)) added.push(m);
  const images: ImageChange[] = [];
  const names = [...new Set([...Object.keys(a.images), ...Object.keys(b.images)])].sort();
  for (const n of names) {
    const f = a.images[n];
    const t = b.images[n];
    if (f === t) continue;
    const c: ImageChange = { name: n };
    if (f !== undefined) c.from = f;
    if (t !== undefined) c.to = t;
    images.push(c);
  }
  const ca = componentVersions(a);
  const cb = componentVersions(b);
  const comps: PayloadDiff['componentVersions'] = [];
  for (const n of [...new Set([...Object.keys(ca), ...Object.keys(cb)])].sort()) {
    if (ca[n] === cb[n]) continue;
    const c: PayloadDiff['componentVersions'][number] = { name: n };
    if (ca[n] !== undefined) c.from = ca[n];
    if (cb[n] !== undefined) c.to = cb[n];
    comps.push(c);
  }
  return {
    version: { from: a.metadata.version, to: b.metadata.version, changed: a.metadata.version !== b.metadata.version },
    previous: setDiff(a.metadata.previous, b.metadata.previous),
    channels: setDiff(a.metadata.channels, b.metadata.channels),
    manifests: { added, removed, changed, unchanged },
    images,
    osImages: images.filter((i) => OS_IMAGE.test(i.name)),
    componentVersions: comps,
  };
}
