/**
 * Pod template merges as upstream openshift/cluster-version-operator `lib/resourcemerge/core.go` (release-4.20):
 * `ensurePodSpec`, `ensureContainers`, `ensureContainer`, `ensureEnvVar`, `ensureContainerPorts`, `ensureVolumeMounts`,
 * `ensureVolumes`, `ensureProbePtr`, `ensureSecurityContextPtr`, `ensureTolerations`, `ensureAffinityPtr`,
 * `ensurePodSecurityContextPtr`, `ensureDNSPolicy`, `ensureTerminationGracePeriod`. Only the fields those functions
 * name are compared, each after applying to `required` the defaults the API server applies to the live object
 * (`fieldRef.apiVersion: v1`, port `protocol: TCP`, probe timings, volume `defaultMode`, …), so a live object the
 * server defaulted is no diff. Every function works on a copy: `out` is a clone of the live object owned by the caller.
 */
import { clone, isObject, type JsonObject } from './merge-core.js';
import { resourceListEqual, semanticEqual } from './semantic.js';

type J = JsonObject;

function objects(v: unknown): J[] {
  return (Array.isArray(v) ? v : []).filter(isObject);
}

/** Sets `out[key]` to `value` (a copy), or removes it when `value` is undefined. */
function assign(out: J, key: string, value: unknown): void {
  if (value === undefined) Reflect.deleteProperty(out, key);
  else out[key] = clone(value);
}

/** The matching key of a list item (name, mountPath) as a string. */
function keyOf(item: J, key: string): string {
  const v = item[key];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

/** upstream `setStringIfSet`: a non-empty required string wins. */
function setStringIfSet(out: J, key: string, required: unknown): void {
  if (typeof required === 'string' && required !== '' && out[key] !== required) out[key] = required;
}

/** upstream `setBool` / `setStringSlice` / whole-value fields: the required value (absent = zero) wins when different. */
function setValue(out: J, key: string, required: unknown): void {
  if (!semanticEqual(out[key], required)) assign(out, key, required);
}

/** upstream `setBoolPtr` / `setInt32Ptr` / `setInt64Ptr`: nil and set differ; a nil required clears the live value. */
function setPtr(out: J, key: string, required: unknown): void {
  if (out[key] === undefined && required === undefined) return;
  if (out[key] !== required) assign(out, key, required);
}

/** The defaults kube-apiserver gives an `ObjectFieldSelector` (core/v1 `SetDefaults_ObjectFieldSelector`). */
function defaultFieldRef(ref: unknown): void {
  if (isObject(ref) && (ref['apiVersion'] === undefined || ref['apiVersion'] === '')) ref['apiVersion'] = 'v1';
}

/**
 * The `divisor` kube-apiserver stores for a `ResourceFieldSelector` ("0", the zero Quantity, which Go's semantic
 * equality sees as unset when upstream compares).
 */
function defaultResourceFieldRef(ref: unknown): void {
  if (isObject(ref) && ref['divisor'] === undefined) ref['divisor'] = '0';
}

/** upstream `ensureEnvVar`: `valueFrom.fieldRef.apiVersion` defaulted to v1, then the list is replaced when different. */
export function ensureEnvVar(out: J, required: unknown): void {
  const req = clone(required);
  for (const e of objects(req)) {
    if (!isObject(e['valueFrom'])) continue;
    defaultFieldRef(e['valueFrom']['fieldRef']);
    defaultResourceFieldRef(e['valueFrom']['resourceFieldRef']);
  }
  setValue(out, 'env', req);
}

/** upstream `ensureContainerPortDefaults` + `ensureContainerPort`, ports matched by name. */
function ensureContainerPorts(out: J, required: unknown, hostNetwork: boolean): void {
  const req = objects(required).map((p) => {
    const d = clone(p);
    if (hostNetwork && (d['hostPort'] === undefined || d['hostPort'] === 0)) d['hostPort'] = d['containerPort'];
    if (d['protocol'] === undefined || d['protocol'] === '') d['protocol'] = 'TCP';
    return d;
  });
  setByKey(out, 'ports', req, 'name', (l, r) => (semanticEqual(l, r) ? l : clone(r)));
}

/**
 * Items matched by `key` (upstream's name/mountPath loops): unmatched live items removed, live order kept, missing
 * required items appended in required order, matched ones merged by `merge`.
 */
function setByKey(out: J, field: string, required: J[], key: string, merge: (l: J, r: J) => J): void {
  const live = objects(out[field]);
  const byKey = new Map(required.map((r) => [keyOf(r, key), r]));
  const next: J[] = [];
  const seen = new Set<string>();
  for (const l of live) {
    const k = keyOf(l, key);
    const r = byKey.get(k);
    if (!r || seen.has(k)) continue;
    seen.add(k);
    next.push(merge(l, r));
  }
  for (const r of required) if (!seen.has(keyOf(r, key))) next.push(clone(r));
  if (!semanticEqual(out[field], next)) assign(out, field, next.length > 0 ? next : undefined);
}

/** upstream `ensureProbePtr`: timings defaulted (1 s, 10 s, 1, 3), `httpGet.scheme` HTTP, handler replaced when different. */
function ensureProbe(out: J, key: string, required: unknown): void {
  const live = out[key];
  if (live === undefined && required === undefined) return;
  if (!isObject(live) || !isObject(required)) {
    assign(out, key, required);
    return;
  }
  const req = clone(required);
  const defaults: [string, number][] = [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ];
  for (const [k, v] of defaults) if (req[k] === undefined || req[k] === 0) req[k] = v;
  const httpGet = req['httpGet'];
  if (isObject(httpGet) && (httpGet['scheme'] === undefined || httpGet['scheme'] === '')) httpGet['scheme'] = 'HTTP';
  const probe: J = { ...live };
  for (const k of ['initialDelaySeconds', ...defaults.map(([k]) => k)]) setValue(probe, k, req[k]);
  const handlers = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
  const pick = (o: J): J => Object.fromEntries(handlers.map((h) => [h, o[h]]));
  if (!semanticEqual(pick(probe), pick(req))) for (const h of handlers) assign(probe, h, req[h]);
  if (!semanticEqual(probe, live)) out[key] = probe;
}

/** upstream `ensureCapabilities`: every required add/drop present (extra live ones kept). */
function ensureCapabilities(sc: J, required: unknown): void {
  const live = sc['capabilities'];
  if (live === undefined && required === undefined) return;
  if (!isObject(live) || !isObject(required)) {
    assign(sc, 'capabilities', required);
    return;
  }
  const next: J = { ...live };
  for (const f of ['add', 'drop']) {
    const have = Array.isArray(live[f]) ? (live[f] as unknown[]) : [];
    const missing = (Array.isArray(required[f]) ? (required[f] as unknown[]) : []).filter(
      (r) => !have.some((h) => semanticEqual(h, r)),
    );
    if (missing.length > 0) next[f] = [...have, ...missing];
  }
  if (!semanticEqual(next, live)) sc['capabilities'] = next;
}

/** upstream `ensureSELinuxOptionsPtr`. */
function ensureSELinux(sc: J, required: unknown): void {
  const live = sc['seLinuxOptions'];
  if (live === undefined && required === undefined) return;
  if (!isObject(live) || !isObject(required)) {
    assign(sc, 'seLinuxOptions', required);
    return;
  }
  const next: J = { ...live };
  for (const k of ['user', 'role', 'type', 'level']) setStringIfSet(next, k, required[k]);
  if (!semanticEqual(next, live)) sc['seLinuxOptions'] = next;
}

/** upstream `ensureSeccompProfilePtr`. */
function ensureSeccomp(sc: J, required: unknown): void {
  if (sc['seccompProfile'] === undefined && required === undefined) return;
  if (sc['seccompProfile'] === undefined || required === undefined || !semanticEqual(sc['seccompProfile'], required))
    assign(sc, 'seccompProfile', required);
}

/** upstream `ensureSecurityContextPtr` (container): "our security context should always win". */
function ensureSecurityContext(out: J, required: unknown): void {
  const live = out['securityContext'];
  if (live === undefined && required === undefined) return;
  if (!isObject(live) || !isObject(required)) {
    assign(out, 'securityContext', required);
    return;
  }
  const sc: J = { ...live };
  ensureCapabilities(sc, required['capabilities']);
  ensureSELinux(sc, required['seLinuxOptions']);
  for (const k of ['privileged', 'runAsUser', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation'])
    setPtr(sc, k, required[k]);
  ensureSeccomp(sc, required['seccompProfile']);
  if (!semanticEqual(sc, live)) out['securityContext'] = sc;
}

/** upstream `ensureResourceRequirements`: limits and requests replaced when not equal by quantity value. */
function ensureResources(out: J, required: unknown): void {
  const live = isObject(out['resources']) ? out['resources'] : {};
  const req = isObject(required) ? required : {};
  const next: J = { ...live };
  for (const k of ['limits', 'requests']) if (!resourceListEqual(live[k], req[k])) assign(next, k, req[k]);
  if (!semanticEqual(next, live)) out['resources'] = next;
}

/** upstream `ensureContainer`. */
export function ensureContainer(live: J, required: J, hostNetwork: boolean): J {
  const out: J = { ...live };
  setStringIfSet(out, 'name', required['name']);
  setStringIfSet(out, 'image', required['image']);
  setValue(out, 'command', required['command']);
  setValue(out, 'args', required['args']);
  ensureEnvVar(out, required['env']);
  setValue(out, 'envFrom', required['envFrom']);
  setStringIfSet(out, 'workingDir', required['workingDir']);
  ensureResources(out, required['resources']);
  ensureContainerPorts(out, required['ports'], hostNetwork);
  setByKey(out, 'volumeMounts', objects(required['volumeMounts']), 'mountPath', (l, r) =>
    semanticEqual(l, r) ? l : clone(r),
  );
  ensureProbe(out, 'livenessProbe', required['livenessProbe']);
  ensureProbe(out, 'readinessProbe', required['readinessProbe']);
  ensureSecurityContext(out, required['securityContext']);
  return out;
}

/** upstream `ensureContainers`: matched by name; live containers the manifest lacks removed; missing appended. */
function ensureContainers(out: J, key: string, required: unknown, hostNetwork: boolean): void {
  setByKey(out, key, objects(required), 'name', (l, r) => ensureContainer(l, r, hostNetwork));
}

const DEFAULT_MODE = 0o644;

/** upstream `ensureVolumeSourceDefaults` (plus the fieldRef default of downward API items, as the server applies it). */
export function defaultVolume(required: J): J {
  const v = clone(required);
  const hasSource = Object.keys(v).some((k) => k !== 'name' && v[k] !== undefined && v[k] !== null);
  if (!hasSource) v['emptyDir'] = {};
  const src = (k: string): J | undefined => (isObject(v[k]) ? v[k] : undefined);
  const hostPath = src('hostPath');
  if (hostPath && hostPath['type'] === undefined) hostPath['type'] = '';
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = src(k);
    if (s && s['defaultMode'] === undefined) s['defaultMode'] = DEFAULT_MODE;
  }
  for (const item of objects(src('downwardAPI')?.['items'])) defaultFieldRef(item['fieldRef']);
  for (const s of objects(src('projected')?.['sources'])) {
    const token = s['serviceAccountToken'];
    if (isObject(token) && token['expirationSeconds'] === undefined) token['expirationSeconds'] = 3600;
    for (const item of objects(isObject(s['downwardAPI']) ? s['downwardAPI']['items'] : undefined))
      defaultFieldRef(item['fieldRef']);
  }
  const iscsi = src('iscsi');
  if (iscsi && !iscsi['iscsiInterface']) iscsi['iscsiInterface'] = 'default';
  const rbd = src('rbd');
  if (rbd) {
    rbd['pool'] ||= 'rbd';
    rbd['user'] ||= 'admin';
    rbd['keyring'] ||= '/etc/ceph/keyring';
  }
  const azure = src('azureDisk');
  if (azure) {
    azure['cachingMode'] ??= 'ReadWrite';
    azure['kind'] ??= 'Shared';
    azure['fsType'] ??= 'ext4';
    azure['readOnly'] ??= false;
  }
  const scaleIO = src('scaleIO');
  if (scaleIO) {
    scaleIO['storageMode'] ||= 'ThinProvisioned';
    scaleIO['fsType'] ||= 'xfs';
  }
  return v;
}

/** upstream `ensureTolerations`: every required toleration present once; extra live tolerations kept. */
function ensureTolerations(out: J, required: unknown): void {
  const live = objects(out['tolerations']);
  const req = objects(required);
  const dup = new Set<number>();
  const found = new Set<number>();
  req.forEach((r, ri) => {
    let already = false;
    live.forEach((l, li) => {
      if (!semanticEqual(l, r)) return;
      if (already) dup.add(li);
      already = true;
      found.add(ri);
    });
  });
  if (dup.size === 0 && found.size === req.length) return;
  out['tolerations'] = [
    ...live.filter((_, i) => !dup.has(i)),
    ...req.filter((_, i) => !found.has(i)).map((r) => clone(r)),
  ];
}

/** upstream `ensureAffinityPtr`: only when required; node/pod/anti-affinity each replaced when different. */
function ensureAffinity(out: J, required: unknown): void {
  if (!isObject(required)) return;
  const live = out['affinity'];
  if (!isObject(live)) {
    out['affinity'] = clone(required);
    return;
  }
  const next: J = { ...live };
  for (const k of ['nodeAffinity', 'podAffinity', 'podAntiAffinity']) setValue(next, k, required[k]);
  if (!semanticEqual(next, live)) out['affinity'] = next;
}

/** upstream `ensurePodSecurityContextPtr`. */
function ensurePodSecurityContext(out: J, required: unknown): void {
  const live = out['securityContext'];
  if ((live === undefined || semanticEqual(live, {})) && required === undefined) return;
  if (!isObject(live) || !isObject(required)) {
    assign(out, 'securityContext', required);
    return;
  }
  const sc: J = { ...live };
  ensureSELinux(sc, required['seLinuxOptions']);
  for (const k of ['runAsUser', 'runAsGroup', 'runAsNonRoot']) setPtr(sc, k, required[k]);
  ensureSeccomp(sc, required['seccompProfile']);
  const groups = Array.isArray(live['supplementalGroups']) ? (live['supplementalGroups'] as unknown[]) : [];
  const missing = (
    Array.isArray(required['supplementalGroups']) ? (required['supplementalGroups'] as unknown[]) : []
  ).filter((g) => !groups.includes(g));
  if (missing.length > 0) sc['supplementalGroups'] = [...groups, ...missing];
  setPtr(sc, 'fsGroup', required['fsGroup']);
  const sysctls = objects(live['sysctls']).map((s) => ({ ...s }));
  for (const r of objects(required['sysctls'])) {
    const i = sysctls.findIndex((s) => s['name'] === r['name']);
    if (i < 0) sysctls.push(clone(r));
    else if (sysctls[i]?.['value'] !== r['value']) sysctls[i] = clone(r);
  }
  if (!semanticEqual(sysctls, live['sysctls'])) sc['sysctls'] = sysctls;
  if (!semanticEqual(sc, live)) out['securityContext'] = sc;
}

/** upstream `ensurePodSpec`: the fields it names, each after the server's defaults; every other live field untouched. */
export function ensurePodSpec(live: J, required: J): J {
  const out: J = { ...live };
  const hostNetwork = required['hostNetwork'] === true;
  ensureContainers(out, 'initContainers', required['initContainers'], hostNetwork);
  ensureContainers(out, 'containers', required['containers'], hostNetwork);
  setByKey(out, 'volumes', objects(required['volumes']).map(defaultVolume), 'name', (l, r) =>
    semanticEqual(l, r) ? l : clone(r),
  );
  if (typeof required['restartPolicy'] === 'string' && required['restartPolicy'] !== '')
    setValue(out, 'restartPolicy', required['restartPolicy']);
  setStringIfSet(out, 'serviceAccountName', required['serviceAccountName']);
  setValue(out, 'hostNetwork', required['hostNetwork']);
  setPtr(out, 'hostUsers', required['hostUsers']);
  if (isObject(required['nodeSelector']) && Object.keys(required['nodeSelector']).length > 0) {
    const merged = { ...(isObject(live['nodeSelector']) ? live['nodeSelector'] : {}), ...required['nodeSelector'] };
    if (!semanticEqual(merged, live['nodeSelector'])) out['nodeSelector'] = merged;
  }
  ensurePodSecurityContext(out, required['securityContext']);
  ensureAffinity(out, required['affinity']);
  ensureTolerations(out, required['tolerations']);
  setStringIfSet(out, 'priorityClassName', required['priorityClassName']);
  setPtr(out, 'priority', required['priority']);
  setPtr(out, 'shareProcessNamespace', required['shareProcessNamespace']);
  setValue(
    out,
    'dnsPolicy',
    typeof required['dnsPolicy'] === 'string' && required['dnsPolicy'] !== '' ? required['dnsPolicy'] : 'ClusterFirst',
  );
  setPtr(out, 'terminationGracePeriodSeconds', required['terminationGracePeriodSeconds'] ?? 30);
  return out;
}
