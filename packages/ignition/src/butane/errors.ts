/**
 * Butane messages (coreos/butane config/common/errors.go), the report entry type, the typed error
 * and upstream's plain report format.
 */

/** Upstream message texts, keyed by their Go identifier in config/common/errors.go. */
export const BUTANE_MESSAGES = {
  ErrNoVariant: 'error parsing variant; must be specified',
  ErrInvalidVersion: 'error parsing version; must be a valid semver',
  ErrInvalidSourceConfig: 'source config is invalid',
  ErrInvalidGeneratedConfig: 'config generated was invalid',
  ErrRhcosVariantUnsupported:
    'rhcos variant has been removed; use openshift variant instead: https://coreos.github.io/butane/upgrading-openshift/',
  ErrTooManyResourceSources: 'only one of the following can be set: inline, local, source',
  ErrFilesDirEscape: 'local file path traverses outside the files directory',
  ErrFileType: 'trees may only contain files, directories, and symlinks',
  ErrNodeExists: 'matching filesystem node has existing contents or different type',
  ErrNoFilesDir: 'local file paths are relative to a files directory that must be specified with -d/--files-dir',
  ErrTreeNotDirectory: 'root of tree must be a directory',
  ErrTreeNoLocal: 'local is required',
  ErrDecimalMode: 'unreasonable mode would be reasonable if specified in octal; remember to add a leading zero',
  ErrTooManySystemdSources: 'only one of the following can be set: contents, contents_local',
  ErrQuadletBadExtension:
    'unsupported file extension for quadlet: must be one of .container, .volume, .network, .kube, .image, .build, .pod, or .artifact',
  ErrTemplateInstanceCannotHaveContents: 'template instances cannot have contents or contents_local',
  ErrMountUnitNoPath: 'path is required if with_mount_unit is true and format is not swap',
  ErrMountUnitNoFormat: 'format is required if with_mount_unit is true',
  ErrMountPointForbidden: 'path must be under /etc or /var if with_mount_unit is true',
  ErrUnknownBootDeviceLayout: 'layout must be one of: aarch64, ppc64le, s390x-eckd, s390x-virt, s390x-zfcp, x86_64',
  ErrUnknownBootDeviceLayoutLegacy: 'layout must be one of: aarch64, ppc64le, x86_64',
  ErrTooFewMirrorDevices: 'mirroring requires at least two devices',
  ErrMirrorRequiresLayout: 'boot_device.layout should be specified when boot_device.mirror is specified',
  ErrNoLuksBootDevice: 'device is required for layouts: s390x-eckd, s390x-zfcp',
  ErrMirrorNotSupport: 'mirroring not supported on layouts: s390x-eckd, s390x-zfcp, s390x-virt',
  ErrLuksBootDeviceBadName:
    'device name must start with /dev/dasd on s390x-eckd layout or /dev/sd on s390x-zfcp layout',
  ErrCexArchitectureMismatch: 'when using cex the targeted architecture must match s390x',
  ErrCexNotSupported: 'cex is not currently supported on the target platform',
  ErrNoLuksMethodSpecified: 'no method specified for luks',
  ErrReuseByLabel:
    'partitions cannot be reused by label; number must be specified except on boot disk (/dev/disk/by-id/coreos-boot-disk) or when wipe_table is true',
  ErrWrongPartitionNumber: 'incorrect partition number; a new partition will be created using reserved label',
  ErrRootTooSmall: 'root should have 8GiB of space assigned',
  ErrRootConstrained:
    'root partition cannot expand; it is set to fill available space but is followed by an auto-positioned partition',
  ErrFieldElided: 'field ignored in raw mode',
  ErrNameRequired: 'metadata.name is required',
  ErrRoleRequired: 'machineconfiguration.openshift.io/role label is required',
  ErrInvalidKernelType: 'must be empty, "default", or "realtime"',
  ErrBtrfsSupport: 'btrfs is not supported in this spec version',
  ErrFilesystemNoneSupport: 'format "none" is not supported in this spec version',
  ErrFileSchemeSupport: 'file contents source must be data URL in this spec version',
  ErrFileAppendSupport: 'appending to files is not supported in this spec version',
  ErrFileCompressionSupport: 'file compression is not supported in this spec version',
  ErrFileHeaderSupport: 'file HTTP headers are not supported in this spec version',
  ErrFileSpecialModeSupport: 'special mode bits are not supported in this spec version',
  ErrGroupSupport: 'groups are not supported in this spec version',
  ErrUserFieldSupport:
    'fields other than "name", "ssh_authorized_keys", and "password_hash" (4.13.0+) are not supported in this spec version',
  ErrUserNameSupport: 'users other than "core" are not supported in this spec version',
  ErrKernelArgumentSupport:
    'this section cannot be used for kernel arguments in this spec version; use openshift.kernel_arguments instead',
  ErrMissingKernelArgumentCex:
    "'rd.luks.key=/etc/luks/cex.key' must be set as kernel argument when CEX is enabled for the boot device",
  ErrClevisSupport: 'clevis is not supported in this spec version',
  ErrDirectorySupport: 'directories are not supported in this spec version',
  ErrDiskSupport: 'disk customization is not supported in this spec version',
  ErrFilesystemSupport: 'filesystem customization is not supported in this spec version',
  ErrLinkSupport: 'links are not supported in this spec version',
  ErrLuksSupport: 'luks is not supported in this spec version',
  ErrRaidSupport: 'raid is not supported in this spec version',
  ErrGrubUserNameNotSpecified: 'field "name" is required',
  ErrGrubPasswordNotSpecified: 'field "password_hash" is required',
  ErrGeneralKernelArgumentSupport: 'kernel argument customization is not supported in this spec version',
  ErrUnkownIgnitionVersion: 'skipping validation for the merge/replace ignition config due to an unkown version',
  // from coreos/ignition config/shared/errors, used by Butane's boot_device validation
  ErrCexWithClevis: 'cannot use cex with clevis',
} as const;

/** Name of a Butane message. */
export type ButaneMessageName = keyof typeof BUTANE_MESSAGES;

/** One finding about a Butane config. */
export interface ButaneReportEntry {
  kind: 'error' | 'warning';
  message: string;
  /** Upstream's context path, e.g. `$.storage.files.0.contents.local`. */
  path: string;
  /** 1-based line of the YAML node the path points at (or its deepest existing ancestor). */
  line?: number;
  /** 1-based column of that node. */
  column?: number;
}

/** Codes of {@link ButaneError}. */
export type ButaneErrorCode =
  | 'BUTANE_INVALID'
  | 'BUTANE_UNKNOWN_VARIANT'
  | 'BUTANE_PARSE'
  | 'BUTANE_NO_VARIANT'
  | 'BUTANE_INVALID_VERSION'
  | 'BUTANE_STRICT'
  | 'BUTANE_TOO_LARGE';

/** What the user can do about each error code. */
const HINTS: Record<ButaneErrorCode, string> = {
  BUTANE_INVALID: 'fix the entries of the report (each names the field, line and column)',
  BUTANE_UNKNOWN_VARIANT:
    'use a variant and version upstream Butane supports (experimental versions need the experimental option)',
  BUTANE_PARSE: 'fix the YAML at the given line',
  BUTANE_NO_VARIANT: 'add a top-level "variant:" (fcos or openshift)',
  BUTANE_INVALID_VERSION: 'set "version:" to a semantic version such as 1.5.0 or 4.17.0',
  BUTANE_STRICT: 'fix the warnings or translate without strict',
  BUTANE_TOO_LARGE: 'split the config or reference large payloads with contents.local',
};

/** A Butane config that could not be translated. `report` holds every finding when there is a report. */
export class ButaneError extends Error {
  override readonly name = 'ButaneError';
  /** What to do about it. */
  readonly hint: string;
  /** The upstream error text alone (the message without the report lines). */
  readonly summary: string;
  constructor(
    readonly code: ButaneErrorCode,
    message: string,
    readonly report: ButaneReportEntry[] = [],
    /** Source file name when known. */
    readonly file?: string,
  ) {
    super(report.length > 0 ? `${message}\n${formatButaneReport(report)}` : message);
    this.hint = HINTS[code];
    this.summary = message;
  }
}

/** Upstream's plain report text: one `error at $.path, line L col C: message` line per entry. */
export function formatButaneReport(report: readonly ButaneReportEntry[]): string {
  return report
    .map((e) => {
      const pos = e.line !== undefined && e.column !== undefined ? `line ${e.line} col ${e.column}` : '';
      const hasPath = e.path !== '' && e.path !== '$';
      let at = '';
      if (pos !== '' && hasPath) at = ` at ${e.path}, ${pos}`;
      else if (pos !== '') at = ` at ${pos}`;
      else if (hasPath) at = ` at ${e.path}`;
      return `${e.kind}${at}: ${e.message}`;
    })
    .join('\n');
}
