/**
 * Spec 2.2 ⇄ 3.x, as ign-converter does it for the MCO: `to22` (3.2 → 2.2, `translate/v32tov22`) refuses what 2.2
 * cannot hold and maps the rest, `from22` (2.2 → 3.0, `translate/v23tov30`) maps filesystems to paths and refuses
 * conflicts; both read the same field tables, so a field maps the same way in both directions.
 */
import { goPathJoin } from './goparse.js';
import type { IgnitionConfigV2 } from './types.js';
import {
  asList,
  asObj,
  checkValid,
  fail,
  isTrue,
  notEmpty,
  present,
  prune,
  str,
  type Obj,
} from './translate-common.js';
import { refuseWhat22CannotHold } from './translate-v22-refuse.js';

/**
 * How a field of a record crosses between spec 2.2 (Go value fields, zero values kept) and 3.x (Go pointer fields,
 * unset when zero): `keep` copies the value as is, `str` and `bool` are value fields in 2.2 and pointers in 3.x.
 */
type FieldKind = 'keep' | 'str' | 'bool';
type FieldTable = Readonly<Record<string, FieldKind>>;

const USER_FIELDS: FieldTable = {
  name: 'keep',
  passwordHash: 'keep',
  sshAuthorizedKeys: 'keep',
  uid: 'keep',
  gecos: 'str',
  homeDir: 'str',
  noCreateHome: 'bool',
  primaryGroup: 'str',
  groups: 'keep',
  noUserGroup: 'bool',
  noLogInit: 'bool',
  shell: 'str',
  system: 'bool',
};
const GROUP_FIELDS: FieldTable = { name: 'keep', gid: 'keep', passwordHash: 'str', system: 'bool' };
const DROPIN_FIELDS: FieldTable = { name: 'keep', contents: 'str' };
// `enabled` is a pointer in both; 3.x also folds 2.2's deprecated `enable` into it (from22)
const UNIT_FIELDS: FieldTable = { name: 'keep', enabled: 'keep', mask: 'bool', contents: 'str' };
const MOUNT_FIELDS: FieldTable = {
  format: 'str',
  wipeFilesystem: 'bool',
  label: 'keep',
  uuid: 'keep',
  options: 'keep',
};

/** The record `o` as spec 2.2 holds it: zero values written out. */
function toV2Fields(o: Obj, table: FieldTable): Obj {
  const out: Obj = {};
  for (const [k, kind] of Object.entries(table))
    out[k] = kind === 'str' ? str(o[k]) : kind === 'bool' ? isTrue(o[k]) : o[k];
  return out;
}

/** The record `o` as spec 3.x holds it: zero values left unset. */
function toV3Fields(o: Obj, table: FieldTable): Obj {
  const out: Obj = {};
  for (const [k, kind] of Object.entries(table)) {
    const v = o[k];
    out[k] = kind === 'str' ? (notEmpty(v) ? str(v) : undefined) : kind === 'bool' ? (isTrue(v) ? true : undefined) : v;
  }
  return out;
}

/** A config or CA reference: source and hash (both specs). */
function resourceRef(r: unknown): Obj {
  return { source: str(asObj(r)['source']), verification: { hash: asObj(asObj(r)['verification'])['hash'] } };
}

/** A 3.x node (file, directory, link) as 2.2 has it: under the filesystem with the longest path prefix, else `root`. */
function nodeTo22(n: Obj, fsList: readonly string[]): Obj {
  let fsname = '';
  let path = str(n['path']);
  for (const fs of fsList) {
    if (str(n['path']).startsWith(fs) && fs.length > fsname.length) {
      fsname = fs;
      path = str(n['path']).slice(fs.length);
    }
  }
  const out: Obj = { filesystem: fsname === '' ? 'root' : fsname, path, overwrite: n['overwrite'] };
  const user = asObj(n['user']);
  if (present(user['id']) || present(user['name'])) out['user'] = { id: user['id'], name: str(user['name']) };
  const group = asObj(n['group']);
  if (present(group['id']) || present(group['name'])) out['group'] = { id: group['id'], name: str(group['name']) };
  return out;
}

/** A 3.x file as 2.2 files: one for its contents, one more (`append: true`) per appended fragment. */
function fileTo22(f: Obj, base: Obj): Obj[] {
  const node = { ...base, overwrite: present(base['overwrite']) ? base['overwrite'] : false };
  const contentsOf = (c: Obj): Obj => ({
    compression: str(c['compression']),
    source: str(c['source']),
    verification: { hash: asObj(c['verification'])['hash'] },
  });
  const out: Obj[] = [];
  const contents = asObj(f['contents']);
  if (present(contents['source']))
    out.push({ ...node, mode: f['mode'], contents: contentsOf(contents), append: false });
  for (const a of asList(f['append']).map(asObj))
    out.push({ ...node, overwrite: false, mode: f['mode'], contents: contentsOf(a), append: true });
  return out;
}

/** 3.2 → 2.2 (ign-converter v32tov22), for a node that asks for spec 2.2. */
export function to22(cfg: Obj, from: string, to: string, inputValidated: boolean): IgnitionConfigV2 {
  if (!inputValidated) checkValid(cfg, '3.2.0', from, to, 'Invalid input config');
  refuseWhat22CannotHold(cfg, from, to);
  const ign = asObj(cfg['ignition']);
  const ic = asObj(ign['config']);
  const replace = asObj(ic['replace']);
  const cas = asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).map(asObj);
  const storage = asObj(cfg['storage']);
  const passwd = asObj(cfg['passwd']);
  const filesystems = asList(storage['filesystems']).map(asObj);
  const files = asList(storage['files']).map(asObj);

  const fsList = filesystems.filter((f) => typeof f['path'] === 'string').map((f) => str(f['path']));
  const node = (n: Obj): Obj => nodeTo22(n, fsList);
  const outFiles = files.flatMap((f) => fileTo22(f, node(f)));
  let inc = 1;
  const res: Obj = {
    ignition: {
      version: '2.2.0',
      config: {
        replace: present(replace['source']) ? resourceRef(replace) : undefined,
        append: asList(ic['merge']).map(resourceRef),
      },
      security: { tls: { certificateAuthorities: cas.map(resourceRef) } },
      timeouts: asObj(ign['timeouts']),
    },
    passwd: {
      users: asList(passwd['users'])
        .map(asObj)
        .map((u) => toV2Fields(u, USER_FIELDS)),
      groups: asList(passwd['groups'])
        .map(asObj)
        .map((g) => toV2Fields(g, GROUP_FIELDS)),
    },
    systemd: {
      units: asList(asObj(cfg['systemd'])['units'])
        .map(asObj)
        .map((u) => ({
          ...toV2Fields(u, UNIT_FIELDS),
          dropins: asList(u['dropins'])
            .map(asObj)
            .map((d) => toV2Fields(d, DROPIN_FIELDS)),
        })),
    },
    storage: {
      disks: asList(storage['disks'])
        .map(asObj)
        .map((d) => ({
          device: d['device'],
          wipeTable: isTrue(d['wipeTable']),
          partitions: asList(d['partitions'])
            .map(asObj)
            .map((p) => ({
              label: str(p['label']),
              number: p['number'] ?? 0,
              typeGuid: str(p['typeGuid']),
              guid: str(p['guid']),
            })),
        })),
      raid: asList(storage['raid'])
        .map(asObj)
        .map((r) => ({
          name: r['name'],
          level: str(r['level']),
          devices: r['devices'],
          spares: typeof r['spares'] === 'number' ? r['spares'] : 0,
          options: r['options'],
        })),
      filesystems: filesystems.map((f) => ({
        name: typeof f['path'] === 'string' ? f['path'] : String(inc++),
        mount: { device: f['device'], ...toV2Fields(f, MOUNT_FIELDS) },
      })),
      files: outFiles,
      directories: asList(storage['directories'])
        .map(asObj)
        .map((d) => ({ ...node(d), mode: d['mode'] })),
      links: asList(storage['links'])
        .map(asObj)
        .map((l) => ({ ...node(l), hard: isTrue(l['hard']), target: l['target'] })),
    },
  };
  const pruned = pruneV2(res);
  checkValid(pruned, '2.2.0', from, to, 'Converted spec has unexpected fatal error');
  return pruned;
}

// Spec 2.2 Go fields that are pointers: their false / 0 / "" survive marshalling (every other 2.2
// field is `omitempty` on a plain value, so Go drops its zero value).
const V2_POINTER_FIELDS = new Set([
  'enabled',
  'gid',
  'httpResponseHeaders',
  'httpTotal',
  'hash',
  'id',
  'label',
  'mode',
  'overwrite',
  'passwordHash',
  'path',
  'uid',
  'uuid',
]);

/** Prunes a 2.2 config the way Go marshals the 2.2 types. */
function pruneV2(v: Obj): Obj {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (x === null || typeof x !== 'object') return x;
    const out: Obj = {};
    for (const [k, val] of Object.entries(x as Obj)) {
      if ((val === false || val === '' || val === 0) && !V2_POINTER_FIELDS.has(k)) continue;
      out[k] = walk(val);
    }
    return out;
  };
  return prune(walk(v) as Obj);
}

/** First occurrence of each key, in order (Go's dedupe of string lists), in linear time. */
function uniqueKeys(keys: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return keys.filter((k) => {
    const id = typeof k === 'string' ? k : JSON.stringify(k);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The MCO's de-duplication of a spec 2.2 config before conversion (ign-converter + core user rule). */
export function dedupeV2(cfg: IgnitionConfigV2): IgnitionConfigV2 {
  const out = structuredClone(cfg) as Obj;
  const storage = asObj(out['storage']);
  const files = asList(storage['files']).map(asObj);
  const seen = new Set<string>();
  const outFiles: Obj[] = [];
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i] ?? {};
    if (str(f['filesystem']) !== 'root')
      fail('cannot dedupe set of files on non-root filesystem', '2.2.0', '3.0.0', [
        'storage',
        'files',
        i,
        'filesystem',
      ]);
    if (isTrue(f['append']))
      fail('cannot dedupe set of files that contains appendices', '2.2.0', '3.0.0', ['storage', 'files', i, 'append']);
    const p = str(f['path']);
    if (seen.has(p)) continue;
    outFiles.push(f);
    seen.add(p);
  }
  const units = asList(asObj(out['systemd'])['units']).map(asObj);
  // each kept unit / user by name, and the names of its dropins / keys: linear in the number of entries
  const keptUnits = new Map<string, { unit: Obj; dropins: Obj[]; names: Set<string> }>();
  const outUnits: Obj[] = [];
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i] ?? {};
    const name = str(u['name']);
    const kept = keptUnits.get(name);
    if (kept) {
      for (const d of asList(u['dropins']).map(asObj)) {
        if (kept.names.has(str(d['name']))) continue;
        kept.names.add(str(d['name']));
        kept.dropins.push(d);
      }
      kept.unit['dropins'] = kept.dropins;
    } else {
      const dropins = asList(u['dropins']).map(asObj);
      keptUnits.set(name, { unit: u, dropins: [...dropins], names: new Set(dropins.map((d) => str(d['name']))) });
      outUnits.push(u);
    }
  }
  const users = asList(asObj(out['passwd'])['users']).map(asObj);
  const keptUsers = new Map<string, { user: Obj; keys: unknown[] }>();
  const outUsers: Obj[] = [];
  for (let i = users.length - 1; i >= 0; i--) {
    const u = users[i] ?? {};
    const name = str(u['name']);
    const kept = keptUsers.get(name);
    if (kept) {
      for (const k of asList(u['sshAuthorizedKeys'])) kept.keys.push(k);
      kept.user['sshAuthorizedKeys'] = kept.keys;
    } else {
      keptUsers.set(name, { user: u, keys: [...asList(u['sshAuthorizedKeys'])] });
      outUsers.push(u);
    }
  }
  outUsers.forEach((u, i) => {
    if (str(u['name']) !== 'core')
      fail(`unexpected user with name: ${str(u['name'])}. Only core user is supported`, '2.2.0', '3.0.0', [
        'passwd',
        'users',
        i,
        'name',
      ]);
    const keys = asList(u['sshAuthorizedKeys']);
    if (keys.length > 0) u['sshAuthorizedKeys'] = uniqueKeys(keys);
  });
  if (out['storage'] !== undefined || outFiles.length > 0) storage['files'] = outFiles;
  if (out['systemd'] !== undefined) asObj(out['systemd'])['units'] = outUnits;
  if (out['passwd'] !== undefined) asObj(out['passwd'])['users'] = outUsers;
  return prune(out);
}

/**
 * ign-converter's refusals on the way up from 2.2: the deprecated `create` and networkd sections, filesystems without a
 * mount path, nodes that share a path or go through a link of the config, duplicate units and dropins.
 */
function refuseWhat30CannotHold(cfg: Obj, fsMap: ReadonlyMap<string, string>, from: string, to: string): void {
  asList(asObj(cfg['passwd'])['users']).forEach((u, i) => {
    if (present(asObj(u)['create']))
      fail('Invalid input config: passwd.users.create is deprecated and cannot be translated', from, to, [
        'passwd',
        'users',
        i,
        'create',
      ]);
  });
  if (asList(asObj(cfg['networkd'])['units']).length !== 0)
    fail('config includes deprecated networkd section - use Files instead', from, to, ['networkd']);
  const storage = asObj(cfg['storage']);
  asList(storage['filesystems']).forEach((f, i) => {
    const name = str(asObj(f)['name']);
    if (!fsMap.has(name)) {
      fail(
        `Config defined filesystem "${name}" but no mapping was defined.Please specify a path to be used as the filesystem mountpoint.`,
        from,
        to,
        ['storage', 'filesystems', i, 'name'],
      );
    }
  });
  const full = (n: Obj): string => goPathJoin('/', goPathJoin(fsMap.get(str(n['filesystem'])) ?? '', str(n['path'])));
  const links = asList(storage['links']).map((l) => full(asObj(l)));
  const usesLink = (p: string): string => links.find((l) => p.startsWith(l) && p !== l) ?? '';
  const entries = new Map<string, string>();
  for (const [kind, label] of [
    ['files', 'File'],
    ['directories', 'Directory'],
    ['links', 'Link'],
  ] as const) {
    asList(storage[kind]).forEach((n, i) => {
      const p = full(asObj(n));
      const name = `${label}: ${p}`;
      const dup = entries.get(p);
      if (dup !== undefined) {
        fail(
          `Config has conflicting inodes: "${dup}" and "${name}".  All files, directories and links must specify a unique \`path\`.`,
          from,
          to,
          ['storage', kind, i, 'path'],
        );
      }
      const l = usesLink(p);
      if (l !== '')
        fail(`${name} uses link defined in config "${l}". Please use a link not defined in Storage:Links`, from, to, [
          'storage',
          kind,
          i,
          'path',
        ]);
      entries.set(p, name);
    });
  }
  const unitNames = new Set<string>();
  asList(asObj(cfg['systemd'])['units']).forEach((u, i) => {
    const unit = asObj(u);
    const name = str(unit['name']);
    if (unitNames.has(name))
      fail(`Config has duplicate unit name "${name}".  All units must specify a unique \`name\`.`, from, to, [
        'systemd',
        'units',
        i,
        'name',
      ]);
    unitNames.add(name);
    const dropinNames = new Set<string>();
    asList(unit['dropins']).forEach((d, j) => {
      const dn = str(asObj(d)['name']);
      if (dropinNames.has(dn)) {
        fail(
          `Config has duplicate dropin name "${dn}" in unit "${name}".  All dropins must specify a unique \`name\`.`,
          from,
          to,
          ['systemd', 'units', i, 'dropins', j, 'name'],
        );
      }
      dropinNames.add(dn);
    });
  });
}

/**
 * What `prune` must not drop in a 3.0 result: a file's `contents.source` / `append[].source` even when "" (a strict
 * string pointer upstream), an explicit `overwrite: false`, and a unit's `enabled: false`.
 */
function restoreStrictFields(pruned: Obj, res: Obj): void {
  asList(asObj(pruned['storage'])['files']).forEach((f, i) => {
    const orig = asList(asObj(res['storage'])['files'])[i];
    const o = asObj(orig);
    const file = asObj(f);
    file['overwrite'] = o['overwrite'];
    if (present(o['contents']))
      file['contents'] = { ...asObj(file['contents']), source: asObj(o['contents'])['source'] };
    else
      file['append'] = asList(o['append']).map((a, j) => ({
        ...asObj(asList(file['append'])[j]),
        source: asObj(a)['source'],
      }));
  });
  asList(asObj(pruned['systemd'])['units']).forEach((u, i) => {
    const orig = asObj(asList(asObj(res['systemd'])['units'])[i]);
    if (orig['enabled'] === false) asObj(u)['enabled'] = false;
  });
}

/** 2.2 → 3.0 (ign-converter v23tov30 with the `root` → `/` filesystem map the MCO passes). */
export function from22(cfg: Obj, to: string): Obj {
  const from = '2.2.0';
  checkValid(cfg, '2.2.0', from, to, 'Invalid input config');
  const fsMap = new Map<string, string>([['root', '/']]);
  refuseWhat30CannotHold(cfg, fsMap, from, to);
  const res: Obj = {
    ignition: ignitionFrom22(asObj(cfg['ignition'])),
    passwd: {
      users: asList(asObj(cfg['passwd'])['users'])
        .map(asObj)
        .map((u) => toV3Fields(u, USER_FIELDS)),
      groups: asList(asObj(cfg['passwd'])['groups'])
        .map(asObj)
        .map((g) => toV3Fields(g, GROUP_FIELDS)),
    },
    systemd: { units: asList(asObj(cfg['systemd'])['units']).map(asObj).map(unitFrom22) },
    storage: storageFrom22(asObj(cfg['storage']), fsMap),
  };
  const pruned = prune(res);
  restoreStrictFields(pruned, res);
  checkValid(pruned, '3.0.0', from, to, 'Converted spec has unexpected fatal error');
  return pruned;
}

const strP = (v: unknown): string | undefined => (notEmpty(v) ? str(v) : undefined);
const boolP = (v: unknown): true | undefined => (isTrue(v) ? true : undefined);

/** A 2.2 config or CA reference as 3.0 has it. */
function cfgRefFrom22(r: unknown): Obj {
  return { source: str(asObj(r)['source']), verification: { hash: asObj(asObj(r)['verification'])['hash'] } };
}

/** `ignition`: `append` becomes `merge`; replace, CAs and timeouts carry over. */
function ignitionFrom22(ign: Obj): Obj {
  const ic = asObj(ign['config']);
  return {
    version: '3.0.0',
    config: {
      replace: present(ic['replace']) ? cfgRefFrom22(ic['replace']) : undefined,
      merge: asList(ic['append']).map(cfgRefFrom22),
    },
    security: {
      tls: {
        certificateAuthorities: asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).map(
          cfgRefFrom22,
        ),
      },
    },
    timeouts: asObj(ign['timeouts']),
  };
}

/** A systemd unit: 2.2's deprecated `enable` folds into `enabled`. */
function unitFrom22(u: Obj): Obj {
  let enabled: boolean | undefined;
  if (isTrue(u['enabled']) || isTrue(u['enable'])) enabled = true;
  if (u['enabled'] === false) enabled = false;
  return {
    ...toV3Fields(u, UNIT_FIELDS),
    enabled,
    dropins: asList(u['dropins'])
      .map(asObj)
      .map((d) => toV3Fields(d, DROPIN_FIELDS)),
  };
}

/** `storage`: disks, raid and filesystems (named → path), then the nodes under their filesystem's path. */
function storageFrom22(storage: Obj, fsMap: ReadonlyMap<string, string>): Obj {
  return {
    disks: asList(storage['disks']).map(asObj).map(diskFrom22),
    raid: asList(storage['raid'])
      .map(asObj)
      .map((r) => ({
        name: r['name'],
        level: r['level'],
        devices: r['devices'],
        spares: typeof r['spares'] === 'number' && r['spares'] !== 0 ? r['spares'] : undefined,
        options: r['options'],
      })),
    filesystems: asList(storage['filesystems'])
      .map(asObj)
      .filter((f) => str(f['name']) !== 'root')
      .map((f) => {
        const m = asObj(f['mount']);
        return { device: m['device'] ?? '', ...toV3Fields(m, MOUNT_FIELDS), path: strP(fsMap.get(str(f['name']))) };
      }),
    files: asList(storage['files'])
      .map(asObj)
      .map((f) => fileFrom22(f, fsMap)),
    directories: asList(storage['directories'])
      .map(asObj)
      .map((d) => ({ ...nodeFrom22(d, fsMap), mode: d['mode'] })),
    links: asList(storage['links'])
      .map(asObj)
      .map((l) => ({ ...nodeFrom22(l, fsMap), hard: boolP(l['hard']), target: l['target'] })),
  };
}

function diskFrom22(d: Obj): Obj {
  return {
    device: d['device'],
    wipeTable: boolP(d['wipeTable']),
    partitions: asList(d['partitions'])
      .map(asObj)
      .map((p) => ({
        label: p['label'],
        number: p['number'],
        sizeMiB: p['sizeMiB'] ?? p['size'],
        startMiB: p['startMiB'] ?? p['start'],
        typeGuid: strP(p['typeGuid']),
        guid: strP(p['guid']),
        wipePartitionEntry: boolP(p['wipePartitionEntry']),
        shouldExist: p['shouldExist'],
      })),
  };
}

/** The fields every node shares: its path joined under its filesystem's, owner and overwrite. */
function nodeFrom22(n: Obj, fsMap: ReadonlyMap<string, string>): Obj {
  return {
    path: goPathJoin(fsMap.get(str(n['filesystem'])) ?? '', str(n['path'])),
    user: { id: asObj(n['user'])['id'], name: strP(asObj(n['user'])['name']) },
    group: { id: asObj(n['group'])['id'], name: strP(asObj(n['group'])['name']) },
    overwrite: n['overwrite'],
  };
}

/** A file: overwrite defaults to true (false when appending); an appending file's contents become `append`. */
function fileFrom22(f: Obj, fsMap: ReadonlyMap<string, string>): Obj {
  let overwrite = f['overwrite'];
  if (!present(overwrite)) overwrite = true;
  if (isTrue(f['append'])) overwrite = false;
  const contents = asObj(f['contents']);
  const c = {
    compression: strP(contents['compression']),
    source: str(contents['source']),
    verification: { hash: asObj(contents['verification'])['hash'] },
  };
  return {
    ...nodeFrom22({ ...f, overwrite }, fsMap),
    mode: f['mode'],
    ...(isTrue(f['append']) ? { append: [c] } : { contents: c }),
  };
}
