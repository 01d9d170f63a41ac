/**
 * The Butane schemas (coreos/butane base/v0_N/schema.go, config/fcos/v1_N/schema.go,
 * config/openshift/v4_N/schema.go) as data: which YAML keys each struct has in each version, their
 * Go types (for yaml.v3's decode errors) and which are sugar (not copied into the Ignition config).
 */
import type { ButaneProfile } from './versions.js';

/** Field type: a Go primitive, a struct, a list or a string map. */
export type FieldType = 'string' | 'int' | 'bool' | 'map' | { struct: StructName } | { list: FieldType };

/** One YAML key of a struct. */
export interface FieldDef {
  /** YAML (snake_case) name. */
  yaml: string;
  type: FieldType;
  /** Sugar: consumed by Butane, never copied into the Ignition output as is. */
  sugar?: boolean;
}

/** Struct names (Go type names). */
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
  | 'NodeUser'
  | 'NodeGroup'
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
  | 'Dropin'
  | 'Quadlet'
  | 'Tree'
  | 'BootDevice'
  | 'BootDeviceLuks'
  | 'BootDeviceMirror'
  | 'Grub'
  | 'GrubUser'
  | 'Metadata'
  | 'OpenShift';

const S = 'string' as const;
const I = 'int' as const;
const B = 'bool' as const;
const st = (s: StructName): FieldType => ({ struct: s });
const ls = (t: FieldType): FieldType => ({ list: t });
const f = (yaml: string, type: FieldType, sugar = false): FieldDef => (sugar ? { yaml, type, sugar } : { yaml, type });

const FCOS_STRUCTS = new Set<StructName>(['BootDevice', 'BootDeviceLuks', 'BootDeviceMirror', 'Grub', 'GrubUser']);
const OPENSHIFT_STRUCTS = new Set<StructName>(['Metadata', 'OpenShift']);

/** Go package-qualified type name, as yaml.v3 prints it in decode errors. */
export function goTypeName(t: FieldType, p: ButaneProfile): string {
  if (t === 'map') return 'map[string]string';
  if (typeof t === 'string') return t;
  if ('list' in t) return `[]${goTypeName(t.list, p)}`;
  const exp = p.experimental ? '_exp' : '';
  let pkg = `v0_${p.base}${exp}`;
  if (FCOS_STRUCTS.has(t.struct) || (t.struct === 'Config' && p.variant === 'fcos')) pkg = `v1_${p.fcos}${exp}`;
  if (OPENSHIFT_STRUCTS.has(t.struct) || (t.struct === 'Config' && p.variant === 'openshift'))
    pkg = `v4_${p.openshift}${exp}`;
  let name: string = t.struct;
  if (p.base < 2 && t.struct === 'Resource') name = 'FileContents';
  if (p.base === 3 && t.struct === 'ClevisCustom') name = 'Custom';
  return `${pkg}.${name}`;
}

function node(): FieldDef[] {
  return [f('group', st('NodeGroup')), f('overwrite', B), f('path', S), f('user', st('NodeUser'))];
}

function configFields(p: ButaneProfile): FieldDef[] {
  const out = [f('version', S), f('variant', S), f('ignition', st('Ignition'))];
  if (p.base >= 4) out.push(f('kernel_arguments', st('KernelArguments')));
  out.push(f('passwd', st('Passwd')), f('storage', st('Storage')), f('systemd', st('Systemd')));
  if (p.fcos >= 3) out.push(f('boot_device', st('BootDevice'), true));
  if (p.fcos >= 5) out.push(f('grub', st('Grub'), true));
  if (p.variant === 'openshift') out.push(f('metadata', st('Metadata'), true), f('openshift', st('OpenShift'), true));
  return out;
}

function resourceFields(p: ButaneProfile): FieldDef[] {
  const out = [f('compression', S)];
  if (p.base >= 2) out.push(f('http_headers', ls(st('HTTPHeader'))));
  out.push(f('source', S), f('inline', S, true));
  if (p.base >= 2) out.push(f('local', S, true));
  out.push(f('verification', st('Verification')));
  return out;
}

function luksFields(p: ButaneProfile): FieldDef[] {
  const out: FieldDef[] = [];
  if (p.base >= 6) out.push(f('cex', st('Cex')));
  out.push(f('clevis', st('Clevis')), f('device', S));
  if (p.base >= 5) out.push(f('discard', B));
  out.push(f('key_file', st('Resource')), f('label', S), f('name', S));
  if (p.base >= 5) out.push(f('open_options', ls(S)));
  out.push(f('options', ls(S)), f('uuid', S), f('wipe_volume', B));
  return out;
}

function userFields(p: ButaneProfile): FieldDef[] {
  const out = [
    f('gecos', S),
    f('groups', ls(S)),
    f('home_dir', S),
    f('name', S),
    f('no_create_home', B),
    f('no_log_init', B),
    f('no_user_group', B),
    f('password_hash', S),
    f('primary_group', S),
  ];
  if (p.base >= 3) out.push(f('should_exist', B));
  out.push(f('ssh_authorized_keys', ls(S)));
  if (p.base >= 5) out.push(f('ssh_authorized_keys_local', ls(S), true));
  out.push(f('shell', S), f('system', B), f('uid', I));
  return out;
}

function bootDeviceLuksFields(p: ButaneProfile): FieldDef[] {
  const out: FieldDef[] = [];
  if (p.fcos >= 6) out.push(f('cex', st('Cex')));
  if (p.fcos >= 5) out.push(f('discard', B));
  if (p.fcos >= 6) out.push(f('device', S));
  out.push(f('tang', ls(st('Tang'))), f('threshold', I), f('tpm2', B));
  return out;
}

function storageFields(p: ButaneProfile): FieldDef[] {
  const out = [
    f('directories', ls(st('Directory'))),
    f('disks', ls(st('Disk'))),
    f('files', ls(st('File'))),
    f('filesystems', ls(st('Filesystem'))),
    f('links', ls(st('Link'))),
  ];
  if (p.base >= 3) out.push(f('luks', ls(st('Luks'))));
  out.push(f('raid', ls(st('Raid'))));
  if (p.base >= 2) out.push(f('trees', ls(st('Tree')), true));
  return out;
}

function filesystemFields(p: ButaneProfile): FieldDef[] {
  const out = [f('device', S), f('format', S), f('label', S)];
  if (p.base >= 2) out.push(f('mount_options', ls(S)));
  out.push(f('options', ls(S)), f('path', S), f('uuid', S), f('wipe_filesystem', B));
  if (p.base >= 2) out.push(f('with_mount_unit', B, true));
  return out;
}

function treeFields(p: ButaneProfile): FieldDef[] {
  if (p.base >= 7) {
    return [
      f('group', st('NodeGroup')),
      f('local', S),
      f('path', S),
      f('user', st('NodeUser')),
      f('file_mode', I),
      f('dir_mode', I),
    ];
  }
  return [f('local', S), f('path', S)];
}

/** The YAML keys of a struct in a given Butane version, in Go declaration order. */
export function structFields(name: StructName, p: ButaneProfile): FieldDef[] {
  const fields = configStructFields(name, p) ?? storageStructFields(name, p);
  if (fields === undefined) throw new Error(`no Butane fields for struct ${name}`);
  return fields;
}

/** The structs of the config's top, ignition, passwd and the variants' own sections. */
function configStructFields(name: StructName, p: ButaneProfile): FieldDef[] | undefined {
  switch (name) {
    case 'Config':
      return configFields(p);
    case 'Ignition':
      return [
        f('config', st('IgnitionConfig')),
        ...(p.base >= 2 ? [f('proxy', st('Proxy'))] : []),
        f('security', st('Security')),
        f('timeouts', st('Timeouts')),
      ];
    case 'IgnitionConfig':
      return [f('merge', ls(st('Resource'))), f('replace', st('Resource'))];
    case 'Resource':
      return resourceFields(p);
    case 'HTTPHeader':
      return [f('name', S), f('value', S)];
    case 'Verification':
      return [f('hash', S)];
    case 'Proxy':
      return [f('http_proxy', S), f('https_proxy', S), f('no_proxy', ls(S))];
    case 'Security':
      return [f('tls', st('TLS'))];
    case 'TLS':
      return [f('certificate_authorities', ls(st('Resource')))];
    case 'Timeouts':
      return [f('http_response_headers', I), f('http_total', I)];
    case 'KernelArguments':
      return [f('should_exist', ls(S)), f('should_not_exist', ls(S))];
    case 'Passwd':
      return [f('groups', ls(st('PasswdGroup'))), f('users', ls(st('PasswdUser')))];
    case 'PasswdUser':
      return userFields(p);
    case 'PasswdGroup':
      return [
        f('gid', I),
        f('name', S),
        f('password_hash', S),
        ...(p.base >= 3 ? [f('should_exist', B)] : []),
        f('system', B),
      ];
    case 'Tree':
      return treeFields(p);
    case 'BootDevice':
      return [f('layout', S), f('luks', st('BootDeviceLuks')), f('mirror', st('BootDeviceMirror'))];
    case 'BootDeviceLuks':
      return bootDeviceLuksFields(p);
    case 'BootDeviceMirror':
      return [f('devices', ls(S))];
    case 'Grub':
      return [f('users', ls(st('GrubUser')))];
    case 'GrubUser':
      return [f('name', S), f('password_hash', S)];
    case 'Metadata':
      return [f('name', S), f('labels', 'map')];
    case 'OpenShift':
      return [f('kernel_arguments', ls(S)), f('extensions', ls(S)), f('fips', B), f('kernel_type', S)];
    default:
      return undefined;
  }
}

/** The structs of storage and systemd. */
function storageStructFields(name: StructName, p: ButaneProfile): FieldDef[] | undefined {
  switch (name) {
    case 'Storage':
      return storageFields(p);
    case 'Directory':
      return [...node(), f('mode', I)];
    case 'File':
      return [...node(), f('append', ls(st('Resource'))), f('contents', st('Resource')), f('mode', I)];
    case 'Link':
      return [...node(), f('hard', B), f('target', S)];
    case 'NodeUser':
    case 'NodeGroup':
      return [f('id', I), f('name', S)];
    case 'Disk':
      return [f('device', S), f('partitions', ls(st('Partition'))), f('wipe_table', B)];
    case 'Partition':
      return [
        f('guid', S),
        f('label', S),
        f('number', I),
        ...(p.base >= 3 ? [f('resize', B)] : []),
        f('should_exist', B),
        f('size_mib', I),
        f('start_mib', I),
        f('type_guid', S),
        f('wipe_partition_entry', B),
      ];
    case 'Filesystem':
      return filesystemFields(p);
    case 'Luks':
      return luksFields(p);
    case 'Clevis':
      return [f('custom', st('ClevisCustom')), f('tang', ls(st('Tang'))), f('threshold', I), f('tpm2', B)];
    case 'ClevisCustom':
      return [f('config', S), f('needs_network', B), f('pin', S)];
    case 'Tang':
      return [f('thumbprint', S), f('url', S), ...(p.base >= 5 ? [f('advertisement', S)] : [])];
    case 'Cex':
      return [f('enabled', B)];
    case 'Raid':
      return [f('devices', ls(S)), f('level', S), f('name', S), f('options', ls(S)), f('spares', I)];
    case 'Systemd':
      return [f('units', ls(st('Unit'))), ...(p.base >= 8 ? [f('quadlets', ls(st('Quadlet')), true)] : [])];
    case 'Quadlet':
      return [f('contents', S), f('contents_local', S), f('name', S), f('rootful', B), f('dropins', ls(st('Dropin')))];
    case 'Unit':
      return [
        f('contents', S),
        ...(p.base >= 5 ? [f('contents_local', S, true)] : []),
        f('dropins', ls(st('Dropin'))),
        f('enabled', B),
        f('mask', B),
        f('name', S),
      ];
    case 'Dropin':
      return [f('contents', S), ...(p.base >= 5 ? [f('contents_local', S, true)] : []), f('name', S)];
    default:
      return undefined;
  }
}

/** coreos/butane config/util `Camel`: snake_case to camelCase, `_mib` to `MiB`. */
export function camel(s: string): string {
  let str = s;
  if (str.endsWith('_mib')) str = `${str.slice(0, -4)}MiB`;
  return str.replace(/_(.)/g, (_m, c: string) => c.toUpperCase()).replace(/_/g, '');
}

/** coreos/butane config/util `Snake`: camelCase to snake_case (`MiB` stays one word). */
export function snake(s: string): string {
  return s.replace(/(MiB|[A-Z])/g, '_$1').toLowerCase();
}
