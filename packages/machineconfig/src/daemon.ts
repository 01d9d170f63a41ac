/**
 * The machine-config-daemon's view of an update from one rendered MachineConfig to another: reconcilability
 * (with the upstream reasons), what changed, and the post-config actions — legacy table (firstboot) and node
 * disruption policies — plus the exact rpm-ostree arguments for kernel arguments and extensions.
 */
import { assertMachineConfigTypes } from './check.js';
import { goDeepEqual } from './gojson.js';
import { MachineConfigIgnitionError, parseMachineConfigIgnition } from './ignition-adapter.js';
import { MACHINE_CONFIG_EXTENSIONS } from '@keelson/api';
import type { JsonObject, MachineConfig } from './types.js';

type Obj = Record<string, unknown>;
const obj = (x: unknown): Obj => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : {});
const list = (x: unknown): Obj[] => (Array.isArray(x) ? (x as Obj[]) : []);

/** The force file that makes the daemon redo an update; Ignition may not create it. */
export const MCD_FORCE_FILE = '/run/machine-config-daemon-force';

/** Raised for updates the daemon refuses; `message` is the upstream text. */
export class MachineConfigReconcileError extends Error {
  constructor(
    /** MC_UNRECONCILABLE (node goes Unreconcilable) or MC_PARSE. */
    readonly code: 'MC_UNRECONCILABLE' | 'MC_PARSE',
    message: string,
    /** Which config failed to parse, for MC_PARSE. */
    readonly which?: 'old' | 'new',
  ) {
    super(message);
    this.name = 'MachineConfigReconcileError';
  }
}

/** Storage sections an admin may mark as reconcilable (MachineConfiguration irreconcilableValidationOverrides). */
export type StorageOverride = 'Disks' | 'FileSystems' | 'Raid';

/** A node-disruption-policy action. */
export type DisruptionAction =
  | { type: 'Reboot' }
  | { type: 'None' }
  | { type: 'Drain' }
  | { type: 'DaemonReload' }
  | { type: 'Special' }
  | { type: 'Reload'; reload: { serviceName: string } }
  | { type: 'Restart'; restart: { serviceName: string } };

/** A file policy (path = file or directory). */
export interface FilePolicy {
  path: string;
  actions: DisruptionAction[];
}
/** A unit policy (exact unit name). */
export interface UnitPolicy {
  name: string;
  actions: DisruptionAction[];
}
/** User node disruption policies (MachineConfiguration spec.nodeDisruptionPolicy). */
export interface NodeDisruptionPolicy {
  files?: FilePolicy[];
  units?: UnitPolicy[];
  sshkey?: { actions: DisruptionAction[] };
}

const reloadCrio: DisruptionAction = { type: 'Reload', reload: { serviceName: 'crio.service' } };

/** The MCO's default cluster policies. */
export const DEFAULT_NODE_DISRUPTION_POLICIES: Readonly<Required<NodeDisruptionPolicy>> = Object.freeze({
  files: [
    { path: '/var/lib/kubelet/config.json', actions: [{ type: 'None' }] },
    { path: '/etc/machine-config-daemon/no-reboot/containers-gpg.pub', actions: [reloadCrio] },
    { path: '/etc/containers/policy.json', actions: [reloadCrio] },
    { path: '/etc/containers/registries.conf', actions: [{ type: 'Special' }] },
    { path: '/etc/containers/registries.d', actions: [reloadCrio] },
    { path: '/etc/crio/policies', actions: [reloadCrio] },
    { path: '/etc/nmstate/openshift', actions: [{ type: 'None' }] },
    {
      path: '/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt',
      actions: [
        { type: 'Restart', restart: { serviceName: 'coreos-update-ca-trust.service' } },
        { type: 'Restart', restart: { serviceName: 'crio.service' } },
      ],
    },
    {
      path: '/etc/kubernetes/credential-providers',
      actions: [{ type: 'Restart', restart: { serviceName: 'kubelet.service' } }],
    },
    {
      path: '/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf',
      actions: [{ type: 'DaemonReload' }, { type: 'Restart', restart: { serviceName: 'kubelet.service' } }],
    },
    { path: '/etc/iri-registry', actions: [{ type: 'Restart', restart: { serviceName: 'iri-registry.service' } }] },
    {
      path: '/usr/local/bin/load-registry-image.sh',
      actions: [{ type: 'Restart', restart: { serviceName: 'iri-registry.service' } }],
    },
    {
      path: '/etc/pki/ca-trust/source/anchors/iri-root-ca.crt',
      actions: [{ type: 'Restart', restart: { serviceName: 'coreos-update-ca-trust.service' } }],
    },
  ],
  units: [
    {
      name: 'iri-registry.service',
      actions: [{ type: 'DaemonReload' }, { type: 'Restart', restart: { serviceName: 'iri-registry.service' } }],
    },
  ],
  sshkey: { actions: [{ type: 'None' }] },
});

/** Defaults merged with user policies: same path/name replaces the default, others are appended. */
export function clusterNodeDisruptionPolicies(user: NodeDisruptionPolicy = {}): Required<NodeDisruptionPolicy> {
  const files = [...DEFAULT_NODE_DISRUPTION_POLICIES.files];
  for (const f of user.files ?? []) {
    const i = files.findIndex((d) => d.path === f.path);
    if (i >= 0) files[i] = f;
    else files.push(f);
  }
  const units = [...DEFAULT_NODE_DISRUPTION_POLICIES.units];
  for (const u of user.units ?? []) {
    const i = units.findIndex((d) => d.name === u.name);
    if (i >= 0) units[i] = u;
    else units.push(u);
  }
  return { files, units, sshkey: user.sshkey ?? DEFAULT_NODE_DISRUPTION_POLICIES.sshkey };
}

/** FindClosestFilePolicyPathMatch: the policy with the longest path equal to the file or a parent directory. */
export function findClosestFilePolicyPathMatch(
  diffPath: string,
  policies: readonly FilePolicy[],
): { found: boolean; actions: DisruptionAction[] } {
  let best: FilePolicy | undefined;
  for (const p of policies) {
    const base = p.path.endsWith('/') && p.path.length > 1 ? p.path.slice(0, -1) : p.path;
    const matches = diffPath === base || diffPath.startsWith(base === '/' ? '/' : `${base}/`);
    if (matches && (best === undefined || base.length > best.path.length)) best = { path: base, actions: p.actions };
  }
  return best ? { found: true, actions: best.actions } : { found: false, actions: [] };
}

/** isPathInDropins: is `path` the dropin file of one of these units under /etc/systemd/system? */
export function isPathInDropins(
  path: string,
  units: readonly { name: string; dropins?: { name: string }[] }[],
): boolean {
  for (const u of units) {
    for (const d of u.dropins ?? []) {
      if (path === `/etc/systemd/system/${u.name}.d/${d.name}`) return true;
    }
  }
  return false;
}

/** Split kernel arguments as the daemon does: on whitespace outside double quotes (quotes kept). */
export function splitKernelArguments(args: readonly string[] | null | undefined): string[] {
  const out: string[] = [];
  for (const a of args ?? []) {
    let cur = '';
    let inQuote = false;
    for (const ch of a) {
      if (ch === '"') {
        inQuote = !inQuote;
        cur += ch;
      } else if (!inQuote && ' \f\n\r\t\v'.includes(ch)) {
        if (cur !== '') out.push(cur);
        cur = '';
      } else cur += ch;
    }
    if (cur !== '') out.push(cur);
  }
  return out;
}

/** `rpm-ostree kargs` arguments (generateKargs): delete every old MCO argument, append every new one. */
export function kargsArgs(
  oldArgs: readonly string[] | null | undefined,
  newArgs: readonly string[] | null | undefined,
): string[] {
  return [
    ...splitKernelArguments(oldArgs).map((a) => `--delete-if-present=${a}`),
    ...splitKernelArguments(newArgs).map((a) => `--append=${a}`),
  ];
}

const byteSort = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `rpm-ostree update` arguments for extensions (generateExtensionsArgs): install the required packages that are
 * not installed, uninstall installed extension packages that are no longer required (each byte-sorted).
 */
export function extensionsArgs(
  installedRequestedPackages: readonly string[],
  extensions: readonly string[] | null | undefined,
): string[] {
  const required = new Set<string>();
  for (const e of extensions ?? []) for (const p of MACHINE_CONFIG_EXTENSIONS[e] ?? []) required.add(p);
  const installed = new Set(installedRequestedPackages);
  const allExt = new Set(Object.values(MACHINE_CONFIG_EXTENSIONS).flat());
  const install = [...required].filter((p) => !installed.has(p)).sort(byteSort);
  const uninstall = [...installed].filter((p) => allExt.has(p) && !required.has(p)).sort(byteSort);
  return [...install.flatMap((p) => ['--install', p]), ...uninstall.flatMap((p) => ['--uninstall', p])];
}

/** Which parts of a MachineConfig changed (machineConfigDiff). */
export interface MachineConfigChangeFlags {
  osUpdate: boolean;
  kargs: boolean;
  fips: boolean;
  passwd: boolean;
  files: boolean;
  units: boolean;
  kernelType: boolean;
  extensions: boolean;
}

/** Legacy post-config actions (firstboot path). */
export type LegacyPostConfigAction = 'none' | 'reload crio' | 'restart crio' | 'reboot';

/** Result of {@link diffMachineConfigs}. */
export interface MachineConfigDiff {
  /** What changed. */
  changes: MachineConfigChangeFlags;
  /** Changed file paths (added, removed, modified), sorted. */
  files: string[];
  /** Units added / updated / removed, each sorted. */
  units: { added: string[]; updated: string[]; removed: string[] };
  /** SSH keys of the new config (all users, in order) when passwd changed. */
  sshKeysChanged: boolean;
  /** Legacy action table (used on firstboot). */
  legacyActions: LegacyPostConfigAction[];
  /** Node-disruption-policy actions (normal cluster updates). */
  nodeDisruptionActions: DisruptionAction[];
  /** True when the actions require draining the node (Reboot or Drain present). */
  drainRequired: boolean;
  /** `rpm-ostree kargs …` argv (after the program name) when kernel arguments changed. */
  rpmOstreeKargsArgs?: string[];
}

/** Options of {@link diffMachineConfigs}. */
export interface DiffOptions {
  /** Storage sections allowed to change. */
  irreconcilableStorageOverrides?: readonly StorageOverride[];
  /** User node disruption policies merged onto the defaults. */
  nodeDisruptionPolicy?: NodeDisruptionPolicy;
  /** The force file exists on the node (forces osUpdate and a reboot). */
  forceFile?: boolean;
}

/**
 * Parsed configs by the config object of a MachineConfig: the daemons of a pool read the same MachineConfig objects
 * (an informer's cache), and every node's update parsed and validated both configs again. Read-only results.
 */
const parsedConfigs = new WeakMap<object, Obj>();

function parse(mc: MachineConfig, which: 'old' | 'new'): Obj {
  const c = mc.spec.config;
  const raw: JsonObject | string = c === undefined || c === null ? { ignition: { version: '3.5.0' } } : c;
  const known = typeof raw === 'object' ? parsedConfigs.get(raw) : undefined;
  if (known !== undefined) return known;
  try {
    const parsed = parseMachineConfigIgnition(raw, { keepEmptyLists: true });
    if (typeof raw === 'object' && raw === c) parsedConfigs.set(raw, parsed);
    return parsed;
  } catch (err) {
    if (err instanceof MachineConfigIgnitionError) {
      throw new MachineConfigReconcileError(
        'MC_PARSE',
        `parsing ${which} Ignition config from machineconfig "${mc.metadata.name}" failed: failed to parse Ignition config: ${err.message}`,
        which,
      );
    }
    throw err;
  }
}

function reconcileRule(
  oldIgn: Obj,
  newIgn: Obj,
  oldMc: MachineConfig,
  newMc: MachineConfig,
  overrides: readonly StorageOverride[],
): string | undefined {
  const op = obj(oldIgn['passwd']);
  const np = obj(newIgn['passwd']);
  if (!goDeepEqual(op, np)) {
    if (!goDeepEqual(op['groups'], np['groups']))
      return 'invalid passwd change(s): ignition Passwd Groups section contains changes';
    if (!goDeepEqual(op['users'], np['users'])) {
      const users = list(np['users']);
      if (users.length > 0) {
        for (const u of users) {
          if (u['name'] !== 'core')
            return 'invalid passwd change(s): ignition passwd user section contains unsupported changes: non-core user';
        }
        const last = users[users.length - 1] as Obj;
        const keys = list(last['sshAuthorizedKeys']);
        if (keys.length >= 1 || last['passwordHash'] !== undefined) {
          const { sshAuthorizedKeys: _k, passwordHash: _p, ...rest } = last;
          if (!goDeepEqual(rest, { name: 'core' })) {
            return 'invalid passwd change(s): SSH keys and password hash are not reconcilable';
          }
        } else {
          return 'invalid passwd change(s): ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys';
        }
      }
    }
  }
  const os = obj(oldIgn['storage']);
  const ns = obj(newIgn['storage']);
  if (!overrides.includes('Disks') && !goDeepEqual(os['disks'], ns['disks']))
    return 'ignition disks section contains changes';
  if (!overrides.includes('FileSystems') && !goDeepEqual(os['filesystems'], ns['filesystems']))
    return 'ignition filesystems section contains changes';
  if (!overrides.includes('Raid') && !goDeepEqual(os['raid'], ns['raid']))
    return 'ignition raid section contains changes';
  if (!goDeepEqual(os['directories'], ns['directories'])) return 'ignition directories section contains changes';
  if (!goDeepEqual(os['links'], ns['links']) && list(ns['links']).length !== 0)
    return 'ignition links section contains changes';
  for (const f of list(ns['files'])) {
    if (list(f['append']).length > 0) return `ignition file ${String(f['path'])} includes append`;
    if (f['path'] === MCD_FORCE_FILE) return `cannot create ${MCD_FORCE_FILE} via Ignition`;
  }
  if (!goDeepEqual(oldIgn['kernelArguments'], newIgn['kernelArguments']))
    return 'ignition kargs section contains changes';
  if ((oldMc.spec.fips ?? false) !== (newMc.spec.fips ?? false)) {
    return 'detected change to FIPS flag; refusing to modify FIPS on a running cluster';
  }
  return undefined;
}

const canonicalKernelType = (k: string | undefined): string => (k === 'realtime' || k === '64k-pages' ? k : 'default');
const sameList = (a: readonly string[] | null | undefined, b: readonly string[] | null | undefined): boolean => {
  if ((a?.length ?? 0) === 0 && (b?.length ?? 0) === 0) return true;
  // reflect.DeepEqual: nil vs empty differ, but both-empty was handled above
  return (
    a !== null &&
    a !== undefined &&
    b !== null &&
    b !== undefined &&
    a.length === b.length &&
    a.every((x, i) => x === b[i])
  );
};

function legacyActionsFor(changes: MachineConfigChangeFlags, files: string[]): LegacyPostConfigAction[] {
  if (changes.osUpdate || changes.kargs || changes.fips || changes.units || changes.kernelType || changes.extensions)
    return ['reboot'];
  const none = ['/etc/kubernetes/kubelet-ca.crt', '/var/lib/kubelet/config.json'];
  const noneDirs = ['/etc/nmstate/openshift'];
  const reload = [
    '/etc/containers/registries.conf',
    '/etc/machine-config-daemon/no-reboot/containers-gpg.pub',
    '/etc/containers/policy.json',
  ];
  const reloadDirs = ['/etc/containers/registries.d'];
  const restart = ['/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt'];
  let actions: LegacyPostConfigAction[] = ['none'];
  for (const p of files) {
    const dir = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) || '/' : '.';
    if (none.includes(p) || noneDirs.includes(dir)) continue;
    if (reload.includes(p) || reloadDirs.includes(dir)) {
      if (!actions.includes('restart crio')) actions = ['reload crio'];
    } else if (restart.includes(p)) actions = ['restart crio'];
    else return ['reboot'];
  }
  return actions;
}

function disruptionActionsFor(
  changes: MachineConfigChangeFlags,
  files: string[],
  unitNames: string[],
  policies: Required<NodeDisruptionPolicy>,
  force: boolean,
): DisruptionAction[] {
  if (force || changes.osUpdate || changes.kargs || changes.fips || changes.kernelType || changes.extensions)
    return [{ type: 'Reboot' }];
  if (!changes.files && !changes.units && !changes.passwd) return [{ type: 'None' }];
  const actions: DisruptionAction[] = [];
  for (const p of files) {
    const m = findClosestFilePolicyPathMatch(p, policies.files);
    if (!m.found) return [{ type: 'Reboot' }];
    actions.push(...m.actions);
  }
  for (const u of unitNames) {
    const pol = policies.units.find((x) => x.name === u);
    if (!pol) return [{ type: 'Reboot' }];
    actions.push(...pol.actions);
  }
  if (changes.passwd) actions.push(...policies.sshkey.actions);
  if (actions.some((a) => a.type === 'Reboot')) return [{ type: 'Reboot' }];
  const withoutNone = actions.filter((a) => a.type !== 'None');
  return withoutNone.length === 0 ? [{ type: 'None' }] : withoutNone;
}

function reconcile(
  oldMc: MachineConfig,
  newMc: MachineConfig,
  overrides: readonly StorageOverride[],
): { oldIgn: Obj; newIgn: Obj } {
  const oldIgn = parse(oldMc, 'old');
  const newIgn = parse(newMc, 'new');
  const rule = reconcileRule(oldIgn, newIgn, oldMc, newMc, overrides);
  if (rule !== undefined) {
    throw new MachineConfigReconcileError(
      'MC_UNRECONCILABLE',
      `new machineconfig "${oldMc.metadata.name}" is not reconcilable against "${newMc.metadata.name}": ${rule}`,
    );
  }
  return { oldIgn, newIgn };
}

/**
 * The reconcilability check alone (IsRenderedConfigReconcilable): throws when the daemon would refuse to move
 * a node from `oldMc` to `newMc`.
 * @throws MachineConfigReconcileError
 */
export function checkReconcilable(
  oldMc: MachineConfig,
  newMc: MachineConfig,
  overrides: readonly StorageOverride[] = [],
): void {
  reconcile(oldMc, newMc, overrides);
}

/**
 * What the machine-config-daemon does with an update from `oldMc` to `newMc`: refuses it when not reconcilable
 * (same texts as upstream: `new machineconfig "<old>" is not reconcilable against "<new>": <reason>`), else reports
 * the changes and the post-config actions with and without node disruption policies.
 * @throws MachineConfigReconcileError
 */
export function diffMachineConfigs(
  oldMc: MachineConfig,
  newMc: MachineConfig,
  opts: DiffOptions = {},
): MachineConfigDiff {
  assertMachineConfigTypes(oldMc, 'old: ');
  assertMachineConfigTypes(newMc, 'new: ');
  // a MachineConfig without spec (or spec: null) is Go's zero-value spec: no config, no kernel arguments...
  oldMc = { ...oldMc, spec: oldMc.spec ?? {} };
  newMc = { ...newMc, spec: newMc.spec ?? {} };
  const { oldIgn, newIgn } = reconcile(oldMc, newMc, opts.irreconcilableStorageOverrides ?? []);
  const o = oldMc.spec;
  const n = newMc.spec;
  const oldFiles = list(obj(oldIgn['storage'])['files']);
  const newFiles = list(obj(newIgn['storage'])['files']);
  const oldUnits = list(obj(oldIgn['systemd'])['units']);
  const newUnits = list(obj(newIgn['systemd'])['units']);
  const changes: MachineConfigChangeFlags = {
    osUpdate: (o.osImageURL ?? '') !== (n.osImageURL ?? '') || opts.forceFile === true,
    kargs: !sameList(o.kernelArguments, n.kernelArguments),
    fips: (o.fips ?? false) !== (n.fips ?? false),
    passwd: !goDeepEqual(oldIgn['passwd'], newIgn['passwd']),
    files: !goDeepEqual(obj(oldIgn['storage'])['files'], obj(newIgn['storage'])['files']),
    units: !goDeepEqual(obj(oldIgn['systemd'])['units'], obj(newIgn['systemd'])['units']),
    kernelType: canonicalKernelType(o.kernelType) !== canonicalKernelType(n.kernelType),
    extensions: !sameList(o.extensions, n.extensions),
  };
  const oldFileMap = new Map(oldFiles.map((f) => [String(f['path']), f]));
  const newFileMap = new Map(newFiles.map((f) => [String(f['path']), f]));
  const files = new Set<string>();
  for (const p of oldFileMap.keys()) if (!newFileMap.has(p)) files.add(p);
  for (const [p, f] of newFileMap) if (!oldFileMap.has(p) || !goDeepEqual(oldFileMap.get(p), f)) files.add(p);
  const oldUnitMap = new Map(oldUnits.map((u) => [String(u['name']), u]));
  const newUnitMap = new Map(newUnits.map((u) => [String(u['name']), u]));
  const added = [...newUnitMap.keys()].filter((k) => !oldUnitMap.has(k)).sort(byteSort);
  const removed = [...oldUnitMap.keys()].filter((k) => !newUnitMap.has(k)).sort(byteSort);
  const updated = [...newUnitMap.entries()]
    .filter(([k, u]) => oldUnitMap.has(k) && !goDeepEqual(oldUnitMap.get(k), u))
    .map(([k]) => k)
    .sort(byteSort);
  const fileList = [...files].sort(byteSort);
  const unitNames = [...new Set([...added, ...updated, ...removed])].sort(byteSort);
  const nodeDisruptionActions = disruptionActionsFor(
    changes,
    fileList,
    unitNames,
    clusterNodeDisruptionPolicies(opts.nodeDisruptionPolicy),
    opts.forceFile === true,
  );
  const result: MachineConfigDiff = {
    changes,
    files: fileList,
    units: { added, updated, removed },
    sshKeysChanged: changes.passwd,
    legacyActions: legacyActionsFor(changes, fileList),
    nodeDisruptionActions,
    drainRequired: nodeDisruptionActions.some((a) => a.type === 'Reboot' || a.type === 'Drain'),
  };
  if (changes.kargs) result.rpmOstreeKargsArgs = ['kargs', ...kargsArgs(o.kernelArguments, n.kernelArguments)];
  return result;
}
