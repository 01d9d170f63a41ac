import { formatPath, IgnitionTranslateError, MAX_DEPTH, tooDeep, withoutProtoKeys } from './errors.js';
import { goParseURL, goPathJoin } from './goparse.js';
import { validateSemantics3 } from './semantic.js';
import { validateSemantics2 } from './v2.js';
import {
  SPEC3_VERSIONS,
  type IgnitionConfig,
  type IgnitionConfigV2,
  type JsonPath,
  type ReportEntry,
  type Spec3Version,
  type SpecVersion,
} from './types.js';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const isTrue = (v: unknown): boolean => v === true;
const present = (v: unknown): boolean => v !== undefined && v !== null;
const notEmpty = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** Drops undefined/null, empty objects and empty lists (Go's omitempty output of the typed config). */
function prune<T>(v: T): T {
  if (Array.isArray(v)) return v.map(prune) as T;
  if (v !== null && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj)) {
      const p = prune(x);
      if (p === undefined || p === null) continue;
      if (Array.isArray(p) && p.length === 0) continue;
      if (typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0) continue;
      out[k] = p;
    }
    return out as T;
  }
  return v;
}

function minorOf(v: string): number {
  return Number(v.split('.')[1]);
}

function versionOf(c: unknown): string {
  return str(asObj(asObj(c)['ignition'])['version']);
}

function fail(message: string, from: string, to: string, path: JsonPath = []): never {
  throw new IgnitionTranslateError(message, from, to, path);
}

function reportText(entries: ReportEntry[]): string {
  return entries
    .filter((e) => e.kind === 'error')
    .map((e) => `error at ${formatPath(e.path)}: ${e.message}`)
    .join('\n');
}

function checkValid(cfg: unknown, version: string, from: string, to: string, prefix: string): void {
  const entries = version === '2.2.0' ? validateSemantics2(cfg) : validateSemantics3(cfg, { version, minor: 0 });
  const errors = entries.filter((e) => e.kind === 'error');
  const first = errors[0];
  if (first) fail(`${prefix}:\n${reportText(errors)}`, from, to, first.path);
}

/** Sets the version in place (translate works on its own deep copy). */
function withVersion(cfg: Obj, version: string): Obj {
  cfg['ignition'] = { ...asObj(cfg['ignition']), version };
  return cfg;
}

/** One up step 3.(m-1) → 3.m. */
function stepUp(cfg: Obj, toMinor: number, toVersion: string): Obj {
  const out = withVersion(cfg, toVersion);
  const storage = asObj(out['storage']);
  if (toMinor === 3) {
    // raid.level and links.target become optional strings, always set; 3.2 clevis/custom pointers become values
    for (const r of asList(storage['raid'])) asObj(r)['level'] = str(asObj(r)['level']);
    for (const l of asList(storage['links'])) asObj(l)['target'] = str(asObj(l)['target']);
    for (const l of asList(storage['luks'])) {
      const clevis = asObj(l)['clevis'];
      if (present(clevis)) {
        const custom = asObj(clevis)['custom'];
        if (present(custom)) {
          const c = asObj(custom);
          c['pin'] = str(c['pin']);
          c['config'] = str(c['config']);
        }
      }
    }
  }
  if (toMinor === 6) {
    for (const kind of ['files', 'directories']) {
      for (const n of asList(storage[kind])) {
        const o = asObj(n);
        if (typeof o['mode'] === 'number') o['mode'] = o['mode'] & ~0o7000;
      }
    }
  }
  return out;
}

/** Walks every Resource of a 3.x config. */
function resources(cfg: Obj): { res: Obj; path: JsonPath }[] {
  const out: { res: Obj; path: JsonPath }[] = [];
  const ign = asObj(cfg['ignition']);
  const ic = asObj(ign['config']);
  asList(ic['merge']).forEach((r, i) => out.push({ res: asObj(r), path: ['ignition', 'config', 'merge', i] }));
  if (present(ic['replace'])) out.push({ res: asObj(ic['replace']), path: ['ignition', 'config', 'replace'] });
  asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).forEach((r, i) =>
    out.push({ res: asObj(r), path: ['ignition', 'security', 'tls', 'certificateAuthorities', i] }),
  );
  const storage = asObj(cfg['storage']);
  asList(storage['files']).forEach((f, i) => {
    const file = asObj(f);
    if (present(file['contents']))
      out.push({ res: asObj(file['contents']), path: ['storage', 'files', i, 'contents'] });
    asList(file['append']).forEach((a, j) => out.push({ res: asObj(a), path: ['storage', 'files', i, 'append', j] }));
  });
  asList(storage['luks']).forEach((l, i) => {
    const k = asObj(l)['keyFile'];
    if (present(k)) out.push({ res: asObj(k), path: ['storage', 'luks', i, 'keyFile'] });
  });
  return out;
}

/** One down step 3.m → 3.(m-1), with ign-converter's refusals. */
function stepDown(cfg: Obj, fromMinor: number, from: string, to: string, inputValidated: boolean): Obj {
  const fromVersion = versionOf(cfg);
  const toVersion = `3.${fromMinor - 1}.0`;
  const prefix = fromMinor >= 5 ? 'invalid input config' : 'Invalid input config';
  // each converter validates its input; the output of the previous step was validated already
  if (!inputValidated) checkValid(cfg, fromVersion, from, to, prefix);
  const out = withVersion(cfg, toVersion);
  const storage = asObj(out['storage']);
  const luks = asList(storage['luks']).map(asObj);
  if (fromMinor === 7) {
    asList(storage['filesystems']).forEach((f, i) => {
      if (asObj(f)['format'] === 'virtiofs')
        fail('invalid input config: virtiofs filesystems are not supported in spec v3.6', from, to, [
          'storage',
          'filesystems',
          i,
          'format',
        ]);
    });
  }
  if (fromMinor === 5) {
    luks.forEach((l, i) => {
      if (isTrue(asObj(l['cex'])['enabled']))
        fail("invalid input config: 'Cex' type is not supported in spec v3.4", from, to, ['storage', 'luks', i, 'cex']);
      delete l['cex'];
      // ign-converter's 3.5→3.4 tang translator copies only url and thumbprint
      for (const t of asList(asObj(l['clevis'])['tang'])) delete asObj(t)['advertisement'];
    });
  }
  if (fromMinor === 4) {
    luks.forEach((l, i) => {
      asList(asObj(l['clevis'])['tang']).forEach((t, j) => {
        if (notEmpty(asObj(t)['advertisement'])) {
          fail('Invalid input config: tang offline provisioning is not supported in spec v3.3', from, to, [
            'storage',
            'luks',
            i,
            'clevis',
            'tang',
            j,
            'advertisement',
          ]);
        }
      });
      if (isTrue(l['discard']))
        fail('Invalid input config: luks discard is not supported in spec v3.3', from, to, [
          'storage',
          'luks',
          i,
          'discard',
        ]);
      if (asList(l['openOptions']).length > 0)
        fail('Invalid input config: luks openOptions is not supported in spec v3.3', from, to, [
          'storage',
          'luks',
          i,
          'openOptions',
        ]);
    });
    for (const kind of ['files', 'directories']) {
      asList(storage[kind]).forEach((n, i) => {
        const m = asObj(n)['mode'];
        if (typeof m === 'number' && (m & 0o7000) !== 0)
          fail('Invalid input config: special mode bits are not supported in spec v3.3', from, to, [
            'storage',
            kind,
            i,
            'mode',
          ]);
      });
    }
    for (const { res, path } of resources(out)) {
      if (notEmpty(res['source'])) {
        const u = goParseURL(str(res['source']));
        if (!u) fail('Invalid input config: unable to parse url', from, to, [...path, 'source']);
        if (u.scheme === 'arn')
          fail('Invalid input config: arn: scheme for s3 is not supported in spec v3.3', from, to, [...path, 'source']);
      }
    }
  }
  if (fromMinor === 3) {
    const ka = asObj(out['kernelArguments']);
    if (asList(ka['shouldExist']).length > 0 || asList(ka['shouldNotExist']).length > 0) {
      fail('KernelArguments is not supported on 3.2', from, to, ['kernelArguments']);
    }
    delete out['kernelArguments'];
    for (const r of asList(storage['raid'])) if (asObj(r)['level'] === null) delete asObj(r)['level'];
    for (const l of luks) {
      const clevis = asObj(l['clevis']);
      const custom = asObj(clevis['custom']);
      const customEmpty = !present(custom['pin']) && !present(custom['config']) && !present(custom['needsNetwork']);
      if (customEmpty) delete clevis['custom'];
      const clevisEmpty = Object.keys(prune(clevis)).length === 0;
      if (clevisEmpty) delete l['clevis'];
    }
  }
  if (fromMinor === 2) {
    if (luks.length > 0) fail('LUKS is not supported on 3.1', from, to, ['storage', 'luks']);
    delete storage['luks'];
    const passwd = asObj(out['passwd']);
    asList(passwd['users']).forEach((u, i) => {
      if (asObj(u)['shouldExist'] === false)
        fail('ShouldExist in Passwd.Users is not supported on 3.1', from, to, ['passwd', 'users', i, 'shouldExist']);
      delete asObj(u)['shouldExist'];
    });
    asList(passwd['groups']).forEach((g, i) => {
      if (asObj(g)['shouldExist'] === false)
        fail('ShouldExist in Passwd.Groups is not supported on 3.1', from, to, ['passwd', 'groups', i, 'shouldExist']);
      delete asObj(g)['shouldExist'];
    });
    asList(storage['disks']).forEach((d, i) => {
      asList(asObj(d)['partitions']).forEach((p, j) => {
        if (isTrue(asObj(p)['resize']))
          fail('Resize in Storage.Disks.Partitions is not supported on 3.1', from, to, [
            'storage',
            'disks',
            i,
            'partitions',
            j,
            'resize',
          ]);
        delete asObj(p)['resize'];
      });
    });
  }
  const result = prune(out);
  checkValid(
    result,
    toVersion,
    from,
    to,
    fromMinor >= 5 ? 'converted spec has unexpected fatal error' : 'Converted spec has unexpected fatal error',
  );
  return result;
}

/** 3.2 → 2.2 (ign-converter v32tov22). */
function to22(cfg: Obj, from: string, to: string, inputValidated: boolean): IgnitionConfigV2 {
  if (!inputValidated) checkValid(cfg, '3.2.0', from, to, 'Invalid input config');
  const ign = asObj(cfg['ignition']);
  const ic = asObj(ign['config']);
  asList(ic['merge']).forEach((r, i) => {
    if (present(asObj(r)['compression']))
      fail('Compression in Ignition.Config.Merge is not supported on 2.2', from, to, [
        'ignition',
        'config',
        'merge',
        i,
        'compression',
      ]);
    if (asList(asObj(r)['httpHeaders']).length > 0)
      fail('HTTPHeaders in Ignition.Config.Merge are not supported on 2.2', from, to, [
        'ignition',
        'config',
        'merge',
        i,
        'httpHeaders',
      ]);
  });
  const replace = asObj(ic['replace']);
  if (present(replace['compression']))
    fail('Compression in Ignition.Config.Replace is not supported on 2.2', from, to, [
      'ignition',
      'config',
      'replace',
      'compression',
    ]);
  if (asList(replace['httpHeaders']).length > 0)
    fail('HTTPHeaders in Ignition.Config.Replace are not supported on 2.2', from, to, [
      'ignition',
      'config',
      'replace',
      'httpHeaders',
    ]);
  const cas = asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).map(asObj);
  cas.forEach((r, i) => {
    const p: JsonPath = ['ignition', 'security', 'tls', 'certificateAuthorities', i];
    if (present(r['compression']))
      fail('Compression in Ignition.Security.TLS.CertificateAuthorities is not supported on 2.2', from, to, [
        ...p,
        'compression',
      ]);
    if (asList(r['httpHeaders']).length > 0)
      fail('HTTPHeaders in Ignition.Security.TLS.CertificateAuthorities are not supported on 2.2', from, to, [
        ...p,
        'httpHeaders',
      ]);
  });
  const proxy = asObj(ign['proxy']);
  if (present(proxy['httpProxy']) || present(proxy['httpsProxy']) || asList(proxy['noProxy']).length > 0) {
    fail('HTTP proxies in Ignition.Proxy are not supported on 2.2', from, to, ['ignition', 'proxy']);
  }
  const storage = asObj(cfg['storage']);
  if (asList(storage['luks']).length > 0) fail('LUKS is not supported on 2.2', from, to, ['storage', 'luks']);
  const passwd = asObj(cfg['passwd']);
  asList(passwd['users']).forEach((u, i) => {
    if (asObj(u)['shouldExist'] === false)
      fail('ShouldExist in Passwd.Users is not supported on 2.2', from, to, ['passwd', 'users', i, 'shouldExist']);
  });
  asList(passwd['groups']).forEach((g, i) => {
    if (asObj(g)['shouldExist'] === false)
      fail('ShouldExist in Passwd.Groups is not supported on 2.2', from, to, ['passwd', 'groups', i, 'shouldExist']);
  });
  asList(storage['disks']).forEach((d, i) => {
    asList(asObj(d)['partitions']).forEach((p, j) => {
      const part = asObj(p);
      const pp: JsonPath = ['storage', 'disks', i, 'partitions', j];
      if (present(part['sizeMiB']) || present(part['startMiB']))
        fail('SizeMiB and StartMiB in Storage.Disks.Partitions is not supported on 2.2', from, to, pp);
      if (isTrue(part['resize']))
        fail('Resize in Storage.Disks.Partitions is not supported on 2.2', from, to, [...pp, 'resize']);
    });
  });
  const filesystems = asList(storage['filesystems']).map(asObj);
  filesystems.forEach((f, i) => {
    if (present(f['mountOptions']))
      fail('MountOptions in Storage.Filesystems is not supported on 2.2', from, to, [
        'storage',
        'filesystems',
        i,
        'mountOptions',
      ]);
  });
  const files = asList(storage['files']).map(asObj);
  files.forEach((f, i) => {
    if (asList(asObj(f['contents'])['httpHeaders']).length > 0)
      fail('HTTPHeaders in Storage.Files.Contents are not supported on 2.2', from, to, [
        'storage',
        'files',
        i,
        'contents',
        'httpHeaders',
      ]);
    asList(f['append']).forEach((a, j) => {
      if (asList(asObj(a)['httpHeaders']).length > 0)
        fail('HTTPHeaders in Storage.Files.Append.* are not supported on 2.2', from, to, [
          'storage',
          'files',
          i,
          'append',
          j,
          'httpHeaders',
        ]);
    });
  });

  const fsList = filesystems.filter((f) => typeof f['path'] === 'string').map((f) => str(f['path']));
  const cfgRef = (r: Obj): Obj => ({
    source: str(r['source']),
    verification: { hash: asObj(r['verification'])['hash'] },
  });
  const node = (n: Obj): Obj => {
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
  };
  const outFiles: Obj[] = [];
  for (const f of files) {
    const base = node(f);
    if (!present(base['overwrite'])) base['overwrite'] = false;
    const contents = asObj(f['contents']);
    if (present(contents['source'])) {
      outFiles.push({
        ...base,
        mode: f['mode'],
        contents: {
          compression: str(contents['compression']),
          source: str(contents['source']),
          verification: { hash: asObj(contents['verification'])['hash'] },
        },
        append: false,
      });
    }
    for (const a of asList(f['append']).map(asObj)) {
      outFiles.push({
        ...base,
        overwrite: false,
        mode: f['mode'],
        contents: {
          compression: str(a['compression']),
          source: str(a['source']),
          verification: { hash: asObj(a['verification'])['hash'] },
        },
        append: true,
      });
    }
  }
  let inc = 1;
  const res: Obj = {
    ignition: {
      version: '2.2.0',
      config: {
        replace: present(replace['source']) ? cfgRef(replace) : undefined,
        append: asList(ic['merge']).map((r) => cfgRef(asObj(r))),
      },
      security: { tls: { certificateAuthorities: cas.map(cfgRef) } },
      timeouts: asObj(ign['timeouts']),
    },
    passwd: {
      users: asList(passwd['users'])
        .map(asObj)
        .map((u) => ({
          name: u['name'],
          passwordHash: u['passwordHash'],
          sshAuthorizedKeys: u['sshAuthorizedKeys'],
          uid: u['uid'],
          gecos: str(u['gecos']),
          homeDir: str(u['homeDir']),
          noCreateHome: isTrue(u['noCreateHome']),
          primaryGroup: str(u['primaryGroup']),
          groups: u['groups'],
          noUserGroup: isTrue(u['noUserGroup']),
          noLogInit: isTrue(u['noLogInit']),
          shell: str(u['shell']),
          system: isTrue(u['system']),
        })),
      groups: asList(passwd['groups'])
        .map(asObj)
        .map((g) => ({
          name: g['name'],
          gid: g['gid'],
          passwordHash: str(g['passwordHash']),
          system: isTrue(g['system']),
        })),
    },
    systemd: {
      units: asList(asObj(cfg['systemd'])['units'])
        .map(asObj)
        .map((u) => ({
          name: u['name'],
          enabled: u['enabled'],
          mask: isTrue(u['mask']),
          contents: str(u['contents']),
          dropins: asList(u['dropins'])
            .map(asObj)
            .map((d) => ({ name: d['name'], contents: str(d['contents']) })),
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
        mount: {
          device: f['device'],
          format: str(f['format']),
          wipeFilesystem: isTrue(f['wipeFilesystem']),
          label: f['label'],
          uuid: f['uuid'],
          options: f['options'],
        },
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

/** 2.2 → 3.0 (ign-converter v23tov30 with the `root` → `/` filesystem map the MCO passes). */
function from22(cfg: Obj, to: string): Obj {
  const from = '2.2.0';
  checkValid(cfg, '2.2.0', from, to, 'Invalid input config');
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
  const fsMap = new Map<string, string>([['root', '/']]);
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

  const strP = (v: unknown): string | undefined => (notEmpty(v) ? str(v) : undefined);
  const boolP = (v: unknown): true | undefined => (isTrue(v) ? true : undefined);
  const ign = asObj(cfg['ignition']);
  const ic = asObj(ign['config']);
  const cfgRef = (r: unknown): Obj => ({
    source: str(asObj(r)['source']),
    verification: { hash: asObj(asObj(r)['verification'])['hash'] },
  });
  const node = (n: Obj): Obj => ({
    path: goPathJoin(fsMap.get(str(n['filesystem'])) ?? '', str(n['path'])),
    user: { id: asObj(n['user'])['id'], name: strP(asObj(n['user'])['name']) },
    group: { id: asObj(n['group'])['id'], name: strP(asObj(n['group'])['name']) },
    overwrite: n['overwrite'],
  });
  const res: Obj = {
    ignition: {
      version: '3.0.0',
      config: {
        replace: present(ic['replace']) ? cfgRef(ic['replace']) : undefined,
        merge: asList(ic['append']).map(cfgRef),
      },
      security: {
        tls: {
          certificateAuthorities: asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).map(cfgRef),
        },
      },
      timeouts: asObj(ign['timeouts']),
    },
    passwd: {
      users: asList(asObj(cfg['passwd'])['users'])
        .map(asObj)
        .map((u) => ({
          name: u['name'],
          passwordHash: u['passwordHash'],
          sshAuthorizedKeys: u['sshAuthorizedKeys'],
          uid: u['uid'],
          gecos: strP(u['gecos']),
          homeDir: strP(u['homeDir']),
          noCreateHome: boolP(u['noCreateHome']),
          primaryGroup: strP(u['primaryGroup']),
          groups: u['groups'],
          noUserGroup: boolP(u['noUserGroup']),
          noLogInit: boolP(u['noLogInit']),
          shell: strP(u['shell']),
          system: boolP(u['system']),
        })),
      groups: asList(asObj(cfg['passwd'])['groups'])
        .map(asObj)
        .map((g) => ({
          name: g['name'],
          gid: g['gid'],
          passwordHash: strP(g['passwordHash']),
          system: boolP(g['system']),
        })),
    },
    systemd: {
      units: asList(asObj(cfg['systemd'])['units'])
        .map(asObj)
        .map((u) => {
          let enabled: boolean | undefined;
          if (isTrue(u['enabled']) || isTrue(u['enable'])) enabled = true;
          if (u['enabled'] === false) enabled = false;
          return {
            name: u['name'],
            enabled,
            mask: boolP(u['mask']),
            contents: strP(u['contents']),
            dropins: asList(u['dropins'])
              .map(asObj)
              .map((d) => ({ name: d['name'], contents: strP(d['contents']) })),
          };
        }),
    },
    storage: {
      disks: asList(storage['disks'])
        .map(asObj)
        .map((d) => ({
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
        })),
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
          return {
            device: m['device'] ?? '',
            format: strP(m['format']),
            wipeFilesystem: boolP(m['wipeFilesystem']),
            label: m['label'],
            uuid: m['uuid'],
            options: m['options'],
            path: strP(fsMap.get(str(f['name']))),
          };
        }),
      files: asList(storage['files'])
        .map(asObj)
        .map((f) => {
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
            ...node({ ...f, overwrite }),
            mode: f['mode'],
            ...(isTrue(f['append']) ? { append: [c] } : { contents: c }),
          };
        }),
      directories: asList(storage['directories'])
        .map(asObj)
        .map((d) => ({ ...node(d), mode: d['mode'] })),
      links: asList(storage['links'])
        .map(asObj)
        .map((l) => ({ ...node(l), hard: boolP(l['hard']), target: l['target'] })),
    },
  };
  const pruned = prune(res);
  // keep contents.source even when "" (StrPStrict) and explicit overwrite false
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
  checkValid(pruned, '3.0.0', from, to, 'Converted spec has unexpected fatal error');
  return pruned;
}

/** Options of {@link translate}. */
export interface TranslateOptions {
  /** Allow 3.7.0-experimental as source or target (off by default). */
  experimental?: boolean;
}

/**
 * Translates a config to another spec version.
 * - Up 3.x → 3.y: upstream's lossless translators (raid level / link target made explicit at 3.3,
 *   special mode bits dropped at 3.6).
 * - 2.2 → 3.x: as the MCO does it: files de-duplicated by path (last wins), units by name (dropins
 *   unioned), users collapsed into the single allowed `core` user, then ign-converter 2.x→3.0 with the
 *   `root` filesystem mapped to `/`, then up.
 * - Down 3.y → 3.1 and 3.y → 2.2 (via 3.2): ign-converter's steps; anything the older spec cannot
 *   express throws {@link IgnitionTranslateError} naming the field. 3.0 is not a down target
 *   (no converter exists upstream).
 */
export function translate(input: IgnitionConfig, toVersion: SpecVersion, opts: TranslateOptions = {}): IgnitionConfig {
  const from = versionOf(input);
  const deep = tooDeep(input);
  if (deep) fail(`config nests deeper than ${MAX_DEPTH} levels`, from, toVersion, deep.slice(0, 8));
  const config = withoutProtoKeys(input);
  const experimental = opts.experimental ?? false;
  const known: readonly string[] = ['2.2.0', ...SPEC3_VERSIONS];
  if (!known.includes(from) || (from === '3.7.0-experimental' && !experimental)) {
    fail(`unsupported config version "${from}": translate accepts 2.2.0 and 3.0.0-3.6.0`, from, toVersion, [
      'ignition',
      'version',
    ]);
  }
  if (!known.includes(toVersion) || (toVersion === '3.7.0-experimental' && !experimental)) {
    fail(`unsupported target version "${toVersion}"`, from, toVersion);
  }
  if (from === toVersion) return structuredClone(config);
  let cur = structuredClone(config) as Obj;
  if (from === '2.2.0') {
    cur = from22(dedupeV2(cur) as Obj, toVersion);
  }
  const curMinor = (): number => minorOf(versionOf(cur));
  if (toVersion === '2.2.0') {
    let validated = false;
    while (curMinor() > 2) {
      cur = stepDown(cur, curMinor(), from, toVersion, validated);
      validated = true;
    }
    // 3.0 and 3.1 go up (losslessly) to 3.2 first, then through the 3.2 -> 2.2 converter
    while (curMinor() < 2) cur = stepUp(cur, curMinor() + 1, `3.${curMinor() + 1}.0`);
    return to22(cur, from, toVersion, validated);
  }
  const target = minorOf(toVersion);
  while (curMinor() < target) {
    const next = curMinor() + 1;
    cur = stepUp(cur, next, SPEC3_VERSIONS[next] as Spec3Version);
  }
  if (curMinor() > target) {
    if (target < 1)
      fail('the requested conversion is not supported: there is no converter down to spec 3.0.0', from, toVersion);
    let validated = false;
    while (curMinor() > target) {
      cur = stepDown(cur, curMinor(), from, toVersion, validated);
      validated = true;
    }
  }
  return cur;
}
