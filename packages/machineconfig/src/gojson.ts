/**
 * Serialisation of an Ignition 3.5 config the way the MCO writes `spec.config` of a rendered MachineConfig:
 * clarketm/json (encoding/json that also omits empty structs tagged omitempty) of the Go types of
 * coreos/ignition config/v3_5/types. Field order is the Go declaration order (alphabetical by Go name, embedded
 * Node fields first); unknown keys are dropped (Go's decoder ignores them).
 */
import { goJsonString } from '@keelson/api';

/** Field kind in the Go type table. */
export type Kind =
  | { t: 'val'; omitempty: boolean; prim: 'string' | 'int' | 'bool' }
  | { t: 'ptr' }
  | { t: 'struct'; s: string; omitempty: boolean }
  | { t: 'list'; item: string };

const v = (prim: 'string' | 'int' | 'bool', omitempty = false): Kind => ({ t: 'val', omitempty, prim });
const p: Kind = { t: 'ptr' };
const s = (name: string, omitempty = true): Kind => ({ t: 'struct', s: name, omitempty });
const l = (item: string): Kind => ({ t: 'list', item });

const NODE: [string, Kind][] = [
  ['group', s('NodeOwner')],
  ['overwrite', p],
  ['path', v('string')],
  ['user', s('NodeOwner')],
];

/** Go field order of the v3_5 types (from config/v3_5/types/schema.go). */
export const TYPES: Record<string, [string, Kind][]> = {
  Config: [
    ['ignition', s('Ignition', false)],
    ['kernelArguments', s('KernelArguments')],
    ['passwd', s('Passwd')],
    ['storage', s('Storage')],
    ['systemd', s('Systemd')],
  ],
  Ignition: [
    ['config', s('IgnitionConfig')],
    ['proxy', s('Proxy')],
    ['security', s('Security')],
    ['timeouts', s('Timeouts')],
    ['version', v('string')],
  ],
  IgnitionConfig: [
    ['merge', l('Resource')],
    ['replace', s('Resource')],
  ],
  Resource: [
    ['compression', p],
    ['httpHeaders', l('HTTPHeader')],
    ['source', p],
    ['verification', s('Verification')],
  ],
  HTTPHeader: [
    ['name', v('string')],
    ['value', p],
  ],
  Verification: [['hash', p]],
  Proxy: [
    ['httpProxy', p],
    ['httpsProxy', p],
    ['noProxy', l('string')],
  ],
  Security: [['tls', s('TLS')]],
  TLS: [['certificateAuthorities', l('Resource')]],
  Timeouts: [
    ['httpResponseHeaders', p],
    ['httpTotal', p],
  ],
  KernelArguments: [
    ['shouldExist', l('string')],
    ['shouldNotExist', l('string')],
  ],
  Passwd: [
    ['groups', l('PasswdGroup')],
    ['users', l('PasswdUser')],
  ],
  PasswdUser: [
    ['gecos', p],
    ['groups', l('string')],
    ['homeDir', p],
    ['name', v('string')],
    ['noCreateHome', p],
    ['noLogInit', p],
    ['noUserGroup', p],
    ['passwordHash', p],
    ['primaryGroup', p],
    ['sshAuthorizedKeys', l('string')],
    ['shell', p],
    ['shouldExist', p],
    ['system', p],
    ['uid', p],
  ],
  PasswdGroup: [
    ['gid', p],
    ['name', v('string')],
    ['passwordHash', p],
    ['shouldExist', p],
    ['system', p],
  ],
  Storage: [
    ['directories', l('Directory')],
    ['disks', l('Disk')],
    ['files', l('File')],
    ['filesystems', l('Filesystem')],
    ['links', l('Link')],
    ['luks', l('Luks')],
    ['raid', l('Raid')],
  ],
  Directory: [...NODE, ['mode', p]],
  File: [...NODE, ['append', l('Resource')], ['contents', s('Resource')], ['mode', p]],
  Link: [...NODE, ['hard', p], ['target', p]],
  NodeOwner: [
    ['id', p],
    ['name', p],
  ],
  Disk: [
    ['device', v('string')],
    ['partitions', l('Partition')],
    ['wipeTable', p],
  ],
  Partition: [
    ['guid', p],
    ['label', p],
    ['number', v('int', true)],
    ['resize', p],
    ['shouldExist', p],
    ['sizeMiB', p],
    ['startMiB', p],
    ['typeGuid', p],
    ['wipePartitionEntry', p],
  ],
  Filesystem: [
    ['device', v('string')],
    ['format', p],
    ['label', p],
    ['mountOptions', l('string')],
    ['options', l('string')],
    ['path', p],
    ['uuid', p],
    ['wipeFilesystem', p],
  ],
  Luks: [
    ['cex', s('Cex')],
    ['clevis', s('Clevis')],
    ['device', p],
    ['discard', p],
    ['keyFile', s('Resource')],
    ['label', p],
    ['name', v('string')],
    ['openOptions', l('string')],
    ['options', l('string')],
    ['uuid', p],
    ['wipeVolume', p],
  ],
  Cex: [['enabled', p]],
  Clevis: [
    ['custom', s('ClevisCustom')],
    ['tang', l('Tang')],
    ['threshold', p],
    ['tpm2', p],
  ],
  ClevisCustom: [
    ['config', p],
    ['needsNetwork', p],
    ['pin', p],
  ],
  Tang: [
    ['advertisement', p],
    ['thumbprint', p],
    ['url', v('string', true)],
  ],
  Raid: [
    ['devices', l('string')],
    ['level', p],
    ['name', v('string')],
    ['options', l('string')],
    ['spares', p],
  ],
  Systemd: [['units', l('Unit')]],
  Unit: [
    ['contents', p],
    ['dropins', l('Dropin')],
    ['enabled', p],
    ['mask', p],
    ['name', v('string')],
  ],
  Dropin: [
    ['contents', p],
    ['name', v('string')],
  ],
};

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Go encoding/json string escaping (HTML-safe, invalid UTF-16 → U+FFFD): `@keelson/api`'s one Go-JSON encoder. */
export { goJsonString };

function prim(x: unknown, kind: 'string' | 'int' | 'bool' | 'any'): string {
  if (typeof x === 'string') return goJsonString(x);
  if (typeof x === 'number') return Number.isFinite(x) ? String(Math.trunc(x)) : '0';
  if (typeof x === 'boolean') return x ? 'true' : 'false';
  if (kind === 'string') return '""';
  if (kind === 'int') return '0';
  if (kind === 'bool') return 'false';
  return 'null';
}

/** clarketm isEmptyValue for a struct: every field empty. */
function structEmpty(name: string, o: unknown): boolean {
  if (!isObj(o)) return true;
  for (const [field, k] of TYPES[name] ?? []) {
    const x = o[field];
    if (!fieldEmpty(k, x)) return false;
  }
  return true;
}

function fieldEmpty(k: Kind, x: unknown): boolean {
  switch (k.t) {
    case 'ptr':
      return x === undefined || x === null;
    case 'list':
      return !Array.isArray(x) || x.length === 0;
    case 'struct':
      return structEmpty(k.s, x);
    case 'val':
      return x === undefined || x === null || x === '' || x === 0 || x === false;
  }
}

function encodeStruct(name: string, o: unknown): string {
  const obj = isObj(o) ? o : {};
  const parts: string[] = [];
  for (const [field, k] of TYPES[name] ?? []) {
    const x = obj[field];
    switch (k.t) {
      case 'ptr':
        if (x === undefined || x === null) continue;
        parts.push(`"${field}":${prim(x, 'any')}`);
        break;
      case 'val':
        if (k.omitempty && fieldEmpty(k, x)) continue;
        parts.push(`"${field}":${prim(x, k.prim)}`);
        break;
      case 'struct':
        if (k.omitempty && structEmpty(k.s, x)) continue;
        parts.push(`"${field}":${encodeStruct(k.s, x)}`);
        break;
      case 'list': {
        if (!Array.isArray(x) || x.length === 0) continue;
        const items = x.map((it) => (k.item === 'string' ? prim(it, 'string') : encodeStruct(k.item, it)));
        parts.push(`"${field}":[${items.join(',')}]`);
        break;
      }
    }
  }
  return `{${parts.join(',')}}`;
}

/** Compact JSON of an Ignition 3.5 config exactly as the MCO writes the rendered `spec.config`. */
export function serializeIgnitionV35(config: unknown): string {
  return encodeStruct('Config', config);
}

/**
 * Round-trips a config through the Go v3_5 types: drops unknown keys and the zero values Go cannot tell
 * from absent; returns a plain JSON object in Go field order.
 */
export function normalizeIgnitionV35(config: unknown): Obj {
  return JSON.parse(serializeIgnitionV35(config)) as Obj;
}

function goStruct(name: string, o: unknown): Obj {
  const src = isObj(o) ? o : {};
  const out: Obj = {};
  for (const [field, k] of TYPES[name] ?? []) {
    const x = src[field];
    switch (k.t) {
      case 'ptr':
        if (x !== undefined && x !== null) out[field] = x;
        break;
      case 'val':
        out[field] = x ?? (k.prim === 'string' ? '' : k.prim === 'int' ? 0 : false);
        break;
      case 'struct':
        out[field] = goStruct(k.s, x);
        break;
      case 'list':
        if (Array.isArray(x))
          out[field] = (x as unknown[]).map((it) => (k.item === 'string' ? it : goStruct(k.item, it)));
        break;
    }
  }
  return out;
}

/**
 * The value Go's decoder would produce for a v3_5 config: unknown keys dropped, value fields defaulted, absent
 * pointers and lists left out but present empty lists kept (Go tells a nil slice from an empty one, and the
 * daemon's reflect.DeepEqual comparisons do too).
 */
export function toGoStructV35(config: unknown): Obj {
  return goStruct('Config', config);
}

/** reflect.DeepEqual over {@link toGoStructV35} values (absent ≠ empty list). */
export function goDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => goDeepEqual(x, b[i]));
  }
  if (isObj(a) && isObj(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!goDeepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}
