/**
 * Whether a registries.conf change needs a drain, as machine-config-operator `pkg/daemon/drain.go`
 * `isDrainRequiredForNodeDisruptionActions` / `isDrainRequired` / `isSafeContainerRegistryConfChanges` decide it: the
 * `Special` action (registries.conf) reloads CRI-O and drains only when the change is not "safe" — a registry or a
 * mirror removed, a search registry removed or reordered, a prefix/location/blocked/insecure flag changed, or a mirror
 * added that is not digest-only.
 */
import type { DisruptionAction, LegacyPostConfigAction } from '@keelson/machineconfig';
import { decodeDataUrl } from './dataurl.js';
import { decodeRegistriesConf, type Endpoint, type Registry } from '@keelson/machineconfig';

/** constants.ContainerRegistryConfPath. */
export const CONTAINER_REGISTRY_CONF_PATH = '/etc/containers/registries.conf';

type Ign = {
  storage?: { files?: Array<{ path?: string; contents?: { source?: string | null } | null }> | null } | null;
};

/** The daemon's log of the decision (upstream's klog lines). */
export type DrainLog = (msg: string) => void;

/** ctrlcommon.GetIgnitionFileDataByPath: the decoded contents, "" when the file is absent. */
function fileData(ign: Ign, path: string): string {
  const f = (ign.storage?.files ?? []).find((x) => x.path === path);
  const src = f?.contents?.source;
  if (src === undefined || src === null || src === '') return '';
  return decodeDataUrl(src, path).toString('utf8');
}

const scopeOf = (r: Registry): string => (r.prefix !== '' ? r.prefix : r.location);
const findMirror = (loc: string, ms: readonly Endpoint[] | null): Endpoint | undefined =>
  (ms ?? []).find((m) => m.location === loc);

function allDigestOnly(r: Registry): boolean {
  if ((r.mirrors ?? []).length === 0) return r.mirrorByDigestOnly;
  return (r.mirrors ?? []).every((m) => m.pullFromMirror === 'digest-only');
}

const sameRegistry = (a: Registry, b: Registry): boolean => JSON.stringify(a) === JSON.stringify(b);

function changedRegistrySafe(scope: string, o: Registry, n: Registry, log: DrainLog): boolean {
  const P = CONTAINER_REGISTRY_CONF_PATH;
  if (o.prefix !== n.prefix)
    return (log(`${P}: prefix value for registry ${scope} has changed from ${o.prefix} to ${n.prefix}`), false);
  if (o.location !== n.location)
    return (log(`${P}: location value for registry ${scope} has changed from ${o.location} to ${n.location}`), false);
  if (o.blocked !== n.blocked)
    return (
      log(`${P}: blocked value for registry ${scope} has changed from ${String(o.blocked)} to ${String(n.blocked)}`),
      false
    );
  if (o.insecure !== n.insecure)
    return (
      log(`${P}: insecure value for registry ${scope} has changed from ${String(o.insecure)} to ${String(n.insecure)}`),
      false
    );
  for (const m of o.mirrors ?? [])
    if (!findMirror(m.location, n.mirrors))
      return (log(`${P}: mirror ${m.location} has been removed in registry ${scope}`), false);
  for (const m of n.mirrors ?? []) {
    const old = findMirror(m.location, o.mirrors);
    if (old && m.pullFromMirror !== old.pullFromMirror && m.pullFromMirror !== 'digest-only')
      return (
        log(
          `${P}: pull-from-mirror value for mirror ${m.location} has changed from ${old.pullFromMirror} to ${m.pullFromMirror} `,
        ),
        false
      );
    if (!old && m.pullFromMirror !== 'digest-only' && !n.mirrorByDigestOnly)
      return (
        log(
          `${P}: mirror ${m.location} has been added in registry ${scope} that has pull-from-mirror set to ${m.pullFromMirror} `,
        ),
        false
      );
  }
  return true;
}

/**
 * isSafeContainerRegistryConfChanges over the old and new Ignition configs.
 * @throws Error when a registries.conf cannot be decoded (upstream fails the update)
 */
export function isSafeContainerRegistryConfChanges(oldIgn: Ign, newIgn: Ign, log: DrainLog = () => undefined): boolean {
  const P = CONTAINER_REGISTRY_CONF_PATH;
  const decode = (ign: Ign) => {
    try {
      return decodeRegistriesConf(fileData(ign, P));
    } catch (e) {
      throw new Error(`failed decoding TOML content from file ${P}: ${(e as Error).message}`, { cause: e });
    }
  };
  const o = decode(oldIgn);
  const n = decode(newIgn);
  const os = o.unqualifiedSearchRegistries ?? [];
  const ns = n.unqualifiedSearchRegistries ?? [];
  if (os.length > ns.length || os.some((r, i) => ns[i] !== r)) return false;
  const oldMap = new Map((o.registries ?? []).map((r) => [scopeOf(r), r]));
  const newMap = new Map((n.registries ?? []).map((r) => [scopeOf(r), r]));
  for (const scope of oldMap.keys())
    if (!newMap.has(scope)) return (log(`${P}: registry ${scope} has been removed`), false);
  for (const [scope, nr] of newMap) {
    const or = oldMap.get(scope);
    if (or) {
      if (!sameRegistry(or, nr) && !changedRegistrySafe(scope, or, nr, log)) return false;
    } else if (!allDigestOnly(nr)) {
      log(`${P}: registry ${scope} has been added with mirror does not set pull-from-mirror=digest-only`);
      return false;
    }
  }
  log(`${P}: changes made are safe to skip drain`);
  return true;
}

/** isDrainRequiredForNodeDisruptionActions: Reboot/Drain drain; Special drains unless the registries change is safe. */
export function isDrainRequiredForNodeDisruptionActions(
  actions: readonly DisruptionAction[],
  oldIgn: Ign,
  newIgn: Ign,
  log?: DrainLog,
): boolean {
  if (actions.some((a) => a.type === 'Reboot' || a.type === 'Drain')) return true;
  if (actions.some((a) => a.type === 'Special')) return !isSafeContainerRegistryConfChanges(oldIgn, newIgn, log);
  return false;
}

/** isDrainRequired (legacy actions, firstboot path). */
export function isDrainRequired(
  actions: readonly LegacyPostConfigAction[],
  diffFiles: readonly string[],
  oldIgn: Ign,
  newIgn: Ign,
  log?: DrainLog,
): boolean {
  if (actions.includes('reboot')) return true;
  if (actions.includes('reload crio') || actions.includes('restart crio'))
    return diffFiles.includes(CONTAINER_REGISTRY_CONF_PATH)
      ? !isSafeContainerRegistryConfChanges(oldIgn, newIgn, log)
      : false;
  if (actions.includes('none')) return false;
  return true;
}
