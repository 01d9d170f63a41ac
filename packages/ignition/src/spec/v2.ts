/**
 * Semantic rules for spec 2.2 (coreos/ignition spec2x branch, config/v2_2/types), covering the checks
 * that matter for serving/consuming 2.2 configs: version, node paths and filesystems, modes, URLs,
 * verification, compression, units, disks/partitions, raid, filesystems.
 */
import { finding, type Finding } from './errors.js';
import {
  checkGUID,
  checkHash,
  checkMode,
  checkPartitionLabel,
  checkPath,
  checkFilesystemLabel,
  checkUnitName,
  Collector,
  goQuote,
  parseUnitContents,
} from './semantic-checks.js';
import { dataURLError, goParseURL, goSemver } from './goparse.js';
import type { JsonPath, ReportEntry } from './types.js';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const plain = (message: string): Finding => ({ message, name: null });

function checkURL2(s: unknown): Finding | null {
  if (typeof s !== 'string' || s === '') return null;
  const u = goParseURL(s);
  if (!u) return finding('ErrInvalidUrl');
  switch (u.scheme) {
    case 'http':
    case 'https':
    case 'tftp':
    case 's3':
    case 'oem':
      return null;
    case 'data': {
      const e = dataURLError(s);
      return e === null ? null : plain(e);
    }
    default:
      return finding('ErrInvalidScheme');
  }
}

function checkExt(name: string, allowed: string[], err: Finding): Finding | null {
  const dot = name.lastIndexOf('.');
  return dot >= 0 && allowed.includes(name.slice(dot)) ? null : err;
}

/** Semantic validation of a spec 2.2 config. */
export function validateSemantics2(config: unknown): ReportEntry[] {
  const r = new Collector();
  const cfg = asObj(config);
  checkIgnitionSection2(r, asObj(cfg['ignition']));
  const storage = asObj(cfg['storage']);
  checkNodes2(r, storage);
  checkDisks2(r, storage);
  checkRaid2(r, storage);
  checkFilesystems2(r, storage);
  checkUnits2(r, cfg);
  checkUsers2(r, cfg);
  checkShadowedFilesystems2(r, storage);
  // Spec 2.x allows repeated paths, units and users (the last entry wins on the node); the MCO
  // de-duplicates them before converting to spec 3, so they are not reported here.
  return r.entries;
}

/** `ignition`: the version, the appended/replacing configs and the TLS certificate authorities. */
function checkIgnitionSection2(r: Collector, ign: Obj): void {
  const v = goSemver(str(ign['version']));
  if (!v) r.err(['ignition', 'version'], finding('ErrInvalidVersion'));
  else if (!(v.major === 2 && v.minor === 2 && v.patch === 0 && v.pre === '' && v.meta === '')) {
    r.err(['ignition', 'version'], finding('ErrUnknownVersion'));
  }
  const ic = asObj(ign['config']);
  asList(ic['append']).forEach((a, i) => {
    r.err(['ignition', 'config', 'append', i, 'source'], checkURL2(asObj(a)['source']));
    r.err(
      ['ignition', 'config', 'append', i, 'verification', 'hash'],
      checkHash(asObj(asObj(a)['verification'])['hash'], 0),
    );
  });
  if (ic['replace']) r.err(['ignition', 'config', 'replace', 'source'], checkURL2(asObj(ic['replace'])['source']));
  asList(asObj(asObj(ign['security'])['tls'])['certificateAuthorities']).forEach((ca, i) => {
    r.err(['ignition', 'security', 'tls', 'certificateAuthorities', i, 'source'], checkURL2(asObj(ca)['source']));
  });
}

const NODE_LABEL: Record<string, string> = { files: 'File', directories: 'Directory', links: 'Link' };

/** The checks every file, directory and link shares: filesystem, path, mode, owner. */
function checkNode2(r: Collector, fsNames: ReadonlySet<string>, kind: string, n: Obj, i: number): void {
  const c: JsonPath = ['storage', kind, i];
  if (str(n['filesystem']) === '') r.err([...c, 'filesystem'], plain('no filesystem specified'));
  else if (!fsNames.has(str(n['filesystem']))) {
    r.warn(
      [...c, 'filesystem'],
      plain(
        `${NODE_LABEL[kind] ?? kind} ${goQuote(str(n['path']))} references nonexistent filesystem ${goQuote(str(n['filesystem']))}. (This is ok if it is defined in a referenced config)`,
      ),
    );
  }
  r.err([...c, 'path'], checkPath(str(n['path'])));
  if (kind !== 'links') {
    r.err([...c, 'mode'], checkMode(n['mode']));
    if (n['mode'] === undefined || n['mode'] === null)
      r.warn([...c, 'mode'], plain('permissions unset, defaulting to 0000'));
  }
  for (const o of ['user', 'group'] as const) {
    const owner = asObj(n[o]);
    if (owner['id'] !== undefined && owner['id'] !== null && str(owner['name']) !== '')
      r.err([...c, o], finding('ErrBothIDAndNameSet'));
  }
}

/** `storage.files`, `storage.directories`, `storage.links`. */
function checkNodes2(r: Collector, storage: Obj): void {
  const fsNames = new Set(asList(storage['filesystems']).map((f) => str(asObj(f)['name'])));
  fsNames.add('root');
  asList(storage['files']).forEach((f, i) => {
    const file = asObj(f);
    checkNode2(r, fsNames, 'files', file, i);
    if (file['overwrite'] === true && file['append'] === true)
      r.err(['storage', 'files', i], plain('cannot set both append and overwrite to true'));
    const contents = asObj(file['contents']);
    const comp = contents['compression'];
    if (comp !== undefined && comp !== null && comp !== '' && comp !== 'gzip')
      r.err(['storage', 'files', i, 'contents', 'compression'], finding('ErrCompressionInvalid'));
    r.err(['storage', 'files', i, 'contents', 'source'], checkURL2(contents['source']));
    r.err(
      ['storage', 'files', i, 'contents', 'verification', 'hash'],
      checkHash(asObj(contents['verification'])['hash'], 0),
    );
  });
  asList(storage['directories']).forEach((d, i) => {
    checkNode2(r, fsNames, 'directories', asObj(d), i);
  });
  asList(storage['links']).forEach((l, i) => {
    checkNode2(r, fsNames, 'links', asObj(l), i);
    if (str(asObj(l)['target']) === '') r.err(['storage', 'links', i, 'target'], finding('ErrLinkTargetRequired'));
  });
}

/** `storage.disks` and their partitions. */
function checkDisks2(r: Collector, storage: Obj): void {
  asList(storage['disks']).forEach((d, i) => {
    const disk = asObj(d);
    r.err(
      ['storage', 'disks', i, 'device'],
      str(disk['device']) === '' ? finding('ErrDiskDeviceRequired') : checkPath(str(disk['device'])),
    );
    asList(disk['partitions']).forEach((p, j) => {
      const part = asObj(p);
      const c: JsonPath = ['storage', 'disks', i, 'partitions', j];
      r.err([...c, 'label'], checkPartitionLabel(part['label']));
      r.err([...c, 'guid'], checkGUID(part['guid']));
      r.err([...c, 'typeGuid'], checkGUID(part['typeGuid']));
    });
  });
}

const RAID_LEVELS: readonly string[] = [
  'linear',
  'raid0',
  '0',
  'stripe',
  'raid1',
  '1',
  'mirror',
  'raid4',
  '4',
  'raid5',
  '5',
  'raid6',
  '6',
  'raid10',
  '10',
];

/** `storage.raid`: a known level and at least one device path. */
function checkRaid2(r: Collector, storage: Obj): void {
  asList(storage['raid']).forEach((a, i) => {
    const raid = asObj(a);
    if (!RAID_LEVELS.includes(str(raid['level'])))
      r.err(['storage', 'raid', i, 'level'], finding('ErrUnrecognizedRaidLevel'));
    if (asList(raid['devices']).length === 0)
      r.err(['storage', 'raid', i, 'devices'], finding('ErrRaidDevicesRequired'));
    asList(raid['devices']).forEach((d, j) => {
      r.err(['storage', 'raid', i, 'devices', j], checkPath(str(d)));
    });
  });
}

/** `storage.filesystems`: mount or path, the mount's device, format, label and deprecated `create`. */
function checkFilesystems2(r: Collector, storage: Obj): void {
  asList(storage['filesystems']).forEach((f, i) => {
    const fs = asObj(f);
    const c: JsonPath = ['storage', 'filesystems', i];
    const mount = fs['mount'];
    const path = fs['path'];
    const hasMount = mount !== undefined && mount !== null;
    const hasPath = path !== undefined && path !== null;
    if (!hasMount && !hasPath) r.err(c, plain('filesystem is missing mount or path'));
    if (hasMount && hasPath) r.err(c, plain('filesystem has both mount and path defined'));
    if (hasMount) checkMount2(r, [...c, 'mount'], asObj(mount));
    if (typeof path === 'string') r.err([...c, 'path'], checkPath(path));
  });
}

function checkMount2(r: Collector, c: JsonPath, m: Obj): void {
  r.err([...c, 'device'], checkPath(str(m['device'])));
  if (!['ext4', 'btrfs', 'xfs', 'swap', 'vfat'].includes(str(m['format'])))
    r.err([...c, 'format'], finding('ErrFilesystemInvalidFormat'));
  r.err([...c, 'label'], checkFilesystemLabel({ label: m['label'], format: m['format'] }, 3, false));
  const create = m['create'];
  if (create === undefined || create === null) return;
  if (m['wipeFilesystem'] === true)
    r.err([...c, 'create'], plain('cannot use both create object and wipeFilesystem field'));
  if (asList(m['options']).length > 0)
    r.err([...c, 'create'], plain('cannot use both create object and mount-level options field'));
  r.warn([...c, 'create'], plain('the create object has been deprecated in favor of mount-level options'));
}

const NETWORKD_EXTS: readonly string[] = ['.link', '.netdev', '.network'];

/** `systemd.units` and `networkd.units`: names, extensions, contents and drop-ins. */
function checkUnits2(r: Collector, cfg: Obj): void {
  for (const section of ['systemd', 'networkd'] as const) {
    asList(asObj(cfg[section])['units']).forEach((u, i) => {
      const unit = asObj(u);
      const c: JsonPath = [section, 'units', i];
      r.err(
        [...c, 'name'],
        section === 'systemd'
          ? checkUnitName(str(unit['name']))
          : checkExt(str(unit['name']), [...NETWORKD_EXTS], plain('invalid networkd unit extension')),
      );
      r.err([...c, 'contents'], parseUnitContents(unit['contents']).err);
      asList(unit['dropins']).forEach((d, j) => {
        const dropin = asObj(d);
        r.err([...c, 'dropins', j, 'contents'], parseUnitContents(dropin['contents']).err);
        const dropinErr =
          section === 'systemd' ? finding('ErrInvalidSystemdDropinExt') : plain('invalid networkd drop-in extension');
        r.err([...c, 'dropins', j, 'name'], checkExt(str(dropin['name']), ['.conf'], dropinErr));
      });
    });
  }
}

/** `passwd.users`: the deprecated `create` object. */
function checkUsers2(r: Collector, cfg: Obj): void {
  asList(asObj(cfg['passwd'])['users']).forEach((u, i) => {
    if (asObj(u)['create'] !== undefined && asObj(u)['create'] !== null) {
      r.warn(
        ['passwd', 'users', i, 'create'],
        plain('the create object has been deprecated in favor of user-level options'),
      );
    }
  });
}

/** A filesystem named like an earlier one (or `root`) shadows it. */
function checkShadowedFilesystems2(r: Collector, storage: Obj): void {
  const seenFs = new Set<string>(['root']);
  asList(storage['filesystems']).forEach((f, i) => {
    const name = str(asObj(f)['name']);
    if (seenFs.has(name))
      r.warn(
        ['storage', 'filesystems', i, 'name'],
        plain(`Filesystem ${goQuote(name)} shadows exising filesystem definition`),
      );
    seenFs.add(name);
  });
}
