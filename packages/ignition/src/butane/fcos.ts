/** config/fcos/v1_N translate.go: boot_device (LUKS, mirror), grub users and partition warnings. */
import { obj, list, str } from './util.js';
import type { JObj, TxContext } from './base.js';
import type { BObj, CPath } from './decode.js';
import { BUTANE_MESSAGES as M } from './errors.js';
import { makeDataURL } from './files.js';
import { mergeRendered } from './storage.js';
import { TranslationSet } from './tset.js';

const RESERVED = '8DA63339-0007-60C0-C436-083AC8230908';
const BIOS = '21686148-6449-6E6F-744E-656564454649';
const PREP = '9E1A2D38-C612-4316-AA26-8B49521E5A8B';
const ESP = 'C12A7328-F81F-11D2-BA4B-00A0C93EC93B';

function layoutParts(layout: string | undefined): { bios: boolean; efi: boolean; prep: boolean } {
  if (layout === undefined || layout === 'x86_64') return { bios: true, efi: true, prep: false };
  if (layout === 'aarch64') return { bios: false, efi: true, prep: false };
  if (layout === 'ppc64le') return { bios: false, efi: false, prep: true };
  return { bios: false, efi: false, prep: false };
}

function mirrorDisks(devices: string[], layout: string | undefined, rendered: JObj, ts: TranslationSet): void {
  const want = layoutParts(layout);
  const disks: JObj[] = [];
  const filesystems = rendered['filesystems'] as JObj[];
  devices.forEach((device, i) => {
    const n = disks.length + 1;
    const parts: JObj[] = [];
    if (want.bios) parts.push({ label: `bios-${n}`, sizeMiB: 1, typeGuid: BIOS });
    else if (want.prep) parts.push({ label: `prep-${n}`, sizeMiB: 4, typeGuid: PREP });
    else parts.push({ label: `reserved-${n}`, sizeMiB: 1, typeGuid: RESERVED });
    if (want.efi) parts.push({ label: `esp-${n}`, sizeMiB: 127, typeGuid: ESP });
    else parts.push({ label: `reserved-${n}`, sizeMiB: 1, typeGuid: RESERVED });
    parts.push({ label: `boot-${n}`, sizeMiB: 384 }, { label: `root-${n}` });
    const disk = { device, partitions: parts, wipeTable: true };
    ts.addFromCommonSource(['boot_device', 'mirror', 'devices', i], ['storage', 'disks', disks.length], disk);
    disks.push(disk);
    if (want.efi) {
      const esp = {
        device: `/dev/disk/by-partlabel/esp-${n}`,
        format: 'vfat',
        label: `esp-${n}`,
        wipeFilesystem: true,
      };
      ts.addFromCommonSource(
        ['boot_device', 'mirror', 'devices', i],
        ['storage', 'filesystems', filesystems.length],
        esp,
      );
      filesystems.push(esp);
    }
  });
  ts.add(['boot_device', 'mirror', 'devices'], ['storage', 'disks']);
  const raidDevices = (prefix: string): string[] => disks.map((_d, i) => `/dev/disk/by-partlabel/${prefix}-${i + 1}`);
  const raid = [
    { devices: raidDevices('boot'), level: 'raid1', name: 'md-boot', options: ['--metadata=1.0'] },
    { devices: raidDevices('root'), level: 'raid1', name: 'md-root' },
  ];
  ts.addFromCommonSource(['boot_device', 'mirror'], ['storage', 'raid'], raid);
  const boot = { device: '/dev/md/md-boot', format: 'ext4', label: 'boot', wipeFilesystem: true };
  ts.addFromCommonSource(['boot_device', 'mirror'], ['storage', 'filesystems', filesystems.length], boot);
  filesystems.push(boot);
  rendered['disks'] = disks;
  rendered['raid'] = raid;
}

function luksDevice(bd: BObj, layout: string | undefined, wantMirror: boolean): string {
  const device = str(obj(bd['luks'])['device']);
  if (layout === 's390x-eckd') return `${device}2`;
  if (layout === 's390x-zfcp') return `${device}4`;
  return wantMirror ? '/dev/md/md-root' : '/dev/disk/by-partlabel/root';
}

function rootLuks(bd: BObj, layout: string | undefined, wantMirror: boolean, ts: TranslationSet): JObj {
  const l = obj(bd['luks']);
  const lp: CPath = ['boot_device', 'luks'];
  const rp: CPath = ['storage', 'luks', 0];
  const entry: JObj = {};
  if (l['cex'] !== undefined && obj(l['cex'])['enabled'] === true) {
    entry['cex'] = { enabled: true };
    ts.add([...lp, 'cex', 'enabled'], [...rp, 'cex', 'enabled']);
    ts.add(lp, [...rp, 'cex']);
  } else {
    const clevis: JObj = {};
    const tang = list(l['tang']).map((t, i) => {
      const o = obj(t);
      const out: JObj = {};
      for (const k of ['thumbprint', 'url', 'advertisement']) {
        if (o[k] !== undefined) {
          out[k] = o[k];
          ts.add([...lp, 'tang', i, k], [...rp, 'clevis', 'tang', i, k]);
        }
      }
      ts.add([...lp, 'tang', i], [...rp, 'clevis', 'tang', i]);
      return out;
    });
    if (tang.length > 0) {
      clevis['tang'] = tang;
      ts.add([...lp, 'tang'], [...rp, 'clevis', 'tang']);
    }
    for (const k of ['threshold', 'tpm2']) {
      if (l[k] !== undefined) {
        clevis[k] = l[k];
        ts.add([...lp, k], [...rp, 'clevis', k]);
      }
    }
    entry['clevis'] = clevis;
    ts.add(lp, [...rp, 'clevis']);
  }
  entry['device'] = luksDevice(bd, layout, wantMirror);
  if (l['discard'] !== undefined) {
    entry['discard'] = l['discard'];
    ts.add([...lp, 'discard'], [...rp, 'discard']);
  }
  entry['label'] = 'luks-root';
  entry['name'] = 'root';
  entry['wipeVolume'] = true;
  for (const f of ['device', 'label', 'name', 'wipeVolume']) ts.add(lp, [...rp, f]);
  ts.add(lp, rp);
  ts.add(lp, ['storage', 'luks']);
  return entry;
}

/** `processBootDevice`: desugars boot_device into disks, raid, luks and filesystems. */
export function processBootDevice(source: BObj, config: JObj, cx: TxContext): JObj {
  const bd = obj(source['boot_device']);
  const l = obj(bd['luks']);
  const wantLuks = l['tpm2'] === true || list(l['tang']).length > 0 || obj(l['cex'])['enabled'] === true;
  const devices = list(obj(bd['mirror'])['devices']).map(String);
  const wantMirror = devices.length > 0;
  if (!wantLuks && !wantMirror) return config;
  const layout = typeof bd['layout'] === 'string' ? bd['layout'] : undefined;
  const ts = new TranslationSet();
  const storage: JObj = { filesystems: [] };
  if (wantMirror) mirrorDisks(devices, layout, storage, ts);
  if (wantLuks) storage['luks'] = [rootLuks(bd, layout, wantMirror, ts)];
  const root = {
    device: wantLuks ? '/dev/mapper/root' : '/dev/md/md-root',
    format: 'xfs',
    label: 'root',
    wipeFilesystem: true,
  };
  const filesystems = storage['filesystems'] as JObj[];
  ts.addFromCommonSource(['boot_device'], ['storage', 'filesystems', filesystems.length], root);
  ts.add(['boot_device'], ['storage', 'filesystems']);
  filesystems.push(root);
  ts.add(['boot_device'], ['storage']);
  return mergeRendered({ ignition: { version: cx.profile.ignitionVersion }, storage }, ts, config, cx);
}

function reservedLabelMisnumbered(label: string, n: number): boolean {
  return (
    (label === 'BIOS-BOOT' && n !== 1) ||
    (label === 'PowerPC-PReP-boot' && n !== 1) ||
    (label === 'EFI-SYSTEM' && n !== 2) ||
    (label === 'boot' && n !== 3) ||
    (label === 'root' && n !== 4)
  );
}

/** Reserved-label warnings on the translated disks (every fcos version) and root-size ones (fcos 1.3+). */
export function partitionWarnings(config: JObj, cx: TxContext): void {
  const disks = ((config['storage'] as JObj | undefined)?.['disks'] ?? []) as JObj[];
  disks.forEach((disk, i) => {
    const parts = (disk['partitions'] ?? []) as JObj[];
    parts.forEach((part, p) => {
      const label = part['label'];
      if (typeof label !== 'string') return;
      const base: CPath = ['storage', 'disks', i, 'partitions', p];
      if (cx.profile.fcos >= 3 && label === 'root') {
        const size = typeof part['sizeMiB'] === 'number' ? part['sizeMiB'] : 0;
        if (size === 0) {
          const constrained = parts.some(
            (o, idx) => idx !== p && (typeof o['startMiB'] !== 'number' || o['startMiB'] === 0),
          );
          if (constrained)
            cx.findings.push({
              kind: 'warning',
              message: M.ErrRootConstrained,
              path: cx.ts.toYaml([...base, 'label']),
            });
        } else if (size < 8192) {
          cx.findings.push({ kind: 'warning', message: M.ErrRootTooSmall, path: cx.ts.toYaml([...base, 'size_mib']) });
        }
      }
      const n = typeof part['number'] === 'number' ? part['number'] : 0;
      if (disk['wipeTable'] !== true && reservedLabelMisnumbered(label, n)) {
        cx.findings.push({
          kind: 'warning',
          message: M.ErrWrongPartitionNumber,
          path: cx.ts.toYaml([...base, 'label']),
        });
      }
    });
  });
}

/** `handleUserGrubCfg` (fcos 1.5+): /boot mount and an appended /boot/grub2/user.cfg. */
export function processGrub(source: BObj, config: JObj, cx: TxContext): JObj {
  const users = list(obj(source['grub'])['users']).map(obj);
  if (users.length === 0) return config;
  const names = users.map((u) => str(u['name']));
  const cmds = users.map((u) => `password_pbkdf2 ${str(u['name'])} ${str(u['password_hash'])}`);
  const text = `# Generated by Butane\n\nset superusers="${names.join(' ')}"\n${cmds.join('\n')}\n`;
  const { url, compression } = makeDataURL(Buffer.from(text, 'utf8'), undefined, !cx.opts.noCompression);
  const append: JObj = { source: url };
  if (compression !== undefined) append['compression'] = compression;
  const storage = {
    files: [{ path: '/boot/grub2/user.cfg', append: [append] }],
    filesystems: [{ device: '/dev/disk/by-label/boot', format: 'ext4', path: '/boot' }],
  };
  const ts = new TranslationSet();
  ts.addFromCommonSource(['grub', 'users'], ['storage'], storage);
  return mergeRendered({ ignition: { version: cx.profile.ignitionVersion }, storage }, ts, config, cx);
}
