/**
 * Structural description of the spec 3.x Go types (field order, pointer vs value primitives, keyed
 * lists, lists exempt from de-duplication, shared key spaces). Drives merge, duplicate checks and
 * unknown-key warnings, so those follow upstream's reflection-based code field by field.
 */

/** A field of a struct. */
export type FieldShape =
  | { kind: 'ptr' } // *T primitive: absent == nil
  | { kind: 'val' } // non-pointer primitive: absent == zero value
  | { kind: 'struct'; struct: StructName }
  | { kind: 'list'; item: StructName | 'string'; ignoreDups?: boolean; handle?: string };

/** Names of the struct types. */
export type StructName =
  | 'Config'
  | 'Ignition'
  | 'IgnitionConfig'
  | 'Resource'
  | 'HTTPHeader'
  | 'Verification'
  | 'Proxy'
  | 'Security'
  | 'TLS'
  | 'Timeouts'
  | 'KernelArguments'
  | 'Passwd'
  | 'PasswdUser'
  | 'PasswdGroup'
  | 'Storage'
  | 'Directory'
  | 'File'
  | 'Link'
  | 'NodeOwner'
  | 'Disk'
  | 'Partition'
  | 'Filesystem'
  | 'Luks'
  | 'Clevis'
  | 'ClevisCustom'
  | 'Tang'
  | 'Cex'
  | 'Raid'
  | 'Systemd'
  | 'Unit'
  | 'Dropin';

const ptr: FieldShape = { kind: 'ptr' };
const val: FieldShape = { kind: 'val' };
const st = (s: StructName): FieldShape => ({ kind: 'struct', struct: s });
const list = (item: StructName | 'string', extra: { ignoreDups?: boolean; handle?: string } = {}): FieldShape => ({
  kind: 'list',
  item,
  ...extra,
});

const node: [string, FieldShape][] = [
  ['group', st('NodeOwner')],
  ['overwrite', ptr],
  ['path', val],
  ['user', st('NodeOwner')],
];

/** Field lists in Go declaration order (embedded structs flattened). */
export const STRUCTS: Record<StructName, [string, FieldShape][]> = {
  Config: [
    ['ignition', st('Ignition')],
    ['kernelArguments', st('KernelArguments')],
    ['passwd', st('Passwd')],
    ['storage', st('Storage')],
    ['systemd', st('Systemd')],
  ],
  Ignition: [
    ['config', st('IgnitionConfig')],
    ['proxy', st('Proxy')],
    ['security', st('Security')],
    ['timeouts', st('Timeouts')],
    ['version', val],
  ],
  IgnitionConfig: [
    ['merge', list('Resource')],
    ['replace', st('Resource')],
  ],
  Resource: [
    ['compression', ptr],
    ['httpHeaders', list('HTTPHeader')],
    ['source', ptr],
    ['verification', st('Verification')],
  ],
  HTTPHeader: [
    ['name', val],
    ['value', ptr],
  ],
  Verification: [['hash', ptr]],
  Proxy: [
    ['httpProxy', ptr],
    ['httpsProxy', ptr],
    ['noProxy', list('string')],
  ],
  Security: [['tls', st('TLS')]],
  TLS: [['certificateAuthorities', list('Resource')]],
  Timeouts: [
    ['httpResponseHeaders', ptr],
    ['httpTotal', ptr],
  ],
  KernelArguments: [
    ['shouldExist', list('string', { handle: 'KernelArgument' })],
    ['shouldNotExist', list('string', { handle: 'KernelArgument' })],
  ],
  Passwd: [
    ['groups', list('PasswdGroup')],
    ['users', list('PasswdUser')],
  ],
  PasswdUser: [
    ['gecos', ptr],
    ['groups', list('string')],
    ['homeDir', ptr],
    ['name', val],
    ['noCreateHome', ptr],
    ['noLogInit', ptr],
    ['noUserGroup', ptr],
    ['passwordHash', ptr],
    ['primaryGroup', ptr],
    ['sshAuthorizedKeys', list('string')],
    ['shell', ptr],
    ['shouldExist', ptr],
    ['system', ptr],
    ['uid', ptr],
  ],
  PasswdGroup: [
    ['gid', ptr],
    ['name', val],
    ['passwordHash', ptr],
    ['shouldExist', ptr],
    ['system', ptr],
  ],
  Storage: [
    ['directories', list('Directory', { handle: 'Node' })],
    ['disks', list('Disk')],
    ['files', list('File', { handle: 'Node' })],
    ['filesystems', list('Filesystem')],
    ['links', list('Link', { handle: 'Node' })],
    ['luks', list('Luks')],
    ['raid', list('Raid')],
  ],
  Directory: [...node, ['mode', ptr]],
  File: [...node, ['append', list('Resource', { ignoreDups: true })], ['contents', st('Resource')], ['mode', ptr]],
  Link: [...node, ['hard', ptr], ['target', ptr]],
  NodeOwner: [
    ['id', ptr],
    ['name', ptr],
  ],
  Disk: [
    ['device', val],
    ['partitions', list('Partition')],
    ['wipeTable', ptr],
  ],
  Partition: [
    ['guid', ptr],
    ['label', ptr],
    ['number', val],
    ['resize', ptr],
    ['shouldExist', ptr],
    ['sizeMiB', ptr],
    ['startMiB', ptr],
    ['typeGuid', ptr],
    ['wipePartitionEntry', ptr],
  ],
  Filesystem: [
    ['device', val],
    ['format', ptr],
    ['label', ptr],
    ['mountOptions', list('string', { ignoreDups: true })],
    ['options', list('string', { ignoreDups: true })],
    ['path', ptr],
    ['uuid', ptr],
    ['wipeFilesystem', ptr],
  ],
  Luks: [
    ['cex', st('Cex')],
    ['clevis', st('Clevis')],
    ['device', ptr],
    ['discard', ptr],
    ['keyFile', st('Resource')],
    ['label', ptr],
    ['name', val],
    ['openOptions', list('string')],
    ['options', list('string', { ignoreDups: true })],
    ['uuid', ptr],
    ['wipeVolume', ptr],
  ],
  Clevis: [
    ['custom', st('ClevisCustom')],
    ['tang', list('Tang')],
    ['threshold', ptr],
    ['tpm2', ptr],
  ],
  ClevisCustom: [
    ['config', ptr],
    ['needsNetwork', ptr],
    ['pin', ptr],
  ],
  Tang: [
    ['advertisement', ptr],
    ['thumbprint', ptr],
    ['url', val],
  ],
  Cex: [['enabled', ptr]],
  Raid: [
    ['devices', list('string')],
    ['level', ptr],
    ['name', val],
    ['options', list('string', { ignoreDups: true })],
    ['spares', ptr],
  ],
  Systemd: [['units', list('Unit')]],
  Unit: [
    ['contents', ptr],
    ['dropins', list('Dropin')],
    ['enabled', ptr],
    ['mask', ptr],
    ['name', val],
  ],
  Dropin: [
    ['contents', ptr],
    ['name', val],
  ],
};

type Obj = Record<string, unknown>;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Key() of a list item, as upstream computes it (empty string for missing keys). */
export function itemKey(struct: StructName | 'string', item: unknown): string {
  if (struct === 'string')
    return typeof item === 'string'
      ? item
      : item !== null && typeof item === 'object'
        ? JSON.stringify(item)
        : String(item);
  const o = (item !== null && typeof item === 'object' ? item : {}) as Obj;
  switch (struct) {
    case 'Resource':
      return str(o['source']);
    case 'Partition': {
      const n = o['number'];
      if (typeof n === 'number' && n !== 0) return `number:${n}`;
      if (typeof o['label'] === 'string') return `label:${o['label']}`;
      return '';
    }
    case 'Tang':
      return str(o['url']);
    case 'Directory':
    case 'File':
    case 'Link':
      return str(o['path']);
    case 'Disk':
    case 'Filesystem':
      return str(o['device']);
    default:
      return str(o['name']);
  }
}
