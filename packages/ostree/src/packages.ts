import { OstreeError } from './errors.js';

/** The kernel types a MachineConfig can ask for. */
export type KernelType = 'default' | 'realtime' | '64k-pages';

/** Maps `""`/unknown to `default`, as the MCO does (`CanonicalizeKernelType`). */
export function canonicalizeKernelType(kernelType: string | null | undefined): KernelType {
  if (kernelType === 'realtime') return 'realtime';
  if (kernelType === '64k-pages') return '64k-pages';
  return 'default';
}

/** The kernel packages of each kernel type on one OS release. */
export type KernelPackages = Readonly<{
  default: readonly string[];
  realtime: readonly string[];
  '64k-pages': readonly string[];
}>;

/**
 * Packages removed (default kernel) and installed (realtime / 64k) by a kernel type switch on a RHEL 9 based host
 * (RHCOS 9, what release-4.20 ships): upstream's `getKernelPackagesForRelease` adds `kernel-rt-kvm` to the realtime
 * set unless the host is RHEL 10 based ({@link kernelPackagesFor}).
 */
export const KERNEL_PACKAGES: KernelPackages = Object.freeze({
  default: Object.freeze(['kernel', 'kernel-core', 'kernel-modules', 'kernel-modules-core', 'kernel-modules-extra']),
  realtime: Object.freeze(['kernel-rt-core', 'kernel-rt-modules', 'kernel-rt-modules-extra', 'kernel-rt-kvm']),
  '64k-pages': Object.freeze([
    'kernel-64k-core',
    'kernel-64k-modules',
    'kernel-64k-modules-core',
    'kernel-64k-modules-extra',
  ]),
});

const EL10_KERNEL_PACKAGES: KernelPackages = Object.freeze({
  ...KERNEL_PACKAGES,
  realtime: Object.freeze(KERNEL_PACKAGES.realtime.filter((p) => p !== 'kernel-rt-kvm')),
});

/** The kernel packages of the host's release: RHEL 10 based hosts have no `kernel-rt-kvm` (OCPBUGS-62925). */
export function kernelPackagesFor(el10: boolean): KernelPackages {
  return el10 ? EL10_KERNEL_PACKAGES : KERNEL_PACKAGES;
}

/**
 * True when an os-release file describes a RHEL 10 based CoreOS (upstream osrelease `IsEL10`): an EL family `ID`
 * (`rhcos`, `scos`, `rhel`, `centos`) whose RHEL version (`RHEL_VERSION`, else `VERSION_ID`) has major 10.
 */
export function isEL10(osRelease: string): boolean {
  const field = (k: string): string =>
    /^"?(.*?)"?$/.exec(new RegExp(`^${k}=(.*)$`, 'm').exec(osRelease)?.[1]?.trim() ?? '')?.[1] ?? '';
  if (!['rhcos', 'scos', 'rhel', 'centos'].includes(field('ID'))) return false;
  return /^10(\.|$)/.test(field('RHEL_VERSION') || field('VERSION_ID'));
}

/** The RHCOS extension → package map of the machine-config-operator (`SupportedExtensions`). */
export const SUPPORTED_EXTENSIONS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'two-node-ha': Object.freeze(['pacemaker', 'pcs', 'fence-agents-all']),
  ipsec: Object.freeze(['NetworkManager-libreswan', 'libreswan', 'openvswitch3.5-ipsec']),
  usbguard: Object.freeze(['usbguard']),
  kerberos: Object.freeze(['krb5-workstation', 'libkadm5']),
  'kernel-devel': Object.freeze(['kernel-devel', 'kernel-headers']),
  'sandboxed-containers': Object.freeze(['kata-containers']),
  sysstat: Object.freeze(['sysstat']),
});

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Throws `INVALID_EXTENSIONS` naming every extension missing from the map. */
export function validateExtensions(
  extensions: readonly string[] | null | undefined,
  map: Readonly<Record<string, readonly string[]>> = SUPPORTED_EXTENSIONS,
): void {
  const bad = (extensions ?? []).filter((e) => !Object.hasOwn(map, e));
  if (bad.length > 0) {
    throw new OstreeError(
      'INVALID_EXTENSIONS',
      `invalid extensions found: [${bad.join(' ')}] (spec.extensions; supported: ${Object.keys(map).sort().join(', ')})`,
    );
  }
}

/** The packages an extension list needs, in extension order (unknown extensions are an error). */
export function packagesForExtensions(
  extensions: readonly string[] | null | undefined,
  map: Readonly<Record<string, readonly string[]>> = SUPPORTED_EXTENSIONS,
): string[] {
  validateExtensions(extensions, map);
  const out: string[] = [];
  for (const e of extensions ?? []) out.push(...(map[e] ?? []));
  return out;
}

/**
 * The `rpm-ostree update` arguments that bring the booted deployment's requested packages to the target extension
 * list: `--install <pkg>` for each required package not installed (byte-sorted), then `--uninstall <pkg>` for each
 * installed package that belongs to some known extension but is no longer required (byte-sorted). Packages that
 * belong to no extension are never removed; unknown extension names are ignored (validate first).
 */
export function generateExtensionsArgs(
  installedRequestedPackages: readonly string[] | null | undefined,
  extensions: readonly string[] | null | undefined,
  map: Readonly<Record<string, readonly string[]>> = SUPPORTED_EXTENSIONS,
): string[] {
  const installed = new Set(installedRequestedPackages ?? []);
  const required = new Set<string>();
  for (const e of extensions ?? []) if (Object.hasOwn(map, e)) for (const p of map[e] ?? []) required.add(p);
  const managed = new Set<string>();
  for (const pkgs of Object.values(map)) for (const p of pkgs) managed.add(p);
  const out: string[] = [];
  for (const p of [...required].filter((p) => !installed.has(p)).sort(byteCompare)) out.push('--install', p);
  for (const p of [...installed].filter((p) => managed.has(p) && !required.has(p)).sort(byteCompare))
    out.push('--uninstall', p);
  return out;
}
