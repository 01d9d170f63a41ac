/**
 * Ignition config types. Spec 3.x versions share one structure: every 3.y spec only adds optional
 * fields to its predecessor, so {@link IgnitionConfigV3} is the union of all fields of 3.0–3.7 and the
 * per-version validator reports fields a version does not know (as upstream's "unused key" warnings).
 * Spec 2.2 has a different layout ({@link IgnitionConfigV2}).
 */

/** Every spec version this package understands. */
export const SPEC_VERSIONS = [
  '2.2.0',
  '3.0.0',
  '3.1.0',
  '3.2.0',
  '3.3.0',
  '3.4.0',
  '3.5.0',
  '3.6.0',
  '3.7.0-experimental',
] as const;

/** An Ignition spec version string (exact). */
export type SpecVersion = (typeof SPEC_VERSIONS)[number];

/** Spec 3.x versions in ascending order (the experimental one last). */
export const SPEC3_VERSIONS = [
  '3.0.0',
  '3.1.0',
  '3.2.0',
  '3.3.0',
  '3.4.0',
  '3.5.0',
  '3.6.0',
  '3.7.0-experimental',
] as const;

/** A spec 3.x version. */
export type Spec3Version = (typeof SPEC3_VERSIONS)[number];

/** HTTP header sent when fetching a resource (3.1+). A header without value removes a parent's header on merge. */
export interface HTTPHeader {
  name?: string;
  value?: string | null;
}

/** Hash verification of a resource: `sha512-<hex>` (3.0+) or `sha256-<hex>` (3.1+). */
export interface Verification {
  hash?: string | null;
}

/** A remote or inline resource (`source` URL) with optional compression, headers and verification. */
export interface Resource {
  compression?: string | null;
  httpHeaders?: HTTPHeader[] | null;
  source?: string | null;
  verification?: Verification | null;
}

/** Owner (user or group) reference by id or name. */
export interface NodeOwner {
  id?: number | null;
  name?: string | null;
}

/** Common fields of files, directories and links. */
export interface Node {
  group?: NodeOwner | null;
  overwrite?: boolean | null;
  path?: string;
  user?: NodeOwner | null;
}

/** A file to write. */
export interface File extends Node {
  append?: Resource[] | null;
  contents?: Resource | null;
  mode?: number | null;
}

/** A directory to create. */
export interface Directory extends Node {
  mode?: number | null;
}

/** A symbolic or hard link. */
export interface Link extends Node {
  hard?: boolean | null;
  target?: string | null;
}

/** A GPT partition. */
export interface Partition {
  guid?: string | null;
  label?: string | null;
  number?: number;
  resize?: boolean | null;
  shouldExist?: boolean | null;
  sizeMiB?: number | null;
  startMiB?: number | null;
  typeGuid?: string | null;
  wipePartitionEntry?: boolean | null;
}

/** A disk to partition. */
export interface Disk {
  device?: string;
  partitions?: Partition[] | null;
  wipeTable?: boolean | null;
}

/** A filesystem to create or mount. */
export interface Filesystem {
  device?: string;
  format?: string | null;
  label?: string | null;
  mountOptions?: string[] | null;
  options?: string[] | null;
  path?: string | null;
  uuid?: string | null;
  wipeFilesystem?: boolean | null;
}

/** Tang server for clevis (3.2+). */
export interface Tang {
  advertisement?: string | null;
  thumbprint?: string | null;
  url?: string;
}

/** Custom clevis pin configuration (3.2+). */
export interface ClevisCustom {
  config?: string | null;
  needsNetwork?: boolean | null;
  pin?: string | null;
}

/** Clevis binding of a LUKS volume (3.2+). */
export interface Clevis {
  custom?: ClevisCustom | null;
  tang?: Tang[] | null;
  threshold?: number | null;
  tpm2?: boolean | null;
}

/** IBM Crypto Express binding (3.5+). */
export interface Cex {
  enabled?: boolean | null;
}

/** A LUKS volume (3.2+). */
export interface Luks {
  cex?: Cex | null;
  clevis?: Clevis | null;
  device?: string | null;
  discard?: boolean | null;
  keyFile?: Resource | null;
  label?: string | null;
  name?: string;
  openOptions?: string[] | null;
  options?: string[] | null;
  uuid?: string | null;
  wipeVolume?: boolean | null;
}

/** A software RAID array. */
export interface Raid {
  devices?: string[] | null;
  level?: string | null;
  name?: string;
  options?: string[] | null;
  spares?: number | null;
}

/** The storage section. */
export interface Storage {
  directories?: Directory[] | null;
  disks?: Disk[] | null;
  files?: File[] | null;
  filesystems?: Filesystem[] | null;
  links?: Link[] | null;
  luks?: Luks[] | null;
  raid?: Raid[] | null;
}

/** A systemd drop-in. */
export interface Dropin {
  contents?: string | null;
  name?: string;
}

/** A systemd unit. */
export interface Unit {
  contents?: string | null;
  dropins?: Dropin[] | null;
  enabled?: boolean | null;
  mask?: boolean | null;
  name?: string;
}

/** The systemd section. */
export interface Systemd {
  units?: Unit[] | null;
}

/** A user. */
export interface PasswdUser {
  gecos?: string | null;
  groups?: string[] | null;
  homeDir?: string | null;
  name?: string;
  noCreateHome?: boolean | null;
  noLogInit?: boolean | null;
  noUserGroup?: boolean | null;
  passwordHash?: string | null;
  primaryGroup?: string | null;
  sshAuthorizedKeys?: string[] | null;
  shell?: string | null;
  shouldExist?: boolean | null;
  system?: boolean | null;
  uid?: number | null;
}

/** A group. */
export interface PasswdGroup {
  gid?: number | null;
  name?: string;
  passwordHash?: string | null;
  shouldExist?: boolean | null;
  system?: boolean | null;
}

/** The passwd section. */
export interface Passwd {
  groups?: PasswdGroup[] | null;
  users?: PasswdUser[] | null;
}

/** Kernel arguments to ensure present/absent (3.3+). */
export interface KernelArguments {
  shouldExist?: string[] | null;
  shouldNotExist?: string[] | null;
}

/** Proxy settings (3.1+). */
export interface Proxy {
  httpProxy?: string | null;
  httpsProxy?: string | null;
  noProxy?: string[] | null;
}

/** The `ignition` section. */
export interface IgnitionSection {
  config?: { merge?: Resource[] | null; replace?: Resource | null } | null;
  proxy?: Proxy | null;
  security?: { tls?: { certificateAuthorities?: Resource[] | null } | null } | null;
  timeouts?: { httpResponseHeaders?: number | null; httpTotal?: number | null } | null;
  version?: string;
}

/** A spec 3.x config (union of the fields of all 3.x versions). */
export interface IgnitionConfigV3 {
  ignition?: IgnitionSection;
  kernelArguments?: KernelArguments | null;
  passwd?: Passwd | null;
  storage?: Storage | null;
  systemd?: Systemd | null;
}

/** A spec 2.2 file/dir/link node (2.2 nodes have a filesystem name and required user/group objects). */
export interface NodeV2 {
  filesystem?: string;
  path?: string;
  overwrite?: boolean | null;
  user?: NodeOwner | null;
  group?: NodeOwner | null;
}

/** A spec 2.2 config. Field shapes follow the 2.2 JSON schema. */
export interface IgnitionConfigV2 {
  ignition?: {
    version?: string;
    config?: {
      append?: { source?: string; verification?: Verification | null }[] | null;
      replace?: { source?: string; verification?: Verification | null } | null;
    } | null;
    timeouts?: { httpResponseHeaders?: number | null; httpTotal?: number | null } | null;
    security?: {
      tls?: { certificateAuthorities?: { source?: string; verification?: Verification | null }[] | null } | null;
    } | null;
  };
  networkd?: { units?: { name?: string; contents?: string; dropins?: Dropin[] | null }[] | null } | null;
  passwd?: {
    users?: (PasswdUser & { create?: Record<string, unknown> | null; passwordHash?: string | null })[] | null;
    groups?: PasswdGroup[] | null;
  } | null;
  storage?: {
    disks?: Disk[] | null;
    raid?:
      { name?: string; level?: string; devices?: string[]; spares?: number | null; options?: string[] | null }[] | null;
    filesystems?:
      | {
          name?: string;
          mount?: {
            device?: string;
            format?: string;
            wipeFilesystem?: boolean | null;
            label?: string | null;
            uuid?: string | null;
            options?: string[] | null;
            create?: { force?: boolean; options?: string[] } | null;
          } | null;
          path?: string | null;
        }[]
      | null;
    files?:
      | (NodeV2 & {
          append?: boolean | null;
          contents?: { compression?: string; source?: string; verification?: Verification | null } | null;
          mode?: number | null;
        })[]
      | null;
    directories?: (NodeV2 & { mode?: number | null })[] | null;
    links?: (NodeV2 & { target?: string; hard?: boolean | null })[] | null;
  } | null;
  systemd?: { units?: (Unit & { enable?: boolean | null })[] | null } | null;
}

/** Any supported config. Discriminate with `ignition.version` or the `version` of a {@link ParsedConfig}. */
export type IgnitionConfig = IgnitionConfigV3 | IgnitionConfigV2;

/** A JSON path: object keys and list indexes from the document root. */
export type JsonPath = (string | number)[];

/** One finding about a config. */
export interface ReportEntry {
  /** `error` makes the config invalid; `warning` and `info` do not. */
  kind: 'error' | 'warning' | 'info';
  /** The exact upstream message where upstream has one. */
  message: string;
  /** Where in the document. */
  path: JsonPath;
  /** Name of the upstream error (config/shared/errors), when it comes from there. */
  name?: string | null;
  /** 1-based line in the parsed text (parseConfig only). */
  line?: number;
  /** 1-based column in the parsed text (parseConfig only). */
  column?: number;
}
