/**
 * base/v0_N translate.go: the generic snake_case -> camelCase copy plus the resource, unit, dropin and
 * user sugar. Produces a plain Ignition config object and its translation set.
 */
import type { BObj, BValue, CPath } from './decode.js';
import { readLocalFile, makeDataURL, SugarError } from './files.js';
import { camel, structFields, type FieldType, type StructName } from './schema.js';
import { TranslationSet } from './tset.js';
import { validateEmbeddedIgnition, type Finding } from './validate.js';
import type { ButaneProfile } from './versions.js';

/** Options the sugar needs. */
export interface SugarOptions {
  filesDir?: string;
  /** Upstream `NoResourceAutoCompression` (forced on by openshift 4.8/4.9). */
  noCompression: boolean;
}

/** State of one translation. */
export interface TxContext {
  profile: ButaneProfile;
  opts: SugarOptions;
  ts: TranslationSet;
  findings: Finding[];
}

/** JSON object produced by the translation. */
export type JObj = Record<string, unknown>;

function isEmpty(v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (v !== null && typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

const SUGAR_BY_STRUCT: Partial<
  Record<StructName, (from: BObj, to: JObj, yp: CPath, jp: CPath, cx: TxContext) => void>
> = {
  Resource: resourceSugar,
  Unit: unitSugar,
  Dropin: unitSugar,
  PasswdUser: userSugar,
};

/** Translates one decoded value into its JSON shape, recording translations. */
export function translateValue(v: BValue | undefined, t: FieldType, yp: CPath, jp: CPath, cx: TxContext): unknown {
  if (v === undefined) return undefined;
  if (typeof t === 'string') {
    cx.ts.add(yp, jp);
    return v;
  }
  if ('list' in t) {
    if (!Array.isArray(v)) return undefined;
    cx.ts.add(yp, jp);
    return v.map((item, i) => translateValue(item, t.list, [...yp, i], [...jp, i], cx) ?? {});
  }
  const from = v as BObj;
  const to: JObj = {};
  for (const fd of structFields(t.struct, cx.profile)) {
    if (fd.sugar || from[fd.yaml] === undefined) continue;
    const name = camel(fd.yaml);
    const out = translateValue(from[fd.yaml], fd.type, [...yp, fd.yaml], [...jp, name], cx);
    // Go's omitempty: a partition number of 0 is not written
    if (t.struct === 'Partition' && name === 'number' && out === 0) continue;
    if (!isEmpty(out)) to[name] = out;
  }
  SUGAR_BY_STRUCT[t.struct]?.(from, to, yp, jp, cx);
  if (!isEmpty(to)) cx.ts.add(yp, jp);
  return to;
}

function addError(cx: TxContext, path: CPath, e: unknown): void {
  cx.findings.push({ kind: 'error', message: e instanceof Error ? e.message : String(e), path });
}

function setSource(contents: Uint8Array, to: JObj, yp: CPath, jp: CPath, cx: TxContext): void {
  const current = typeof to['compression'] === 'string' ? to['compression'] : undefined;
  const { url, compression } = makeDataURL(contents, current, !cx.opts.noCompression);
  to['source'] = url;
  cx.ts.add(yp, [...jp, 'source']);
  if (compression !== undefined) {
    to['compression'] = compression;
    cx.ts.add(yp, [...jp, 'compression']);
  }
}

function resourceSugar(from: BObj, to: JObj, yp: CPath, jp: CPath, cx: TxContext): void {
  if (typeof from['local'] === 'string') {
    try {
      const contents = readLocalFile(from['local'], cx.opts.filesDir);
      if (yp[0] === 'ignition' && yp[1] === 'config') {
        if (
          !validateEmbeddedIgnition(
            [...yp, 'local'],
            [...yp, 'local'],
            contents.toString('utf8'),
            cx.profile,
            cx.findings,
          )
        )
          return;
      }
      setSource(contents, to, [...yp, 'local'], jp, cx);
    } catch (e) {
      if (!(e instanceof SugarError)) throw e;
      addError(cx, [...yp, 'local'], e);
      return;
    }
  }
  if (typeof from['inline'] === 'string') setSource(Buffer.from(from['inline'], 'utf8'), to, [...yp, 'inline'], jp, cx);
}

function unitSugar(from: BObj, to: JObj, yp: CPath, jp: CPath, cx: TxContext): void {
  const local = from['contents_local'];
  if (typeof local !== 'string' || local === '') return;
  try {
    to['contents'] = readLocalFile(local, cx.opts.filesDir).toString('utf8');
    cx.ts.add([...yp, 'contents_local'], [...jp, 'contents']);
  } catch (e) {
    if (!(e instanceof SugarError)) throw e;
    addError(cx, [...yp, 'contents_local'], e);
  }
}

function userSugar(from: BObj, to: JObj, yp: CPath, jp: CPath, cx: TxContext): void {
  const files = from['ssh_authorized_keys_local'];
  if (!Array.isArray(files) || files.length === 0) return;
  const c = [...yp, 'ssh_authorized_keys_local'];
  cx.ts.add(c, [...jp, 'sshAuthorizedKeys']);
  if (cx.opts.filesDir === undefined || cx.opts.filesDir === '') {
    addError(
      cx,
      c,
      new SugarError('local file paths are relative to a files directory that must be specified with -d/--files-dir'),
    );
    return;
  }
  const keys = Array.isArray(to['sshAuthorizedKeys']) ? (to['sshAuthorizedKeys'] as unknown[]) : [];
  files.forEach((file, i) => {
    try {
      const text = readLocalFile(typeof file === 'string' ? file : '', cx.opts.filesDir).toString('utf8');
      for (const line of text.split(/\r?\n/)) {
        if (line === '') continue;
        cx.ts.add([...c, i], [...jp, 'sshAuthorizedKeys', keys.length]);
        keys.push(line);
      }
    } catch (e) {
      if (!(e instanceof SugarError)) throw e;
      addError(cx, [...c, i], e);
    }
  });
  if (keys.length > 0) to['sshAuthorizedKeys'] = keys;
}

/** Translates the base config (no mount units / trees yet): Ignition config + translation set. */
export function translateBase(config: BObj, cx: TxContext): JObj {
  const out = translateValue(config, { struct: 'Config' }, [], [], cx) as JObj;
  delete out['version'];
  delete out['variant'];
  const ign = (out['ignition'] ?? {}) as JObj;
  ign['version'] = cx.profile.ignitionVersion;
  // version goes last, as in Ignition's Go type
  const { version, ...rest } = ign;
  out['ignition'] = { ...rest, version };
  cx.ts.add(['version'], ['ignition', 'version']);
  cx.ts.add(['ignition'], ['ignition']);
  const ordered: JObj = { ignition: out['ignition'] };
  for (const k of ['kernelArguments', 'passwd', 'storage', 'systemd']) if (out[k] !== undefined) ordered[k] = out[k];
  return ordered;
}
