/**
 * Semantic validation of spec 3.x configs: a port of the rules in coreos/ignition
 * config/v3_N/types (the `Validate()` methods, called for every node in document order, then the
 * duplicate-key pass). Version differences are gated on the spec minor version.
 */
import { MESSAGES, type Finding } from './errors.js';
import { goParseURL, goPathClean, goPathJoin, goSemver, semverEqual } from './goparse.js';
import { STRUCTS, itemKey, type StructName } from './shape.js';
import {
  asObj,
  asList,
  isStr,
  nilOrEmpty,
  notEmpty,
  isTrue,
  isFalse,
  present,
  str,
  E,
  plain,
  checkPath,
  checkURL,
  checkURLNilOK,
  checkMode,
  checkModeSpecialBits,
  checkPartitionLabel,
  checkGUID,
  checkUnitName,
  goExt,
  checkHash,
  checkProxyURL,
  parseUnitContents,
  checkFilesystemLabel,
  checkFilesystemFormat,
  checkRaidLevel,
  Collector,
  goQuote,
} from './semantic-checks.js';
import type { JsonPath, ReportEntry } from './types.js';

type Obj = Record<string, unknown>;

/** Version facts the rules depend on. */
export interface RuleVersion {
  /** Exact version string validated against (`ignition.version` must equal it). */
  version: string;
  /** Minor version (0–7). */
  minor: number;
}

/** The per-node rules, by struct. */
export class Rules {
  readonly minor: number;
  readonly experimental: boolean;
  constructor(readonly v: RuleVersion) {
    const m = /^3\.(\d+)\.0(-experimental)?$/.exec(v.version);
    this.minor = m ? Number(m[1]) : 0;
    this.experimental = !!m?.[2];
  }

  /** Validate() of one node (not its children). `role` tells a Resource what it is in 3.0. */
  node(struct: StructName, o: Obj, c: JsonPath, r: Collector, parent: string): void {
    const minor = this.minor;
    switch (struct) {
      case 'Config': {
        this.config(o, c, r);
        return;
      }
      case 'Ignition':
        this.ignitionVersion(o, c, r);
        return;
      case 'IgnitionConfig':
        if (minor >= 1) {
          asList(o['merge']).forEach((res, i) => {
            r.err([...c, 'merge', i], this.requiredSource(asObj(res)));
          });
        }
        return;
      case 'TLS':
        if (minor >= 1) {
          asList(o['certificateAuthorities']).forEach((res, i) => {
            r.err([...c, 'certificateAuthorities', i], this.requiredSource(asObj(res)));
          });
        }
        return;
      case 'Resource': {
        this.resource(o, c, r, parent);
        return;
      }
      case 'HTTPHeader':
        r.err([...c, 'name'], o['name'] === '' || o['name'] === undefined ? E('ErrEmptyHTTPHeaderName') : null);
        r.err([...c, 'value'], o['value'] === '' ? E('ErrInvalidHTTPHeader') : null);
        return;
      case 'Verification':
        r.err([...c, 'hash'], checkHash(o['hash'], minor));
        return;
      case 'Proxy':
        this.proxy(o, c, r);
        return;
      case 'File':
        r.err([...c, 'path'], checkPath(str(o['path'])));
        r.err([...c, 'mode'], checkMode(o['mode']));
        if (minor < 6) r.warn([...c, 'mode'], checkModeSpecialBits(o['mode']));
        r.err(
          [...c, 'overwrite'],
          isTrue(o['overwrite']) && !present(asObj(o['contents'])['source']) ? E('ErrOverwriteAndNilSource') : null,
        );
        return;
      case 'Directory':
        r.err([...c, 'path'], checkPath(str(o['path'])));
        r.err([...c, 'mode'], checkMode(o['mode']));
        if (minor < 6) r.warn([...c, 'mode'], checkModeSpecialBits(o['mode']));
        return;
      case 'Link':
        r.err([...c, 'path'], checkPath(str(o['path'])));
        return;
      case 'NodeOwner':
        r.err(c, present(o['id']) && notEmpty(o['name']) ? E('ErrBothIDAndNameSet') : null);
        return;
      case 'Disk': {
        this.disk(o, c, r);
        return;
      }
      case 'Partition':
        this.partition(o, c, r);
        return;
      case 'Filesystem': {
        this.filesystem(o, c, r);
        return;
      }
      case 'Luks': {
        this.luks(o, c, r);
        return;
      }
      case 'ClevisCustom': {
        this.clevisCustom(o, c, r);
        return;
      }
      case 'Tang':
        this.tang(o, c, r);
        return;
      case 'Raid':
        r.err([...c, 'level'], checkRaidLevel(o, minor));
        if (asList(o['devices']).length === 0) r.err([...c, 'devices'], E('ErrRaidDevicesRequired'));
        return;
      case 'Systemd': {
        this.systemd(o, c, r);
        return;
      }
      case 'Unit':
        this.unit(o, c, r);
        return;
      case 'Dropin': {
        r.err([...c, 'contents'], parseUnitContents(o['contents']).err);
        if (goExt(str(o['name'])) !== '.conf') r.err([...c, 'name'], E('ErrInvalidSystemdDropinExt'));
        return;
      }
      default:
        return;
    }
  }

  /** `ignition.version` must be the version validated against. */
  private ignitionVersion(o: Obj, c: JsonPath, r: Collector): void {
    const vp = [...c, 'version'];
    const version = o['version'];
    const parsed = isStr(version) ? goSemver(version) : null;
    const want = goSemver(this.v.version);
    if (!parsed) r.err(vp, E('ErrInvalidVersion'));
    else if (!want || !semverEqual(parsed, want)) r.err(vp, E('ErrUnknownVersion'));
  }

  private proxy(o: Obj, c: JsonPath, r: Collector): void {
    for (const [field, httpOk] of [
      ['httpProxy', true],
      ['httpsProxy', false],
    ] as const) {
      const f = checkProxyURL(o[field], httpOk);
      if (f?.kind === 'error') r.err([...c, field], f);
      else if (f) r.warn([...c, field], f);
    }
  }

  private partition(o: Obj, c: JsonPath, r: Collector): void {
    if (
      isFalse(o['shouldExist']) &&
      (present(o['label']) ||
        notEmpty(o['typeGuid']) ||
        notEmpty(o['guid']) ||
        present(o['startMiB']) ||
        present(o['sizeMiB']))
    ) {
      r.err(c, E('ErrShouldNotExistWithOthers'));
    }
    if ((typeof o['number'] !== 'number' || o['number'] === 0) && !present(o['label']))
      r.err(c, E('ErrNeedLabelOrNumber'));
    r.err([...c, 'label'], checkPartitionLabel(o['label']));
    r.err([...c, 'guid'], checkGUID(o['guid']));
    r.err([...c, 'typeGuid'], checkGUID(o['typeGuid']));
  }

  private tang(o: Obj, c: JsonPath, r: Collector): void {
    const u = goParseURL(str(o['url']));
    r.err(
      [...c, 'url'],
      !u ? E('ErrInvalidUrl') : u.scheme === 'http' || u.scheme === 'https' ? null : E('ErrInvalidScheme'),
    );
    if (nilOrEmpty(o['thumbprint'])) r.err([...c, 'thumbprint'], E('ErrTangThumbprintRequired'));
    if (this.minor >= 4 && notEmpty(o['advertisement'])) {
      let ok = true;
      try {
        JSON.parse(str(o['advertisement']));
      } catch {
        ok = false;
      }
      r.err([...c, 'advertisement'], ok ? null : E('ErrInvalidTangAdvertisement'));
    }
  }

  private unit(o: Obj, c: JsonPath, r: Collector): void {
    r.err([...c, 'name'], checkUnitName(str(o['name'])));
    const cc = [...c, 'contents'];
    const { opts, err } = parseUnitContents(o['contents']);
    r.err(cc, err);
    if (
      isTrue(o['enabled']) &&
      !nilOrEmpty(o['contents']) &&
      opts !== null &&
      !opts.some((x) => x.section === 'Install')
    ) {
      r.warn(
        cc,
        plain(`unit ${goQuote(str(o['name']))} is enabled, but has no install section so enable does nothing`),
      );
    }
  }

  requiredSource(res: Obj): Finding | null {
    if (nilOrEmpty(res['source'])) return E('ErrSourceRequired');
    return checkURL(str(res['source']), this.minor);
  }

  private resource(o: Obj, c: JsonPath, r: Collector, parent: string): void {
    const minor = this.minor;
    if (minor === 0 && (parent === 'config' || parent === 'ca')) {
      // 3.0 ConfigReference / CaReference: only the source URL
      r.err([...c, 'source'], parent === 'ca' ? checkURL(str(o['source']), 0) : checkURLNilOK(o['source'], 0));
      return;
    }
    const comp = o['compression'];
    r.err([...c, 'compression'], present(comp) && comp !== '' && comp !== 'gzip' ? E('ErrCompressionInvalid') : null);
    r.err(
      [...c, 'verification', 'hash'],
      present(asObj(o['verification'])['hash']) && !present(o['source']) ? E('ErrVerificationAndNilSource') : null,
    );
    r.err([...c, 'source'], checkURLNilOK(o['source'], minor));
    if (minor >= 1 && asList(o['httpHeaders']).length > 0) {
      let f: Finding | null;
      if (nilOrEmpty(o['source'])) f = E('ErrInvalidUrl');
      else {
        const u = goParseURL(str(o['source']));
        f = !u
          ? E('ErrInvalidUrl')
          : u.scheme === 'http' || u.scheme === 'https'
            ? null
            : E('ErrUnsupportedSchemeForHTTPHeaders');
      }
      r.err([...c, 'httpHeaders'], f);
    }
  }

  private config(o: Obj, c: JsonPath, r: Collector): void {
    const unitPaths = new Set<string>();
    for (const u of asList(asObj(o['systemd'])['units'])) {
      const unit = asObj(u);
      if (!nilOrEmpty(unit['contents'])) unitPaths.add('/etc/systemd/system/' + str(unit['name']));
      for (const d of asList(unit['dropins'])) {
        const dropin = asObj(d);
        if (!nilOrEmpty(dropin['contents']))
          unitPaths.add(`/etc/systemd/system/${str(unit['name'])}.d/${str(dropin['name'])}`);
      }
    }
    const storage = asObj(o['storage']);
    for (const kind of ['files', 'directories', 'links']) {
      asList(storage[kind]).forEach((n, i) => {
        if (unitPaths.has(str(asObj(n)['path'])))
          r.err([...c, 'storage', kind, i, 'path'], E('ErrPathConflictsSystemd'));
      });
    }
  }

  private disk(o: Obj, c: JsonPath, r: Collector): void {
    const device = str(o['device']);
    if (device.length === 0) {
      r.err([...c, 'device'], E('ErrDiskDeviceRequired'));
      return;
    }
    r.err([...c, 'device'], checkPath(device));
    const parts = asList(o['partitions']).map(asObj);
    // partition numbers collide (upstream iterates a Go map: report the second index of a colliding number)
    const byNumber = new Map<number, number[]>();
    parts.forEach((p, i) => {
      const n = p['number'];
      if (typeof n === 'number' && n !== 0) byNumber.set(n, [...(byNumber.get(n) ?? []), i]);
    });
    for (const idx of byNumber.values()) {
      const second = idx[1];
      if (second !== undefined) {
        r.err([...c, 'partitions', second], E('ErrPartitionNumbersCollide'));
        break;
      }
    }
    const overlap = partitionsOverlap(parts);
    if (overlap !== null) r.err([...c, 'partitions', overlap], E('ErrPartitionsOverlap'));
    // a partition to delete (shouldExist false) next to one with number 0 (start/size lookups by number 0)
    if (
      parts.some((p) => p['number'] === undefined || p['number'] === 0) &&
      parts.some((p) => p['shouldExist'] === false)
    ) {
      r.err([...c, 'partitions'], E('ErrZeroesWithShouldNotExist'));
    }
    const labels = new Set<string>();
    for (const [i, part] of parts.entries()) {
      const l = part['label'];
      if (isStr(l)) {
        if (labels.has(l)) {
          r.err([...c, 'partitions', i], E('ErrDuplicateLabels'));
          break;
        }
        labels.add(l);
      }
    }
  }

  private filesystem(o: Obj, c: JsonPath, r: Collector): void {
    const minor = this.minor;
    const exp = this.experimental;
    r.err([...c, 'path'], nilOrEmpty(o['path']) ? null : checkPath(str(o['path'])));
    const device = str(o['device']);
    if (exp && o['format'] === 'virtiofs') {
      r.err(
        [...c, 'device'],
        device === '' ? E('ErrNoDevice') : Buffer.byteLength(device) > 36 ? E('ErrVirtiofsDeviceTagTooLong') : null,
      );
    } else {
      r.err([...c, 'device'], checkPath(device));
    }
    r.err([...c, 'format'], checkFilesystemFormat(o, minor, exp));
    r.err([...c, 'label'], checkFilesystemLabel(o, minor, exp));
    if (exp && o['format'] === 'virtiofs') {
      if (notEmpty(o['uuid'])) r.err([...c, 'uuid'], E('ErrUUIDNotSupportedForFormat'));
      if (isTrue(o['wipeFilesystem'])) r.err([...c, 'wipeFilesystem'], E('ErrWipeNotSupportedForFormat'));
      if (asList(o['options']).length > 0) r.err([...c, 'options'], E('ErrMkfsOptionsNotSupportedForFormat'));
    }
  }

  private luks(o: Obj, c: JsonPath, r: Collector): void {
    const minor = this.minor;
    if (str(o['name']).includes('/')) r.err([...c, 'name'], E('ErrLuksNameContainsSlash'));
    const label = o['label'];
    r.err([...c, 'label'], notEmpty(label) && Buffer.byteLength(str(label)) > 47 ? E('ErrLuksLabelTooLong') : null);
    if (nilOrEmpty(o['device'])) r.err([...c, 'device'], E('ErrDiskDeviceRequired'));
    else r.err([...c, 'device'], checkPath(str(o['device'])));
    const clevis = asObj(o['clevis']);
    const custom = asObj(clevis['custom']);
    const others =
      asList(clevis['tang']).length > 0 ||
      isTrue(clevis['tpm2']) ||
      (typeof clevis['threshold'] === 'number' && clevis['threshold'] !== 0);
    const customSet = minor === 2 ? present(clevis['custom']) : notEmpty(custom['pin']);
    if (customSet && others) r.err([...c, 'clevis'], E('ErrClevisCustomWithOthers'));
    if (checkURLNilOK(asObj(o['keyFile'])['source'], minor)) r.err([...c, 'keys'], E('ErrInvalidLuksKeyFile'));
    if (minor >= 5) {
      const clevisPresent = notEmpty(custom['pin']) || others;
      const cex = isTrue(asObj(o['cex'])['enabled']);
      if (clevisPresent && cex) r.err([...c, 'cex'], E('ErrCexWithClevis'));
      if (cex && notEmpty(asObj(o['keyFile'])['source'])) r.err([...c, 'cex'], E('ErrCexWithKeyFile'));
    }
  }

  private clevisCustom(o: Obj, c: JsonPath, r: Collector): void {
    const minor = this.minor;
    if (minor === 2) {
      const pin = str(o['pin']);
      const config = str(o['config']);
      if (pin === '' && config === '') return;
      if (!['tpm2', 'tang', 'sss'].includes(pin)) r.err([...c, 'pin'], E('ErrUnknownClevisPin'));
      if (config === '') r.err([...c, 'config'], E('ErrClevisConfigRequired'));
      return;
    }
    if (nilOrEmpty(o['pin']) && nilOrEmpty(o['config']) && !isTrue(o['needsNetwork'])) return;
    if (minor >= 6) {
      if (nilOrEmpty(o['pin'])) r.err([...c, 'pin'], E('ErrClevisPinRequired'));
    } else if (notEmpty(o['pin'])) {
      if (!['tpm2', 'tang', 'sss'].includes(str(o['pin']))) r.err([...c, 'pin'], E('ErrUnknownClevisPin'));
    } else {
      r.err([...c, 'pin'], E('ErrClevisPinRequired'));
    }
    if (nilOrEmpty(o['config'])) r.err([...c, 'config'], E('ErrClevisConfigRequired'));
  }

  private systemd(o: Obj, c: JsonPath, r: Collector): void {
    const units = new Map<string, Obj>();
    const list = asList(o['units']).map(asObj);
    for (const u of list) units.set(str(u['name']), u);
    list.forEach((unit, index) => {
      const m = /^(.+?)@(.+?)\.service$/s.exec(str(unit['name']));
      if (!m || !isTrue(unit['enabled'])) return;
      const instantiable = `${m[1]}@.service`;
      const tmpl = units.get(instantiable);
      if (!tmpl || !notEmpty(tmpl['contents'])) return;
      const { opts } = parseUnitContents(tmpl['contents']);
      if (opts === null) return;
      if (!opts.some((x) => x.section === 'Install')) {
        r.warn(
          [...c, 'units', index, 'contents'],
          plain(
            `template unit ${goQuote(instantiable)} for ${goQuote(str(unit['name']))} doesn't have Install section`,
          ),
        );
      }
    });
  }

  /** Storage cross-checks (links, hard links, filesystems vs disks). */
  storage(o: Obj, c: JsonPath, r: Collector): void {
    const dirs = asList(o['directories']).map(asObj);
    const files = asList(o['files']).map(asObj);
    const links = asList(o['links']).map(asObj);
    dirs.forEach((d, i) => {
      for (const l of links)
        if (str(d['path']).startsWith(str(l['path']) + '/'))
          r.err([...c, 'directories', i], E('ErrDirectoryUsedSymlink'));
    });
    files.forEach((f, i) => {
      for (const l of links)
        if (str(f['path']).startsWith(str(l['path']) + '/')) r.err([...c, 'files', i], E('ErrFileUsedSymlink'));
    });
    links.forEach((l1, i) => {
      for (const l2 of links)
        if (str(l1['path']).startsWith(str(l2['path']) + '/')) r.err([...c, 'links', i], E('ErrLinkUsedSymlink'));
      if (this.minor >= 3 && nilOrEmpty(l1['target'])) {
        r.err([...c, 'links', i, 'target'], E('ErrLinkTargetRequired'));
        return;
      }
      if (!isTrue(l1['hard'])) return;
      let target = goPathClean(str(l1['target']));
      if (!target.startsWith('/')) target = goPathJoin(str(l1['path']), str(l1['target']));
      for (const d of dirs) if (target === str(d['path'])) r.err([...c, 'links', i], E('ErrHardLinkToDirectory'));
      const user = asObj(l1['user']);
      const group = asObj(l1['group']);
      if (present(user['id'])) r.warn([...c, 'links', i, 'user', 'id'], E('ErrHardLinkSpecifiesOwner'));
      if (present(user['name'])) r.warn([...c, 'links', i, 'user', 'name'], E('ErrHardLinkSpecifiesOwner'));
      if (present(group['id'])) r.warn([...c, 'links', i, 'group', 'id'], E('ErrHardLinkSpecifiesOwner'));
      if (present(group['name'])) r.warn([...c, 'links', i, 'group', 'name'], E('ErrHardLinkSpecifiesOwner'));
    });
    const disks = new Map<string, Obj>();
    for (const d of asList(o['disks']).map(asObj)) disks.set(str(d['device']), d);
    asList(o['filesystems'])
      .map(asObj)
      .forEach((f, i) => {
        const disk = disks.get(str(f['device']));
        if (!disk) return;
        if (asList(disk['partitions']).length > 0)
          r.warn([...c, 'filesystems', i, 'device'], E('ErrPartitionsOverwritten'));
        else if (!isTrue(f['wipeFilesystem']) && isTrue(disk['wipeTable']))
          r.warn([...c, 'filesystems', i, 'device'], E('ErrFilesystemImplicitWipe'));
      });
  }
}

function partitionsOverlap(parts: Obj[]): number | null {
  const dims = (p: Obj): { start: number; end: number } | null => {
    const s = p['startMiB'];
    const z = p['sizeMiB'];
    if (typeof s !== 'number' || typeof z !== 'number' || s === 0) return null;
    return { start: s, end: z === 0 ? s : s + z - 1 };
  };
  for (const pa of parts) {
    const p = dims(pa);
    if (!p) continue;
    for (const [i, pi] of parts.entries()) {
      const o = dims(pi);
      if (!o || sameValue(pa, pi)) continue;
      if (p.start >= o.start && p.start <= o.end) return i;
      if (p.end >= o.start && p.end <= o.end) return i;
      if (p.start < o.start && p.end > o.end) return i;
    }
  }
  return null;
}

function sameValue(a: Obj, b: Obj): boolean {
  // Go compares the Partition structs by value (pointer fields by address: equal only for the same element)
  return a === b;
}

/** Go's %q for simple strings. */

/** Walks a 3.x config calling every node's rules in upstream order, then the duplicate pass. */
export function validateSemantics3(config: unknown, version: RuleVersion, root: JsonPath = []): ReportEntry[] {
  const rules = new Rules(version);
  const r = new Collector();
  walk(rules, 'Config', asObj(config), root, r, '');
  dups('Config', asObj(config), root, r);
  return r.entries;
}

/** Validates one node (and its subtree) of the given struct type. */
export function validateNode3(
  struct: StructName,
  node: unknown,
  version: RuleVersion,
  root: JsonPath = [],
  withDups = true,
): ReportEntry[] {
  const rules = new Rules(version);
  const r = new Collector();
  walk(rules, struct, asObj(node), root, r, '');
  if (withDups) dups(struct, asObj(node), root, r);
  return r.entries;
}

function walk(rules: Rules, struct: StructName, o: Obj, c: JsonPath, r: Collector, parent: string): void {
  rules.node(struct, o, c, r, parent);
  if (struct === 'Storage') rules.storage(o, c, r);
  for (const [name, shape] of STRUCTS[struct]) {
    const v = o[name];
    if (shape.kind === 'struct') {
      // An absent struct only matters for `ignition` (its version is required); the rules of every
      // other struct find nothing in an empty one, so skip the walk (a large speed-up on big configs).
      if ((v === undefined || v === null) && shape.struct !== 'Ignition') continue;
      const role = struct === 'IgnitionConfig' ? 'config' : name;
      walk(rules, shape.struct, asObj(v), [...c, name], r, role);
    } else if (shape.kind === 'list') {
      if (!Array.isArray(v) || v.length === 0) continue;
      const role = struct === 'IgnitionConfig' ? 'config' : struct === 'TLS' ? 'ca' : name;
      if (shape.item === 'string') {
        if (struct === 'Raid' && name === 'devices')
          v.forEach((item, i) => {
            r.err([...c, name, i], checkPath(str(item)));
          });
        continue;
      }
      const item = shape.item;
      v.forEach((x, i) => {
        walk(rules, item, asObj(x), [...c, name, i], r, role);
      });
    }
  }
}

function dups(struct: StructName, o: Obj, c: JsonPath, r: Collector): void {
  let seen: Map<string, Set<string>> | null = null;
  for (const [name, shape] of STRUCTS[struct]) {
    if (shape.kind !== 'list' || shape.ignoreDups) continue;
    const list = o[name];
    if (!Array.isArray(list) || list.length === 0) continue;
    const handle = shape.handle ?? name;
    seen ??= new Map();
    let set = seen.get(handle);
    if (!set) seen.set(handle, (set = new Set()));
    for (let i = 0; i < list.length; i++) {
      const key = itemKey(shape.item, list[i]);
      if (set.has(key)) r.err([...c, name, i], E('ErrDuplicate'));
      set.add(key);
    }
  }
  for (const [name, shape] of STRUCTS[struct]) {
    const v = o[name];
    if (v === null || typeof v !== 'object') continue; // absent values hold no lists
    if (shape.kind === 'struct') dups(shape.struct, v as Obj, [...c, name], r);
    else if (shape.kind === 'list' && shape.item !== 'string' && Array.isArray(v)) {
      const item = shape.item;
      v.forEach((x, i) => {
        if (x !== null && typeof x === 'object') dups(item, x as Obj, [...c, name, i], r);
      });
    }
  }
}

export { MESSAGES };
