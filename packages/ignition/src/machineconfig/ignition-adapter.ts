/**
 * Private adapter: what the MCO's IgnParseWrapper + ConvertIgnition2to3 do before merging — parse the raw
 * Ignition of a MachineConfig (spec 2.2 or 3.0–3.5), validate it, and bring it to the 3.5 Go types — with the
 * MCO's exact error texts. Kept inside the machineconfig module so rendering does not depend on the shape of the
 * spec module's parse/translate API.
 */
import { normalizeIgnitionV35, toGoStructV35 } from './gojson.js';

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
const obj = (x: unknown): Obj => (isObj(x) ? x : {});

/** The MCO's own list of accepted spec versions, as printed in its errors. */
export const MCO_SUPPORTED_SPECS = '2.2,3.0,3.1,3.2,3.3,3.4,3.5';

/** Raised for Ignition configs the MCO cannot parse; `message` is the MCO's text. */
export class MachineConfigIgnitionError extends Error {
  /** Stable error code. */
  readonly code = 'MC_IGNITION_PARSE';
  constructor(
    message: string,
    /** JSON path inside the Ignition config, when known. */
    readonly path: (string | number)[] = [],
  ) {
    super(message);
    this.name = 'MachineConfigIgnitionError';
  }
}

interface Entry {
  path: (string | number)[];
  message: string;
  kind: 'error' | 'warning';
}

// ------------------------------------------------------------------------------------------------------------
// Locating a JSON path in raw text (for the "line L col C" of Ignition reports).

function locate(raw: string, path: (string | number)[]): { line: number; col: number } | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < raw.length && ' \t\r\n'.includes(raw[i] as string)) i++;
  };
  const skipString = (): string => {
    const start = i;
    i++;
    while (i < raw.length && raw[i] !== '"') i += raw[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(raw.slice(start, i)) as string;
  };
  const skipValue = (): void => {
    ws();
    const c = raw[i];
    if (c === '"') skipString();
    else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (raw[i] === close) {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (c === '{') {
          skipString();
          ws();
          i++; // colon
        }
        skipValue();
        ws();
        if (raw[i] === ',') i++;
        else {
          i++;
          return;
        }
      }
    } else while (i < raw.length && !',}] \t\r\n'.includes(raw[i] as string)) i++;
  };
  try {
    for (const seg of path) {
      ws();
      if (raw[i] === '{') {
        i++;
        let found = false;
        for (;;) {
          ws();
          if (raw[i] === '}') return undefined;
          const k = skipString();
          ws();
          i++;
          ws();
          if (k === String(seg)) {
            found = true;
            break;
          }
          skipValue();
          ws();
          if (raw[i] === ',') i++;
        }
        if (!found) return undefined;
      } else if (raw[i] === '[') {
        i++;
        for (let n = 0; n < Number(seg); n++) {
          skipValue();
          ws();
          if (raw[i] === ',') i++;
          else return undefined;
        }
        ws();
      } else return undefined;
    }
    ws();
    const before = raw.slice(0, i);
    const line = before.split('\n').length;
    const col = i - before.lastIndexOf('\n');
    return { line, col };
  } catch {
    return undefined;
  }
}

function reportString(rawOf: (() => string) | undefined, entries: Entry[]): string {
  const raw = rawOf?.();
  return entries
    .map((e) => {
      const ctx = ['$', ...e.path].join('.');
      const pos = raw === undefined ? undefined : locate(raw, e.path);
      return pos ? `${e.kind} at ${ctx}, line ${pos.line} col ${pos.col}: ${e.message}\n` : `${e.kind} at ${ctx}: ${e.message}\n`;
    })
    .join('');
}

// ------------------------------------------------------------------------------------------------------------
// Validation (the subset of coreos/ignition validation the render path depends on).

function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

function validateV3(c: Obj): Entry[] {
  const errs: Entry[] = [];
  const storage = obj(c['storage']);
  const seen = new Map<string, string>();
  for (const kind of ['directories', 'files', 'links'] as const) {
    list(storage[kind]).forEach((n, i) => {
      const node = obj(n);
      const at = ['storage', kind, i, 'path'];
      const p = node['path'];
      if (typeof p !== 'string' || p === '') errs.push({ path: at, message: 'path not specified', kind: 'error' });
      else if (!p.startsWith('/')) errs.push({ path: at, message: 'path not absolute', kind: 'error' });
      else if (cleanPath(p) !== p) errs.push({ path: at, message: 'path is not fully simplified', kind: 'error' });
      else if (seen.has(p)) errs.push({ path: at, message: 'duplicate entry defined', kind: 'error' });
      else seen.set(p, kind);
      const mode = node['mode'];
      if (typeof mode === 'number' && (mode < 0 || mode > 0o7777)) {
        errs.push({ path: ['storage', kind, i, 'mode'], message: 'illegal file mode', kind: 'error' });
      }
      if (kind === 'files') {
        const comp = obj(node['contents'])['compression'];
        if (comp !== undefined && comp !== null && comp !== '' && comp !== 'gzip') {
          errs.push({ path: ['storage', kind, i, 'contents', 'compression'], message: 'invalid compression method', kind: 'error' });
        }
      }
    });
  }
  const units = new Set<string>();
  list(obj(c['systemd'])['units']).forEach((u, i) => {
    const name = obj(u)['name'];
    const at = ['systemd', 'units', i, 'name'];
    if (typeof name !== 'string' || !/\.(service|socket|device|mount|automount|swap|target|path|timer|snapshot|slice|scope)$/.test(name)) {
      errs.push({ path: at, message: 'invalid systemd unit extension', kind: 'error' });
    } else if (units.has(name)) errs.push({ path: at, message: 'duplicate entry defined', kind: 'error' });
    else units.add(name);
  });
  const users = new Set<string>();
  list(obj(c['passwd'])['users']).forEach((u, i) => {
    const name = obj(u)['name'];
    if (typeof name === 'string' && users.has(name)) {
      errs.push({ path: ['passwd', 'users', i, 'name'], message: 'duplicate entry defined', kind: 'error' });
    } else if (typeof name === 'string') users.add(name);
  });
  return errs;
}

// ------------------------------------------------------------------------------------------------------------
// Spec 2.2 → 3.x as the MCO does it (de-duplication, then ign-converter).

function dedupV2(c: Obj): Obj {
  const out: Obj = { ...c };
  const storage = obj(c['storage']);
  const files = list(storage['files']);
  if (files.length > 0) {
    const seen = new Set<string>();
    const kept: unknown[] = [];
    for (let i = files.length - 1; i >= 0; i--) {
      if (obj(files[i])['filesystem'] !== 'root') {
        throw new MachineConfigIgnitionError('failed to convert Ignition config spec v2 to v3: cannot dedupe set of files on non-root filesystem', ['storage', 'files', i]);
      }
      if (obj(files[i])['append'] === true) {
        throw new MachineConfigIgnitionError('failed to convert Ignition config spec v2 to v3: cannot dedupe set of files that contains appendices', ['storage', 'files', i]);
      }
      const p = obj(files[i])['path'];
      const key = typeof p === 'string' ? p : '';
      if (seen.has(key)) continue;
      seen.add(key);
      kept.push(files[i]);
    }
    out['storage'] = { ...storage, files: kept };
  }
  const systemd = obj(c['systemd']);
  const units = list(systemd['units']);
  if (units.length > 0) {
    const byName = new Map<string, Obj>();
    const kept: Obj[] = [];
    for (let i = units.length - 1; i >= 0; i--) {
      const u = obj(units[i]);
      const name = String(u['name'] ?? '');
      const existing = byName.get(name);
      if (!existing) {
        const copy: Obj = { ...u, dropins: [...list(u['dropins'])] };
        byName.set(name, copy);
        kept.push(copy);
        continue;
      }
      const have = new Set(list(existing['dropins']).map((d) => String(obj(d)['name'] ?? '')));
      for (const d of list(u['dropins'])) {
        const dn = String(obj(d)['name'] ?? '');
        if (!have.has(dn)) {
          (existing['dropins'] as unknown[]).push(d);
          have.add(dn);
        }
      }
    }
    out['systemd'] = { ...systemd, units: kept };
  }
  const passwd = obj(c['passwd']);
  const users = list(passwd['users']);
  if (users.length > 0) {
    for (const u of users) {
      const n = obj(u)['name'];
      if (n !== 'core') throw new MachineConfigIgnitionError(`unexpected user with name: ${String(n)}. Only core user is supported.`, ['passwd', 'users']);
    }
    const keys: string[] = [];
    for (let i = users.length - 1; i >= 0; i--) {
      for (const k of list(obj(users[i])['sshAuthorizedKeys'])) if (typeof k === 'string' && !keys.includes(k)) keys.push(k);
    }
    const last = obj(users[users.length - 1]);
    out['passwd'] = { ...passwd, users: [{ ...last, sshAuthorizedKeys: keys }] };
  }
  return out;
}

const pick = (o: Obj, keys: string[]): Obj => {
  const r: Obj = {};
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) r[k] = o[k];
  return r;
};

function resourceV2(r: unknown): Obj {
  const o = obj(r);
  const res = pick(o, ['source', 'compression']);
  const hash = obj(o['verification'])['hash'];
  if (typeof hash === 'string') res['verification'] = { hash };
  return res;
}

function nodeV2(n: Obj, where: (string | number)[]): Obj {
  const fs = n['filesystem'];
  if (fs !== undefined && fs !== 'root') {
    throw new MachineConfigIgnitionError(
      `parsing Ignition config spec v2 failed with error: filesystem "${String(fs)}" of ${where.join('.')} is not the root filesystem; only "root" can be converted to spec 3`,
      where,
    );
  }
  const r: Obj = pick(n, ['path', 'overwrite']);
  const user = pick(obj(n['user']), ['id', 'name']);
  const group = pick(obj(n['group']), ['id', 'name']);
  if (Object.keys(user).length) r['user'] = user;
  if (Object.keys(group).length) r['group'] = group;
  return r;
}

function translateV2(c: Obj): Obj {
  const ign = obj(c['ignition']);
  const cfg = obj(ign['config']);
  const outIgn: Obj = { version: '3.5.0' };
  const merge = list(cfg['append']).map(resourceV2);
  const config: Obj = {};
  if (merge.length) config['merge'] = merge;
  if (isObj(cfg['replace'])) config['replace'] = resourceV2(cfg['replace']);
  if (Object.keys(config).length) outIgn['config'] = config;
  if (isObj(ign['timeouts'])) outIgn['timeouts'] = pick(ign['timeouts'], ['httpResponseHeaders', 'httpTotal']);
  const cas = list(obj(obj(ign['security'])['tls'])['certificateAuthorities']).map(resourceV2);
  if (cas.length) outIgn['security'] = { tls: { certificateAuthorities: cas } };
  const out: Obj = { ignition: outIgn };

  const s = obj(c['storage']);
  const storage: Obj = {};
  const files = list(s['files']).map((f, i) => {
    const fo = obj(f);
    // ign-converter: spec 2 files overwrite by default; appending files must not overwrite
    const r = nodeV2({ ...fo, overwrite: fo['append'] === true ? false : (fo['overwrite'] ?? true) }, ['storage', 'files', i]);
    const co = obj(fo['contents']);
    const contents: Obj = { source: typeof co['source'] === 'string' ? co['source'] : '' };
    if (typeof co['compression'] === 'string' && co['compression'] !== '') contents['compression'] = co['compression'];
    const hash = obj(co['verification'])['hash'];
    if (typeof hash === 'string') contents['verification'] = { hash };
    if (fo['append'] === true) r['append'] = [contents];
    else r['contents'] = contents;
    if (typeof fo['mode'] === 'number') r['mode'] = fo['mode'];
    return r;
  });
  if (files.length) storage['files'] = files;
  const dirs = list(s['directories']).map((d, i) => {
    const r = nodeV2(obj(d), ['storage', 'directories', i]);
    if (typeof obj(d)['mode'] === 'number') r['mode'] = obj(d)['mode'];
    return r;
  });
  if (dirs.length) storage['directories'] = dirs;
  const links = list(s['links']).map((l, i) => ({ ...nodeV2(obj(l), ['storage', 'links', i]), ...pick(obj(l), ['target', 'hard']) }));
  if (links.length) storage['links'] = links;
  const disks = list(s['disks']).map((d) => {
    const dob = obj(d);
    const r: Obj = pick(dob, ['device', 'wipeTable']);
    const parts = list(dob['partitions']).map((p) => {
      const po = obj(p);
      const pr: Obj = pick(po, ['label', 'number', 'typeGuid', 'guid']);
      if (typeof po['size'] === 'number') pr['sizeMiB'] = Math.floor(po['size'] / 2048);
      if (typeof po['start'] === 'number') pr['startMiB'] = Math.floor(po['start'] / 2048);
      return pr;
    });
    if (parts.length) r['partitions'] = parts;
    return r;
  });
  if (disks.length) storage['disks'] = disks;
  const raid = list(s['raid']).map((r) => pick(obj(r), ['name', 'level', 'devices', 'spares', 'options']));
  if (raid.length) storage['raid'] = raid;
  const filesystems = list(s['filesystems']).flatMap((f) => {
    const mount = obj(obj(f)['mount']);
    if (Object.keys(mount).length === 0) return [];
    const r: Obj = pick(mount, ['device', 'format', 'wipeFilesystem', 'label', 'uuid', 'options']);
    if (obj(f)['name'] === 'root') r['path'] = '/';
    return [r];
  });
  if (filesystems.length) storage['filesystems'] = filesystems;
  if (Object.keys(storage).length) out['storage'] = storage;

  const units = list(obj(c['systemd'])['units']).map((u) => {
    const uo = obj(u);
    const r: Obj = { name: uo['name'] ?? '' };
    if (uo['enabled'] === true || uo['enable'] === true) r['enabled'] = true;
    if (uo['enabled'] === false) r['enabled'] = false;
    if (uo['mask'] === true) r['mask'] = true;
    if (typeof uo['contents'] === 'string' && uo['contents'] !== '') r['contents'] = uo['contents'];
    const dropins = list(uo['dropins']).map((d) => {
      const dr: Obj = { name: obj(d)['name'] ?? '' };
      if (typeof obj(d)['contents'] === 'string' && obj(d)['contents'] !== '') dr['contents'] = obj(d)['contents'];
      return dr;
    });
    if (dropins.length) r['dropins'] = dropins;
    return r;
  });
  if (units.length) out['systemd'] = { units };
  if (list(obj(c['networkd'])['units']).length > 0) {
    throw new MachineConfigIgnitionError(
      'parsing Ignition config spec v2 failed with error: networkd units cannot be converted to spec 3; use files under /etc/systemd/network',
      ['networkd'],
    );
  }
  const p = obj(c['passwd']);
  const users = list(p['users']).map((u) =>
    pick(obj(u), ['name', 'passwordHash', 'sshAuthorizedKeys', 'uid', 'gecos', 'homeDir', 'noCreateHome', 'primaryGroup', 'groups', 'noUserGroup', 'noLogInit', 'shell', 'system']),
  );
  const groups = list(p['groups']).map((g) => pick(obj(g), ['name', 'gid', 'passwordHash', 'system']));
  const passwd: Obj = {};
  if (users.length) passwd['users'] = users;
  if (groups.length) passwd['groups'] = groups;
  if (Object.keys(passwd).length) out['passwd'] = passwd;
  return out;
}

// ------------------------------------------------------------------------------------------------------------

/** Go json.Marshal of a generic object (map keys sorted), used as the RawExtension bytes of YAML-given configs. */
export function goMarshalSorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goMarshalSorted).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goMarshalSorted(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Parses the raw Ignition of a MachineConfig into the 3.5 Go-typed shape (unknown keys dropped), up-translating
 * 3.0–3.4 and converting 2.2 the MCO's way. Error texts are the MCO's (IgnParseWrapper).
 * @throws MachineConfigIgnitionError
 */
export function parseMachineConfigIgnition(config: Obj | string, opts: { keepEmptyLists?: boolean } = {}): Obj {
  const raw = (): string => (typeof config === 'string' ? config : goMarshalSorted(config));
  let parsed: unknown;
  try {
    parsed = typeof config === 'string' ? JSON.parse(config) : config;
  } catch (err) {
    throw new MachineConfigIgnitionError(
      `parsing Ignition config spec v3 failed with error: config is not valid\nReport: error: ${(err as Error).message}\n`,
    );
  }
  if (!isObj(parsed)) {
    throw new MachineConfigIgnitionError('parsing Ignition config spec v3 failed with error: config is not valid\nReport: error: not a JSON object\n');
  }
  const version = obj(parsed['ignition'])['version'];
  const m = typeof version === 'string' ? /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(version) : null;
  if (!m) {
    throw new MachineConfigIgnitionError(`parsing Ignition config failed: invalid version. Supported spec versions: ${MCO_SUPPORTED_SPECS}`, ['ignition', 'version']);
  }
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const pre = m[4];
  let v3: Obj;
  if (major === 3 && minor <= 5 && pre === undefined) {
    const errs = validateV3(parsed).filter((e) => e.kind === 'error');
    if (errs.length) {
      throw new MachineConfigIgnitionError(
        `parsing Ignition config spec v3 failed with error: config is not valid\nReport: ${reportString(raw, errs)}`,
        errs[0]?.path ?? [],
      );
    }
    v3 = { ...parsed, ignition: { ...obj(parsed['ignition']), version: '3.5.0' } };
  } else if (major === 2 && minor === 2 && pre === undefined) {
    v3 = translateV2(dedupV2(parsed));
    const errs = validateV3(v3).filter((e) => e.kind === 'error');
    if (errs.length) {
      throw new MachineConfigIgnitionError(
        `parsing Ignition config spec v2 failed with error: config is not valid\nReport: ${reportString(undefined, errs)}`,
        errs[0]?.path ?? [],
      );
    }
  } else {
    throw new MachineConfigIgnitionError(`parsing Ignition config failed: unknown version. Supported spec versions: ${MCO_SUPPORTED_SPECS}`, ['ignition', 'version']);
  }
  return opts.keepEmptyLists ? toGoStructV35(v3) : normalizeIgnitionV35(v3);
}
