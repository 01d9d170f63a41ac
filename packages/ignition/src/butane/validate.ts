/**
 * Source validation: the `Validate(path)` methods of upstream's Butane structs (base/v0_N/validate.go,
 * config/fcos/v1_N/validate.go, config/openshift/v4_N/validate.go), run pre-order over the decoded tree.
 */
import type { BObj, BValue, CPath } from './decode.js';
import { BUTANE_MESSAGES as M, type ButaneMessageName } from './errors.js';
import { structFields, type FieldType, type StructName } from './schema.js';
import type { ButaneProfile } from './versions.js';
import { goSemver } from '../spec/goparse.js';
import { validate as validateIgnition } from '../spec/validate.js';

/** A finding with its context path (converted to a report entry later). */
export interface Finding {
  kind: 'error' | 'warning';
  message: string;
  path: CPath;
}

type Check = (v: BObj, path: CPath, p: ButaneProfile, out: Finding[]) => void;

const err = (out: Finding[], path: CPath, name: ButaneMessageName | 'ErrInvalid'): void => {
  out.push({ kind: 'error', message: name === 'ErrInvalid' ? 'config is not valid' : M[name], path });
};
const warn = (out: Finding[], path: CPath, name: ButaneMessageName): void => {
  out.push({ kind: 'warning', message: M[name], path });
};

const str = (v: BValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: BValue | undefined): number | undefined => (typeof v === 'number' ? v : undefined);
const isTrue = (v: BValue | undefined): boolean => v === true;
const obj = (v: BValue | undefined): BObj => (v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : {});
const list = (v: BValue | undefined): BValue[] => (Array.isArray(v) ? v : []);

function decimalToOctal(mode: number): number | null {
  if (mode < 0 || mode > 7777) return null;
  let ret = 0;
  for (let div = 1000; div > 0; div = Math.floor(div / 10)) {
    const digit = Math.floor(mode / div) % 10;
    if (digit > 7) return null;
    ret = (ret << 3) | digit;
  }
  return ret;
}

function permsTypical(mode: number): { ok: boolean; hadW: boolean; hadX: boolean } {
  const perms = [mode & 0o7, (mode & 0o70) >> 3, (mode & 0o700) >> 6];
  let hadR = false;
  let hadW = false;
  let hadX = false;
  for (const perm of perms) {
    const r = (perm & 4) !== 0;
    const w = (perm & 2) !== 0;
    const x = (perm & 1) !== 0;
    if ((!r && hadR) || (!w && hadW) || (!x && hadX)) return { ok: false, hadW, hadX };
    if (x && hadR && !hadX) return { ok: false, hadW, hadX };
    if ((w || x) && !r) return { ok: false, hadW, hadX };
    hadR ||= r;
    hadW ||= w;
    hadX ||= x;
  }
  return { ok: hadR, hadW, hadX };
}

/** base/util `isTypicalMode`. */
export function isTypicalMode(mode: number, directory: boolean): boolean {
  if (mode === 0) return true;
  const { ok, hadW, hadX } = permsTypical(mode);
  if (!ok) return false;
  if (directory) {
    if (!hadX) return false;
    if ((mode & 0o4000) !== 0) return false;
    if ((mode & 0o3000) !== 0 && !hadW) return false;
  } else {
    if ((mode & 0o6000) !== 0) {
      if (!hadX) return false;
      if ((mode & 2) !== 0) return false;
    }
    if ((mode & 0o1000) !== 0) return false;
  }
  return true;
}

/** base/util `CheckForDecimalMode`: true when the mode looks like octal digits written in decimal. */
export function looksDecimal(mode: number, directory: boolean): boolean {
  const corrected = decimalToOctal(mode);
  if (corrected === null) return false;
  return !isTypicalMode(mode, directory) && isTypicalMode(corrected, directory);
}

/**
 * base/v0_N `ValidateIgnitionConfig`: a config given inline or local under `ignition.config` is parsed and, when
 * its version is the one this Butane version produces, validated as Ignition (entries under `base`); another
 * version is skipped with a warning. Returns false when it is not JSON (the parse error is at `errPath`).
 */
export function validateEmbeddedIgnition(
  base: CPath,
  errPath: CPath,
  raw: string,
  p: ButaneProfile,
  out: Finding[],
): boolean {
  let cfg: unknown;
  try {
    cfg = JSON.parse(raw);
  } catch (e) {
    out.push({ kind: 'error', message: (e as Error).message, path: errPath });
    return false;
  }
  const version = obj(obj(cfg as BValue)['ignition'])['version'];
  const v = typeof version === 'string' ? goSemver(version) : null;
  if (v && version !== p.ignitionVersion) {
    warn(out, [...base, 'version'], 'ErrUnkownIgnitionVersion');
    return true;
  }
  for (const e of validateIgnition(cfg, { version: p.ignitionVersion, experimental: p.experimental }).entries) {
    if (e.kind === 'error' || e.kind === 'warning')
      out.push({ kind: e.kind, message: e.message, path: [...base, ...e.path] });
  }
  return true;
}

const checkResource: Check = (v, path, p, out) => {
  let field = '';
  let sources = 0;
  if (v['local'] !== undefined) {
    sources++;
    field = 'local';
  }
  if (v['inline'] !== undefined) {
    sources++;
    field = 'inline';
  }
  if (v['source'] !== undefined) {
    sources++;
    field = 'source';
  }
  if (sources > 1) {
    err(out, [...path, p.base < 2 ? 'inline' : field], 'ErrTooManyResourceSources');
    return;
  }
  const inline = v['inline'];
  if (
    p.base >= 2 &&
    path[0] === 'ignition' &&
    path[1] === 'config' &&
    field === 'inline' &&
    typeof inline === 'string'
  ) {
    if (!validateEmbeddedIgnition(path, [...path, 'inline'], inline, p, out))
      err(out, [...path, 'inline'], 'ErrInvalid');
  }
};

const checkFilesystem: Check = (v, path, _p, out) => {
  if (!isTrue(v['with_mount_unit'])) return;
  const format = str(v['format']);
  if (format === undefined || format === '') err(out, [...path, 'format'], 'ErrMountUnitNoFormat');
  else if (format !== 'swap' && (str(v['path']) ?? '') === '') err(out, [...path, 'path'], 'ErrMountUnitNoPath');
};

const checkMode =
  (directory: boolean): Check =>
  (v, path, _p, out) => {
    const mode = num(v['mode']);
    if (mode !== undefined && looksDecimal(mode, directory)) warn(out, [...path, 'mode'], 'ErrDecimalMode');
  };

const checkTree: Check = (v, path, _p, out) => {
  if ((str(v['local']) ?? '') === '') err(out, path, 'ErrTreeNoLocal');
};

const checkUnitSources: Check = (v, path, _p, out) => {
  if (v['contents_local'] !== undefined && v['contents'] !== undefined)
    err(out, [...path, 'contents_local'], 'ErrTooManySystemdSources');
};

const QUADLET_EXTENSIONS = ['.container', '.volume', '.network', '.kube', '.image', '.build', '.pod', '.artifact'];

/** base/v0_8_exp `isTemplateInstance`: `foo@bar.container` is an instance of `foo@.container`. */
export function quadletTemplate(name: string): string | undefined {
  const at = name.indexOf('@');
  if (at === -1) return undefined;
  const dot = name.lastIndexOf('.');
  if (dot === -1 || at + 1 === dot) return undefined;
  return `${name.slice(0, at)}@.${name.slice(dot + 1)}`;
}

const checkQuadlet: Check = (v, path, _p, out) => {
  const name = str(v['name']) ?? '';
  if (!QUADLET_EXTENSIONS.some((e) => name.endsWith(e))) {
    err(out, [...path, 'name'], 'ErrQuadletBadExtension');
    return;
  }
  if (quadletTemplate(name) !== undefined) {
    if (v['contents'] !== undefined) err(out, [...path, 'contents'], 'ErrTemplateInstanceCannotHaveContents');
    if (v['contents_local'] !== undefined)
      err(out, [...path, 'contents_local'], 'ErrTemplateInstanceCannotHaveContents');
  } else {
    checkUnitSources(v, path, _p, out);
  }
};

const DASD = /\/dev\/dasd[a-z]$/;
const SD = /\/dev\/sd[a-z]$/;

function checkLayout(v: BObj, path: CPath, p: ButaneProfile, out: Finding[]): void {
  const layout = str(v['layout']);
  const luks = obj(v['luks']);
  const mirrorDevices = list(obj(v['mirror'])['devices']);
  if (layout === undefined) return;
  if (p.fcos < 6) {
    if (!['aarch64', 'ppc64le', 'x86_64'].includes(layout))
      err(out, [...path, 'layout'], 'ErrUnknownBootDeviceLayoutLegacy');
    return;
  }
  const device = str(luks['device']) ?? '';
  if (layout === 's390x-eckd' || layout === 's390x-zfcp') {
    if (device === '') err(out, [...path, 'layout'], 'ErrNoLuksBootDevice');
    else if (!(layout === 's390x-eckd' ? DASD : SD).test(device))
      err(out, [...path, 'layout'], 'ErrLuksBootDeviceBadName');
  } else if (!['aarch64', 'ppc64le', 'x86_64', 's390x-virt'].includes(layout)) {
    err(out, [...path, 'layout'], 'ErrUnknownBootDeviceLayout');
  }
  if (layout.startsWith('s390x') && mirrorDevices.length > 0) err(out, [...path, 'layout'], 'ErrMirrorNotSupport');
}

const checkBootDevice: Check = (v, path, p, out) => {
  const mirrorDevices = list(obj(v['mirror'])['devices']);
  const layout = str(v['layout']);
  if (mirrorDevices.length > 0 && layout === undefined) {
    // a warning up to fcos 1.6, an error from 1.7
    (p.fcos >= 7 ? err : warn)(out, [...path, 'mirror'], 'ErrMirrorRequiresLayout');
  }
  checkLayout(v, path, p, out);
  const luks = obj(v['luks']);
  if (p.fcos >= 6 && isTrue(obj(luks['cex'])['enabled'])) {
    if (layout === undefined) err(out, [...path, 'luks', 'cex'], 'ErrCexArchitectureMismatch');
    else if (!layout.startsWith('s390x')) err(out, [...path, 'layout'], 'ErrCexArchitectureMismatch');
    if (list(luks['tang']).length > 0 || isTrue(luks['tpm2'])) err(out, [...path, 'luks'], 'ErrCexWithClevis');
  }
  if (mirrorDevices.length === 1) err(out, [...path, 'mirror', 'devices'], 'ErrTooFewMirrorDevices');
};

const checkBootDeviceLuks: Check = (v, path, p, out) => {
  if (p.fcos < 6 || (str(v['device']) ?? '') === '') return;
  const tangOk = list(v['tang']).some((t) => Object.keys(obj(t)).length > 0);
  if (!tangOk && !isTrue(v['tpm2']) && !isTrue(obj(v['cex'])['enabled']))
    err(out, [...path, 'luks'], 'ErrNoLuksMethodSpecified');
};

const checkGrubUser: Check = (v, path, _p, out) => {
  if ((str(v['name']) ?? '') === '') err(out, [...path, 'name'], 'ErrGrubUserNameNotSpecified');
  if ((str(v['password_hash']) ?? '') === '') err(out, [...path, 'password_hash'], 'ErrGrubPasswordNotSpecified');
};

const checkMetadata: Check = (v, path, _p, out) => {
  if ((str(v['name']) ?? '') === '') err(out, [...path, 'name'], 'ErrNameRequired');
  if ((str(obj(v['labels'])['machineconfiguration.openshift.io/role']) ?? '') === '')
    err(out, [...path, 'labels'], 'ErrRoleRequired');
};

const checkOpenShift: Check = (v, path, _p, out) => {
  const kt = str(v['kernel_type']);
  if (kt !== undefined && !['', 'default', 'realtime'].includes(kt))
    err(out, [...path, 'kernel_type'], 'ErrInvalidKernelType');
};

const CEX_KARG = 'rd.luks.key=/etc/luks/cex.key';

function checkOpenShiftConfig(v: BObj, path: CPath, out: Finding[]): void {
  const kargs = list(obj(v['openshift'])['kernel_arguments']);
  const bootCex = isTrue(obj(obj(obj(v['boot_device'])['luks'])['cex'])['enabled']);
  if (bootCex && !kargs.includes(CEX_KARG))
    err(out, [...path, 'openshift', 'kernel_arguments'], 'ErrMissingKernelArgumentCex');
  const rootCex = list(obj(v['storage'])['luks']).some(
    (l) => isTrue(obj(obj(l)['cex'])['enabled']) && obj(l)['name'] === 'root',
  );
  if (rootCex && !kargs.includes(CEX_KARG))
    err(out, [...path, 'openshift', 'kernel_arguments'], 'ErrMissingKernelArgumentCex');
}

const ALLOWED_MOUNT = /^\/(etc|var)(\/|$)/;

function checkFcosConfig(v: BObj, path: CPath, out: Finding[]): void {
  const storage = obj(v['storage']);
  const mirror = new Set(list(obj(obj(v['boot_device'])['mirror'])['devices']));
  list(storage['disks']).forEach((d, i) => {
    const disk = obj(d);
    const dev = str(disk['device']) ?? '';
    if (dev === '/dev/disk/by-id/coreos-boot-disk' || isTrue(disk['wipe_table']) || mirror.has(dev)) return;
    list(disk['partitions']).forEach((pt, j) => {
      const part = obj(pt);
      if ((num(part['number']) ?? 0) === 0 && part['label'] !== undefined) {
        warn(out, [...path, 'storage', 'disks', i, 'partitions', j, 'number'], 'ErrReuseByLabel');
      }
    });
  });
  list(storage['filesystems']).forEach((fs, i) => {
    const fso = obj(fs);
    const fsPath = str(fso['path']);
    if (fsPath !== undefined && !ALLOWED_MOUNT.test(fsPath) && isTrue(fso['with_mount_unit'])) {
      err(out, [...path, 'storage', 'filesystems', i, 'path'], 'ErrMountPointForbidden');
    }
  });
}

const checkConfig: Check = (v, path, p, out) => {
  if (p.variant === 'openshift' && p.openshift >= 19) checkOpenShiftConfig(v, path, out);
  if (p.fcos >= 6) checkFcosConfig(v, path, out);
};

const CHECKS: Partial<Record<StructName, Check[]>> = {
  Config: [checkConfig],
  Resource: [checkResource],
  Filesystem: [checkFilesystem],
  Directory: [checkMode(true)],
  File: [checkMode(false)],
  Tree: [checkTree],
  Unit: [checkUnitSources],
  Dropin: [checkUnitSources],
  Quadlet: [checkQuadlet],
  BootDevice: [checkBootDevice],
  BootDeviceLuks: [checkBootDeviceLuks],
  GrubUser: [checkGrubUser],
  Metadata: [checkMetadata],
  OpenShift: [checkOpenShift],
};

function walk(v: BValue | undefined, t: FieldType, path: CPath, p: ButaneProfile, out: Finding[]): void {
  // non-pointer Go structs are validated even when absent (zero value); nil lists are not
  if (typeof t === 'string') return;
  if ('list' in t) {
    list(v).forEach((item, i) => {
      walk(item, t.list, [...path, i], p, out);
    });
    return;
  }
  const o = obj(v);
  for (const check of CHECKS[t.struct] ?? []) check(o, path, p, out);
  for (const fd of structFields(t.struct, p)) walk(o[fd.yaml], fd.type, [...path, fd.yaml], p, out);
}

/** Runs every source check over the decoded config. */
export function validateSource(config: BObj, p: ButaneProfile): Finding[] {
  const out: Finding[] = [];
  walk(config, { struct: 'Config' }, [], p, out);
  return out;
}
