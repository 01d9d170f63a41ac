/**
 * The template functions upstream's template controller registers (release-4.20): pkg/controller/common/helpers.go
 * GetTemplateFuncMap (`toString` = sprig's strval, `indent`) and pkg/controller/template/render.go renderTemplate
 * (`skip`, `cloudProvider`, `credentialProviderConfigFlag`, the onPremPlatform* helpers, `urlHost`/`urlPort`,
 * `isOpenShiftManagedDefaultLB`, the cloudPlatform*LoadBalancerIPs helpers, `platformType`, `join`). Their
 * results, errors (and the panics Go's executor turns into errors) are upstream's.
 */
import {
  formatValue,
  GoFuncError,
  GoNil,
  type FuncMap,
  type FuncSpec,
  type GoParamType,
  type ParamType,
} from '@keelson/gotemplate';
import { RenderConfig } from './render-config.js';

type Json = Record<string, unknown>;

const renderConfigType: GoParamType = { goType: 'template.RenderConfig', accepts: (v) => v instanceof RenderConfig };
const stringSliceType: GoParamType = {
  goType: '[]string',
  accepts: (v) =>
    (Array.isArray(v) && v.every((e) => typeof e === 'string')) || (v instanceof GoNil && v.kind === 'slice'),
  nilable: true,
};

const NIL_DEREF = 'runtime error: invalid memory address or nil pointer dereference';

function platformStatus(cfg: unknown): Json | undefined {
  const ps = ((cfg as RenderConfig).spec.infra?.status as Json | undefined)?.['platformStatus'];
  return ps !== null && typeof ps === 'object' ? (ps as Json) : undefined;
}

const typeOf = (ps: Json): string => (typeof ps['type'] === 'string' ? ps['type'] : '');
const sub = (ps: Json, key: string): Json | undefined => {
  const v = ps[key];
  return v !== null && typeof v === 'object' ? (v as Json) : undefined;
};
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** sprig's strval as MCO copies it: string, []byte, error, Stringer, else fmt's %v. */
export function toString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof GoNil && v.typeName === '[]uint8') return '';
  if (v === null || v === undefined) return '<nil>';
  return formatValue(v);
}

/** sprig's indent: pads every line by `spaces`. */
export function indent(spaces: number, v: string): string {
  const pad = ' '.repeat(Math.max(0, spaces));
  return pad + v.replaceAll('\n', `\n${pad}`);
}

/** skipMissing: `{{skip "key"}}` leaves `{{.key}}` for the machine-config-server to fill. */
export function skipMissing(key: string): string {
  if (!/^[_a-z]\w*$/.test(key)) throw new GoFuncError('invalid key for skipKey');
  return `{{.${key}}}`;
}

const EXTERNAL_CLOUD = new Set([
  'AlibabaCloud',
  'AWS',
  'Azure',
  'GCP',
  'IBMCloud',
  'Kubevirt',
  'Nutanix',
  'OpenStack',
  'PowerVS',
  'VSphere',
]);

/** cloudProvider with library-go cloudprovider.IsCloudProviderExternal: "external" or "". */
export function cloudProvider(cfg: unknown): string {
  const ps = platformStatus(cfg);
  if (!ps) return '';
  const t = typeOf(ps);
  if (EXTERNAL_CLOUD.has(t)) return 'external';
  if (t === 'External') {
    const ccm = sub(sub(ps, 'external') ?? {}, 'cloudControllerManager');
    return ccm?.['state'] === 'External' ? 'external' : '';
  }
  return '';
}

/** credentialProviderConfigFlag: the kubelet's image credential provider flags on AWS, GCP and Azure. */
export function credentialProviderConfigFlag(cfg: unknown): string {
  const bin = '--image-credential-provider-bin-dir=/usr/libexec/kubelet-image-credential-provider-plugins';
  const conf = '--image-credential-provider-config=/etc/kubernetes/credential-providers/';
  const file = {
    AWS: 'ecr-credential-provider.yaml',
    GCP: 'gcr-credential-provider.yaml',
    Azure: 'acr-credential-provider.yaml',
  }[typeOf(platformStatus(cfg) ?? {})];
  return file === undefined ? '' : `${bin} ${conf}${file}`;
}

const ON_PREM_KEYS: Readonly<Record<string, string>> = {
  BareMetal: 'baremetal',
  Ovirt: 'ovirt',
  OpenStack: 'openstack',
  VSphere: 'vsphere',
  Nutanix: 'nutanix',
};

/** onPremPlatformShortName. */
export function onPremPlatformShortName(cfg: unknown): string {
  const t = typeOf(platformStatus(cfg) ?? {});
  return { BareMetal: 'kni', Ovirt: 'ovirt', OpenStack: 'openstack', VSphere: 'vsphere', Nutanix: 'nutanix' }[t] ?? '';
}

/** The on-prem helpers: `field` of the platform's status, all (`many`) or the first (Go panics become errors). */
function onPremIPs(cfg: unknown, field: 'ingressIPs' | 'apiServerInternalIPs', many: boolean, what: string): unknown {
  const ps = platformStatus(cfg);
  if (!ps) throw new GoFuncError('');
  const t = typeOf(ps);
  const key = ON_PREM_KEYS[t];
  if (key === undefined) throw new GoFuncError(`invalid platform for ${what}`);
  const status = sub(ps, key);
  if (!status) {
    if (t === 'VSphere') return many ? [] : null;
    throw new GoFuncError(NIL_DEREF);
  }
  const ips =
    status[field] === undefined || status[field] === null ? new GoNil('[]string', 'slice') : strings(status[field]);
  if (many) return ips;
  const list = ips instanceof GoNil ? [] : ips;
  if (list.length === 0) {
    if (t === 'VSphere') return null;
    throw new GoFuncError('runtime error: index out of range [0] with length 0');
  }
  return list[0];
}

/** urlHost / urlPort: net/url's Parse, Hostname and Port. */
function parseURL(u: string): { scheme: string; host: string } {
  if (Array.from(u).some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    throw new GoFuncError(`invalid url: parse ${JSON.stringify(u)}: net/url: invalid control character in URL`);
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(u);
  const scheme = m?.[1]?.toLowerCase() ?? '';
  const rest = m ? (m[2] ?? '') : u;
  if (!rest.startsWith('//')) return { scheme, host: '' };
  const authority = /^\/\/([^/?#]*)/.exec(rest)?.[1] ?? '';
  const at = authority.lastIndexOf('@');
  return { scheme, host: at >= 0 ? authority.slice(at + 1) : authority };
}

function splitHostPort(host: string): { hostname: string; port: string } {
  const colon = host.lastIndexOf(':');
  const port = colon >= 0 && /^:\d*$/.test(host.slice(colon)) ? host.slice(colon + 1) : '';
  let hostname = colon >= 0 && /^:\d*$/.test(host.slice(colon)) ? host.slice(0, colon) : host;
  if (hostname.startsWith('['))
    hostname = hostname.slice(1, hostname.indexOf(']') >= 0 ? hostname.indexOf(']') : undefined);
  return { hostname, port };
}

export function urlHost(u: string): string {
  return splitHostPort(parseURL(u).host).hostname;
}

export function urlPort(u: string): string {
  const { scheme, host } = parseURL(u);
  const { port } = splitHostPort(host);
  if (port !== '') return port;
  if (scheme === 'https') return '443';
  if (scheme === 'http') return '80';
  throw new GoFuncError(`unknown scheme in ${u}`);
}

/** isOpenShiftManagedDefaultLB (note upstream's `default: return true` for every non-on-prem platform). */
export function isOpenShiftManagedDefaultLB(cfg: unknown): boolean {
  const ps = platformStatus(cfg);
  if (!ps) return false;
  const t = typeOf(ps);
  const key = ON_PREM_KEYS[t];
  if (key === undefined) return true;
  const status = sub(ps, key);
  if (!status) return false;
  if (t === 'VSphere' && strings(status['apiServerInternalIPs']).length === 0) return false;
  const lb = sub(status, 'loadBalancer');
  return (lb ? lb['type'] : 'OpenShiftManagedDefault') === 'OpenShiftManagedDefault';
}

type LBState = 'Available' | 'Absent' | 'Default';

/** cloudPlatformLoadBalancerIPState. */
export function cloudPlatformLoadBalancerIPState(cfg: unknown): LBState {
  const ps = platformStatus(cfg);
  const key = { GCP: 'gcp', AWS: 'aws' }[typeOf(ps ?? {})];
  if (!ps || key === undefined) return 'Default';
  const lbc = sub(sub(ps, key) ?? {}, 'cloudLoadBalancerConfig');
  if (lbc?.['dnsType'] !== 'ClusterHosted') return 'Default';
  return sub(lbc, 'clusterHosted') ? 'Available' : 'Absent';
}

function cloudLBIPs(cfg: unknown, field: string, absentWhat: string, invalid: string): unknown {
  const ps = platformStatus(cfg);
  if (!ps) throw new GoFuncError('');
  const t = typeOf(ps);
  const key = { GCP: 'gcp', AWS: 'aws' }[t];
  if (key === undefined) throw new GoFuncError(invalid);
  const state = cloudPlatformLoadBalancerIPState(cfg);
  if (state === 'Absent') throw new GoFuncError(`${t} ${absentWhat} unavailable when the DNSType is ClusterHosted`);
  if (state !== 'Available') throw new GoFuncError('');
  const v = sub(sub(sub(ps, key) ?? {}, 'cloudLoadBalancerConfig') ?? {}, 'clusterHosted')?.[field];
  return v === undefined || v === null ? new GoNil('[]v1.IP', 'slice') : strings(v);
}

/** platformType: the PlatformStatus type. */
export function platformType(cfg: unknown): string {
  const ps = platformStatus(cfg);
  if (!ps) throw new GoFuncError('could not determine platform type');
  return typeOf(ps);
}

const rc: ParamType[] = [renderConfigType];
const f = (fn: FuncSpec['fn'], params: ParamType[]): FuncSpec => ({ fn, params });

/** The FuncMap upstream's renderTemplate passes to text/template. */
export const mcoTemplateFuncs: FuncMap = {
  toString: f(toString, ['any']),
  indent: f((n, v) => indent(n as number, v as string), ['int', 'string']),
  skip: f((k) => skipMissing(k as string), ['string']),
  cloudProvider: f(cloudProvider, rc),
  credentialProviderConfigFlag: f(credentialProviderConfigFlag, rc),
  onPremPlatformAPIServerInternalIP: f(
    (c) => onPremIPs(c, 'apiServerInternalIPs', false, 'API Server Internal IP'),
    rc,
  ),
  onPremPlatformAPIServerInternalIPs: f(
    (c) => onPremIPs(c, 'apiServerInternalIPs', true, 'API Server Internal IP'),
    rc,
  ),
  onPremPlatformIngressIP: f((c) => onPremIPs(c, 'ingressIPs', false, 'Ingress IP'), rc),
  onPremPlatformIngressIPs: f((c) => onPremIPs(c, 'ingressIPs', true, 'Ingress IP'), rc),
  onPremPlatformShortName: f(onPremPlatformShortName, rc),
  urlHost: f((u) => urlHost(u as string), ['string']),
  urlPort: f((u) => urlPort(u as string), ['string']),
  isOpenShiftManagedDefaultLB: f(isOpenShiftManagedDefaultLB, rc),
  cloudPlatformAPIIntLoadBalancerIPs: f(
    (c) =>
      cloudLBIPs(c, 'apiIntLoadBalancerIPs', 'API Server IPs', 'invalid cloud platform for API Server Internal IPs'),
    rc,
  ),
  cloudPlatformAPILoadBalancerIPs: f(
    (c) => cloudLBIPs(c, 'apiLoadBalancerIPs', 'API Server IPs', 'invalid cloud platform for API Server IPs'),
    rc,
  ),
  cloudPlatformIngressLoadBalancerIPs: f(
    (c) =>
      cloudLBIPs(c, 'ingressLoadBalancerIPs', 'Ingress IPs', 'invalid cloud platform for Ingress LoadBalancer IPs'),
    rc,
  ),
  platformType: f(platformType, rc),
  join: f(
    (elems, sep) => (elems instanceof GoNil || elems === null ? [] : (elems as string[])).join(sep as string),
    [stringSliceType, 'string'],
  ),
};
