/**
 * The cluster-derived part of the ControllerConfig spec, pure: what openshift/machine-config-operator release-4.20
 * `pkg/operator/render.go` `createDiscoveredControllerConfigSpec` takes from Infrastructure, Network, Proxy and DNS
 * (cluster DNS IP, IP families, platform, network type, MTU migration, proxy status), plus the pieces
 * `pkg/operator/sync.go` `syncRenderConfig` adds: the additional trust bundle (user-ca-bundle + the proxy's trusted
 * CA), the image registry bundles, the cloud provider config and the component images of images.json.
 */
import { X509Certificate } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { ConfigMap, EmbeddedInfrastructure, ImageRegistryBundle } from '../common/api-types.js';
import { OperatorSyncError } from '@keelson/machineconfig';

/** A config.openshift.io object as read (Infrastructure, Network, Proxy, DNS, Image). */
export type ConfigObject = Record<string, unknown> & {
  metadata?: { name?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

const fail = (message: string): OperatorSyncError => new OperatorSyncError('RenderConfig', message);

function ipv4Bytes(s: string): number[] {
  return s.split('.').map(Number);
}

function ipv6Bytes(s: string): number[] {
  let text = s;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = ipv4Bytes(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (p: string): number[] => (p === '' ? [] : p.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const all = [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Go's net.IP.String of a 16-byte IPv6 address (RFC 5952: longest zero run of 2+ groups compressed, lower hex). */
function formatIPv6(bytes: readonly number[]): string {
  const g = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = (a: number[]): string => a.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return `${hex(g.slice(0, best))}::${hex(g.slice(best + bestLen))}`;
}

/** A parsed CIDR: the network's address bytes and prefix length. */
interface Cidr {
  bytes: number[];
  prefix: number;
  v6: boolean;
}

/** Go's net.ParseCIDR (the address masked to the network). */
function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const v6 = isIPv6(ip);
  if (!v6 && !isIPv4(ip)) return undefined;
  const max = v6 ? 128 : 32;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  const prefix = Number(bits);
  const bytes = v6 ? ipv6Bytes(ip) : ipv4Bytes(ip);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - 8 * i));
    bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
  }
  return { bytes, prefix, v6 };
}

/**
 * `clusterDNSIP`: host number 10 of the service network (go-cidr `cidr.Host(network, 10)`), e.g. 172.30.0.0/16 →
 * 172.30.0.10, fd02::/112 → fd02::a.
 * @throws OperatorSyncError when the CIDR is invalid or too small
 */
export function clusterDNSIP(serviceCIDR: string): string {
  const c = parseCidr(serviceCIDR);
  if (c === undefined) throw fail(`invalid CIDR address: ${serviceCIDR}`);
  const hostBits = c.bytes.length * 8 - c.prefix;
  if (hostBits < 4) throw fail(`prefix of ${c.prefix} does not accommodate a host numbered 10`);
  const bytes = [...c.bytes];
  let carry = 10;
  for (let i = bytes.length - 1; i >= 0 && carry > 0; i--) {
    const v = (bytes[i] ?? 0) + carry;
    bytes[i] = v & 0xff;
    carry = v >> 8;
  }
  return c.v6 ? formatIPv6(bytes) : bytes.join('.');
}

/** `ipFamilies`: IPv4, IPv6, DualStack or DualStackIPv6Primary (the first service network decides the primary). */
export function ipFamilies(serviceCIDRs: readonly string[]): string {
  let v4 = false;
  let v6 = false;
  let v6Primary = false;
  serviceCIDRs.forEach((s, i) => {
    if (parseCidr(s)?.v6 === true) {
      v6 = true;
      if (i === 0) v6Primary = true;
    } else v4 = true;
  });
  if (v4 && v6) return v6Primary ? 'DualStackIPv6Primary' : 'DualStack';
  if (v4) return 'IPv4';
  if (v6) return 'IPv6';
  throw fail('could not determine cluster IP families from config');
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The spec fields `createDiscoveredControllerConfigSpec` fills. */
export interface DiscoveredSpec {
  clusterDNSIP: string;
  ipFamilies: string;
  etcdDiscoveryDomain?: string;
  platform: string;
  infra: EmbeddedInfrastructure;
  dns: Record<string, unknown> | null;
  networkType?: string;
  network: { mtuMigration: Record<string, unknown> | null } | null;
  proxy: Record<string, string> | null;
}

/** Infrastructure with `status.platformStatus` as upstream completes it (from the legacy `status.platform`, else None). */
export function completeInfrastructure(infra: ConfigObject): EmbeddedInfrastructure {
  const status = { ...(obj(infra.status) ?? {}) };
  const ps = obj(status['platformStatus']);
  const legacy = str(status['platform']);
  if (ps === undefined && legacy !== '') status['platformStatus'] = { type: legacy };
  else if (ps === undefined || str(ps['type']) === '') status['platformStatus'] = { type: 'None' };
  return {
    ...infra,
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    spec: obj(infra.spec) ?? {},
    status,
  };
}

/** Network type: spec at install (status unset), the migration's during an SDN migration, else status. */
function networkTypeOf(network: ConfigObject): { networkType: string; mtu: Record<string, unknown> | undefined } {
  const status = obj(network.status) ?? {};
  const migration = obj(status['migration']);
  if (str(status['networkType']) === '')
    return { networkType: str(obj(network.spec)?.['networkType']), mtu: undefined };
  if (migration !== undefined) return { networkType: str(migration['networkType']), mtu: obj(migration['mtu']) };
  return { networkType: str(status['networkType']), mtu: undefined };
}

/**
 * `createDiscoveredControllerConfigSpec`.
 * @throws OperatorSyncError "service cidr is empty in Network", or for an invalid service network
 */
export function discoverSpec(
  infra: ConfigObject,
  network: ConfigObject,
  proxy: ConfigObject | undefined,
  dns: ConfigObject | undefined,
): DiscoveredSpec {
  const serviceNetwork = (obj(network.spec)?.['serviceNetwork'] as unknown[] | undefined)?.map(str) ?? [];
  const first = serviceNetwork[0];
  if (first === undefined) throw fail('service cidr is empty in Network');
  const dnsIP = clusterDNSIP(first);
  const families = ipFamilies(serviceNetwork);
  const full = completeInfrastructure(infra);
  const type = str(obj(full.status?.platformStatus)?.['type']);
  const { networkType, mtu } = networkTypeOf(network);
  const proxyStatus = obj(proxy?.status) ?? {};
  const proxyFields = Object.fromEntries(
    Object.entries(proxyStatus).filter(([, v]) => typeof v === 'string' && v !== ''),
  ) as Record<string, string>;
  const etcd = str(full.status?.etcdDiscoveryDomain);
  return {
    clusterDNSIP: dnsIP,
    ipFamilies: families,
    ...(etcd !== '' ? { etcdDiscoveryDomain: etcd } : {}),
    platform: type === '' ? 'none' : type.toLowerCase(),
    infra: full,
    dns: dns === undefined ? null : { ...dns, apiVersion: 'config.openshift.io/v1', kind: 'DNS' },
    ...(networkType !== '' ? { networkType } : {}),
    network: mtu !== undefined ? { mtuMigration: mtu } : null,
    // an empty Proxy status is not set ("Not setting proxy config because Proxy status is empty")
    proxy: Object.keys(proxyFields).length > 0 ? proxyFields : null,
  };
}

/** Whether `pem` holds at least one parseable certificate (Go's `CertPool.AppendCertsFromPEM`). */
export function hasPemCertificate(pem: Buffer): boolean {
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.some((b) => {
    try {
      new X509Certificate(b);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The additional trust bundle: `openshift-config/user-ca-bundle` then, when the Proxy names another ConfigMap as its
 * trusted CA, that one's `ca-bundle.crt`; each must hold a valid PEM bundle. Null when both are empty.
 * @throws OperatorSyncError "configmap openshift-config/NAME doesn't have a valid PEM bundle"
 */
export function trustBundle(
  userCA: Buffer | undefined,
  proxyCA: { name: string; data: Buffer } | undefined,
): string | null {
  const parts: Buffer[] = [];
  for (const [name, data] of [
    ['user-ca-bundle', userCA],
    [proxyCA?.name ?? '', proxyCA?.data],
  ] as const) {
    if (data === undefined || data.length === 0) continue;
    if (!hasPemCertificate(data)) throw fail(`configmap openshift-config/${name} doesn't have a valid PEM bundle`);
    parts.push(data);
  }
  return parts.length === 0 ? null : Buffer.concat(parts).toString('base64');
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bundles of a registry CA ConfigMap: one per `data` key (sorted; the value base64-decoded when it is strict
 * base64, else as is), then one per `binaryData` key (sorted). File names are the keys (`host..port` form).
 */
export function registryBundles(cm: ConfigMap | undefined): ImageRegistryBundle[] {
  if (cm === undefined) return [];
  const out: ImageRegistryBundle[] = [];
  const data = cm.data ?? {};
  for (const file of Object.keys(data).sort()) {
    const v = data[file] ?? '';
    const raw = STRICT_BASE64.test(v) ? Buffer.from(v, 'base64') : Buffer.from(v, 'utf8');
    out.push({ file, data: raw.toString('base64') });
  }
  const bin = (cm as { binaryData?: Record<string, string> }).binaryData ?? {};
  for (const file of Object.keys(bin).sort()) out.push({ file, data: bin[file] ?? '' });
  return out;
}

/** `merged-trusted-image-registry-ca` data: the managed bundles then the user's, the later winning per file. */
export function mergedRegistryCAData(
  managed: readonly ImageRegistryBundle[],
  user: readonly ImageRegistryBundle[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of [...managed, ...user]) out[b.file] = Buffer.from(b.data, 'base64').toString('utf8');
  return out;
}

const CLOUD_CONF_PLATFORMS = new Set(['Azure', 'GCP', 'OpenStack', 'VSphere']);

/**
 * `syncCloudConfig`: `openshift-config-managed/kube-cloud-config` `cloud.conf` and `ca-bundle.pem`. The ConfigMap is
 * required when the Infrastructure names a cloud config or the platform needs one (Azure, GCP, OpenStack, vSphere);
 * `cloud.conf` only on those platforms.
 * @throws OperatorSyncError with upstream's texts
 */
export function cloudConfig(
  cm: ConfigMap | undefined,
  infra: EmbeddedInfrastructure,
  caFrom: (cm: ConfigMap, key: string) => Buffer,
): { cloudProviderConfig: string; cloudProviderCAData: string | null } {
  const type = str(obj(infra.status?.platformStatus)?.['type']);
  const needsConf = CLOUD_CONF_PLATFORMS.has(type);
  const named = str(obj(obj(infra.spec)?.['cloudConfig'])?.['name']) !== '';
  if (cm === undefined) {
    if (named || needsConf)
      throw fail(
        `openshift-config-managed/kube-cloud-config configmap is required on platform ${type} but not found: configmap "kube-cloud-config" not found`,
      );
    return { cloudProviderConfig: '', cloudProviderCAData: null };
  }
  const conf = cm.data?.['cloud.conf'];
  if (conf === undefined && needsConf)
    throw fail(
      `openshift-config-managed/kube-cloud-config configmap must have the cloud.conf key on platform ${type} but not found`,
    );
  let ca: string | null;
  try {
    ca = caFrom(cm, 'ca-bundle.pem').toString('base64');
  } catch {
    ca = null; // no ca-bundle.pem: no cloud provider CA, as upstream
  }
  return { cloudProviderConfig: conf ?? '', cloudProviderCAData: ca };
}

/** Keys of ControllerConfig `spec.images` (upstream `pkg/controller/template/constants.go`) by images.json field. */
const IMAGE_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['machineConfigOperator', 'machineConfigOperator'],
  ['apiServerWatcherKey', 'machineConfigOperator'],
  ['infraImageKey', 'infraImage'],
  ['keepalivedImage', 'keepalivedImage'],
  ['corednsImage', 'corednsImage'],
  ['haproxyImage', 'haproxyImage'],
  ['baremetalRuntimeCfgImage', 'baremetalRuntimeCfgImage'],
  ['kubeRbacProxyImage', 'kubeRbacProxy'],
];

/**
 * `spec.images` from the operator's images.json. In upstream's format (it carries `releaseVersion`) the release must be
 * the operator's ("refusing to read images.json version …") and the keys are mapped as upstream maps them (every key
 * present, empty when images.json lacks it); a plain map of spec.images keys (no `releaseVersion`) is taken as is.
 * @throws OperatorSyncError "error during operator version check: …"
 */
export function controllerConfigImages(
  imagesJson: Readonly<Record<string, string>>,
  operatorVersion: string,
): Record<string, string> {
  const rel = imagesJson['releaseVersion'];
  if (rel === undefined) return { ...imagesJson };
  if (rel !== operatorVersion)
    throw fail(
      `error during operator version check: [context deadline exceeded, refusing to read images.json version "${rel}", operator version "${operatorVersion}"]`,
    );
  return Object.fromEntries(IMAGE_KEYS.map(([key, field]) => [key, imagesJson[field] ?? '']));
}
