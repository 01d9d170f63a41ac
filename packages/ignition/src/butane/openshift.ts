/** config/openshift/v4_N translate.go: MachineConfig wrapping, field filters and MCO support checks. */
import { obj } from './util.js';
import type { JObj } from './base.js';
import type { BObj, BValue, CPath } from './decode.js';
import { BUTANE_MESSAGES as M, type ButaneMessageName } from './errors.js';
import type { TranslationSet } from './tset.js';
import type { ButaneProfile } from './versions.js';

/** A finding in output (JSON) space, relative to the MachineConfig. */
export interface JsonFinding {
  kind: 'error' | 'warning';
  message: string;
  path: CPath;
}

/** Upstream `ROLE_LABEL_KEY`. */
export const ROLE_LABEL_KEY = 'machineconfiguration.openshift.io/role';

/** Builds the MachineConfig around a translated Ignition config. */
export function wrapMachineConfig(source: BObj, ignition: JObj): JObj {
  const md = obj(source['metadata']);
  const os = obj(source['openshift']);
  const labels = obj(md['labels']);
  const metadata: JObj = { name: typeof md['name'] === 'string' ? md['name'] : '' };
  if (Object.keys(labels).length > 0) metadata['labels'] = { ...labels };
  const spec: JObj = { config: ignition };
  const kargs = os['kernel_arguments'];
  const ext = os['extensions'];
  if (Array.isArray(kargs) && kargs.length > 0) spec['kernelArguments'] = kargs;
  if (Array.isArray(ext) && ext.length > 0) spec['extensions'] = ext;
  if (typeof os['fips'] === 'boolean') spec['fips'] = os['fips'];
  if (typeof os['kernel_type'] === 'string') spec['kernelType'] = os['kernel_type'];
  return { apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineConfig', metadata, spec };
}

const FIPS_CIPHER = '--cipher';

/**
 * openshift 4.8-4.19 `addLuksFipsOptions`: with `fips: true`, LUKS volumes without a cipher option get
 * `--cipher aes-cbc-essiv:sha256` (FIPS 140-2 does not allow the default XTS mode). Returns the
 * Ignition-space paths it added, for the translation set.
 */
export function addLuksFipsOptions(mc: JObj, p: ButaneProfile): CPath[] {
  const spec = mc['spec'] as JObj;
  if (p.openshift > 19 || spec['fips'] !== true) return [];
  const storage = ((spec['config'] as JObj)['storage'] ?? {}) as JObj;
  const added: CPath[] = [];
  const luks = Array.isArray(storage['luks']) ? (storage['luks'] as JObj[]) : [];
  luks.forEach((l, i) => {
    const options = Array.isArray(l['options']) ? (l['options'] as unknown[]).map(String) : [];
    if (options.some((o) => o === FIPS_CIPHER || o.startsWith(`${FIPS_CIPHER}=`) || o === '-c')) return;
    if (options.length === 0) added.push(['storage', 'luks', i, 'options']);
    added.push(
      ['storage', 'luks', i, 'options', options.length],
      ['storage', 'luks', i, 'options', options.length + 1],
    );
    l['options'] = [...options, FIPS_CIPHER, 'aes-cbc-essiv:sha256'];
  });
  return added;
}

/**
 * openshift 4.23 (experimental) `translateUserGrubCfg`: the MCO does not support `append`, so the grub sugar's
 * `/boot/grub2/user.cfg` (one append entry) gets it as its contents instead.
 */
export function grubUserCfgAsContents(ignition: JObj, p: ButaneProfile, ts: TranslationSet): void {
  if (p.openshift < 23) return;
  const files = ((ignition['storage'] as JObj | undefined)?.['files'] ?? []) as JObj[];
  const i = files.findIndex((f) => f['path'] === '/boot/grub2/user.cfg');
  const file = files[i];
  if (!file) return;
  const append = file['append'];
  if (!Array.isArray(append) || append.length !== 1) return;
  file['contents'] = append[0] as unknown;
  delete file['append'];
  ts.moveOutput(['storage', 'files', i, 'append', 0], ['storage', 'files', i, 'contents']);
}

/** YAML path of a MachineConfig-level output path (spec.config paths are mapped by the caller). */
export function mcFieldSource(path: CPath): CPath | undefined {
  const [a, b, c] = path;
  if (a === 'apiVersion' || a === 'kind') return ['version'];
  if (a === 'metadata') return path;
  if (a === 'spec' && b !== 'config') {
    if (b === undefined) return ['version'];
    const names: Record<string, string> = {
      kernelArguments: 'kernel_arguments',
      extensions: 'extensions',
      fips: 'fips',
      kernelType: 'kernel_type',
    };
    const name = names[String(b)];
    return name ? ['openshift', name, ...(c !== undefined ? [c] : [])] : undefined;
  }
  return undefined;
}

/** Raw mode: warnings for MachineConfig-only fields that the Ignition output drops. */
export function elidedFields(source: BObj): JsonFinding[] {
  const os = obj(source['openshift']);
  const out: JsonFinding[] = [];
  const add = (yaml: string, json: string): void => {
    if (os[yaml] !== undefined) out.push({ kind: 'warning', message: M.ErrFieldElided, path: ['spec', json] });
  };
  add('kernel_arguments', 'kernelArguments');
  add('extensions', 'extensions');
  add('fips', 'fips');
  add('kernel_type', 'kernelType');
  return out;
}

function filterMap(p: ButaneProfile): [string, ButaneMessageName][] {
  const out: [string, ButaneMessageName][] = [];
  if (p.openshift >= 14) out.push(['spec.config.kernelArguments', 'ErrKernelArgumentSupport']);
  out.push(['spec.config.passwd.groups', 'ErrGroupSupport']);
  const userFields = ['gecos', 'groups', 'homeDir', 'noCreateHome', 'noLogInit', 'noUserGroup'];
  if (p.openshift <= 12) userFields.push('passwordHash');
  userFields.push('primaryGroup', 'shell', 'shouldExist', 'system', 'uid');
  for (const f of userFields) out.push([`spec.config.passwd.users.${f}`, 'ErrUserFieldSupport']);
  out.push(
    ['spec.config.storage.directories', 'ErrDirectorySupport'],
    ['spec.config.storage.files.append', 'ErrFileAppendSupport'],
  );
  if (p.openshift <= 9) out.push(['spec.config.storage.files.contents.compression', 'ErrFileCompressionSupport']);
  out.push(
    ['spec.config.storage.files.contents.httpHeaders', 'ErrFileHeaderSupport'],
    ['spec.config.storage.links', 'ErrLinkSupport'],
  );
  return out;
}

function isEmptyValue(v: unknown, ignoreZero: boolean): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v).every((x) => isEmptyValue(x, false));
  return ignoreZero && (v === '' || v === 0 || v === false);
}

/** Upstream `FieldFilters.Verify` on the MachineConfig: errors for non-empty filtered fields. */
export function verifyFilters(mc: JObj, p: ButaneProfile): JsonFinding[] {
  const out: JsonFinding[] = [];
  for (const [filter, name] of filterMap(p)) {
    const segs = filter.split('.');
    const ignoreZero = filter === 'spec.config.storage.files.contents.compression';
    const walk = (v: unknown, i: number, path: CPath): void => {
      if (i === segs.length) {
        if (!isEmptyValue(v, ignoreZero)) out.push({ kind: 'error', message: M[name], path });
        return;
      }
      if (Array.isArray(v)) {
        v.forEach((x, j) => {
          walk(x, i, [...path, j]);
        });
        return;
      }
      if (v === null || typeof v !== 'object') return;
      const seg = segs[i] ?? '';
      walk((v as JObj)[seg], i + 1, [...path, seg]);
    };
    walk(mc, 0, []);
  }
  return out.sort((a, b) => comparePaths(a.path, b.path));
}

function comparePaths(a: CPath, b: CPath): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return 0;
  }
  return 0;
}

/** `validateRHCOSSupport` + `validateMCOSupport` on the MachineConfig. */
export function mcoSupport(mc: JObj, p: ButaneProfile): JsonFinding[] {
  const out: JsonFinding[] = [];
  const cfg = obj((mc['spec'] as BObj | undefined)?.['config']);
  const storage = obj(cfg['storage']);
  const fss = Array.isArray(storage['filesystems']) ? storage['filesystems'].map(obj) : [];
  const at = (...rest: CPath): CPath => ['spec', 'config', ...rest];
  fss.forEach((fs, i) => {
    if (fs['format'] === 'btrfs')
      out.push({ kind: 'error', message: M.ErrBtrfsSupport, path: at('storage', 'filesystems', i, 'format') });
  });
  if (p.openshift >= 14) {
    fss.forEach((fs, i) => {
      if (fs['format'] === 'none')
        out.push({
          kind: 'error',
          message: M.ErrFilesystemNoneSupport,
          path: at('storage', 'filesystems', i, 'format'),
        });
    });
  }
  const files = Array.isArray(storage['files']) ? storage['files'].map(obj) : [];
  files.forEach((file, i) => {
    const source = obj(file['contents'])['source'];
    if (typeof source === 'string') {
      const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(source);
      if ((m?.[1] ?? '').toLowerCase() !== 'data')
        out.push({
          kind: 'error',
          message: M.ErrFileSchemeSupport,
          path: at('storage', 'files', i, 'contents', 'source'),
        });
    }
    const mode = file['mode'];
    if (p.openshift >= 10 && typeof mode === 'number' && (mode & ~0o777) !== 0) {
      out.push({ kind: 'error', message: M.ErrFileSpecialModeSupport, path: at('storage', 'files', i, 'mode') });
    }
  });
  const users = Array.isArray(obj(cfg['passwd'])['users']) ? (obj(cfg['passwd'])['users'] as BValue[]).map(obj) : [];
  users.forEach((u, i) => {
    if (u['name'] !== 'core')
      out.push({ kind: 'error', message: M.ErrUserNameSupport, path: at('passwd', 'users', i, 'name') });
  });
  return out;
}
