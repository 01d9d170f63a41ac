/**
 * The template data as upstream's `RenderConfig` (openshift/machine-config-operator pkg/controller/template/render.go):
 * `*ControllerConfigSpec` embedded (its fields promoted) plus PullSecret, TLSMinVersion, TLSCipherSuites and Constants.
 * Go templates see Go structs, so the ControllerConfig JSON is turned into Go-typed values (Go field names, nil
 * pointers, nil slices, `[]byte` from base64) by the schema below: `{{if .Proxy}}` is false when there is no proxy,
 * `.Proxy.HTTPProxy` on a nil Proxy fails as Go's does, `toString .AdditionalTrustBundle` gets the bytes.
 */
import { GoNil, GoStruct } from '@keelson/gotemplate';
import type { ControllerConfigSpec } from '@keelson/api';

type FieldType =
  | 'string'
  | 'bool'
  | 'int'
  | 'bytes'
  | '[]string'
  | 'map[string]string'
  | '*uint32'
  | 'json'
  | { ptr: StructSchema }
  | { struct: StructSchema }
  | { slice: StructSchema };
interface StructSchema {
  name: string;
  fields: Array<[goName: string, jsonName: string, type: FieldType]>;
}

const s = (name: string, fields: StructSchema['fields']): StructSchema => ({ name, fields });
const str = (...names: Array<[string, string]>): StructSchema['fields'] => names.map(([g, j]) => [g, j, 'string']);

const objectMeta: StructSchema['fields'] = [
  ...str(
    ['Kind', 'kind'],
    ['APIVersion', 'apiVersion'],
    ['Name', 'name'],
    ['Namespace', 'namespace'],
    ['UID', 'uid'],
    ['ResourceVersion', 'resourceVersion'],
  ),
];
const lbIPs = s('v1.CloudLoadBalancerIPs', [
  ['APIIntLoadBalancerIPs', 'apiIntLoadBalancerIPs', '[]string'],
  ['APILoadBalancerIPs', 'apiLoadBalancerIPs', '[]string'],
  ['IngressLoadBalancerIPs', 'ingressLoadBalancerIPs', '[]string'],
]);
const cloudLB = s('v1.CloudLoadBalancerConfig', [
  ['DNSType', 'dnsType', 'string'],
  ['ClusterHosted', 'clusterHosted', { ptr: lbIPs }],
]);
const lbType = s('v1.BareMetalPlatformLoadBalancer', [['Type', 'type', 'string']]);
const onPrem = (name: string): StructSchema =>
  s(name, [
    ['APIServerInternalIP', 'apiServerInternalIP', 'string'],
    ['APIServerInternalIPs', 'apiServerInternalIPs', '[]string'],
    ['IngressIP', 'ingressIP', 'string'],
    ['IngressIPs', 'ingressIPs', '[]string'],
    ['NodeDNSIP', 'nodeDNSIP', 'string'],
    ['LoadBalancer', 'loadBalancer', { ptr: { ...lbType, name: `${name.replace('Status', '')}LoadBalancer` } }],
    ['MachineNetworks', 'machineNetworks', '[]string'],
  ]);
const cloud = (name: string): StructSchema =>
  s(name, [
    ['Region', 'region', 'string'],
    ['ResourceTags', 'resourceTags', 'json'],
    ['ServiceEndpoints', 'serviceEndpoints', 'json'],
    ['CloudLoadBalancerConfig', 'cloudLoadBalancerConfig', { ptr: cloudLB }],
  ]);
const gcp = s('v1.GCPPlatformStatus', [
  ['ProjectID', 'projectID', 'string'],
  ['Region', 'region', 'string'],
  ['ResourceLabels', 'resourceLabels', 'json'],
  ['ResourceTags', 'resourceTags', 'json'],
  ['CloudLoadBalancerConfig', 'cloudLoadBalancerConfig', { ptr: cloudLB }],
]);
const generic = (name: string): StructSchema => s(name, []);

const platformStatus = s('v1.PlatformStatus', [
  ['Type', 'type', 'string'],
  ['AWS', 'aws', { ptr: cloud('v1.AWSPlatformStatus') }],
  ['Azure', 'azure', { ptr: generic('v1.AzurePlatformStatus') }],
  ['GCP', 'gcp', { ptr: gcp }],
  ['BareMetal', 'baremetal', { ptr: onPrem('v1.BareMetalPlatformStatus') }],
  ['OpenStack', 'openstack', { ptr: onPrem('v1.OpenStackPlatformStatus') }],
  ['Ovirt', 'ovirt', { ptr: onPrem('v1.OvirtPlatformStatus') }],
  ['VSphere', 'vsphere', { ptr: onPrem('v1.VSpherePlatformStatus') }],
  ['IBMCloud', 'ibmcloud', { ptr: generic('v1.IBMCloudPlatformStatus') }],
  ['Kubevirt', 'kubevirt', { ptr: generic('v1.KubevirtPlatformStatus') }],
  ['EquinixMetal', 'equinixMetal', { ptr: generic('v1.EquinixMetalPlatformStatus') }],
  ['PowerVS', 'powervs', { ptr: generic('v1.PowerVSPlatformStatus') }],
  ['AlibabaCloud', 'alibabaCloud', { ptr: generic('v1.AlibabaCloudPlatformStatus') }],
  ['Nutanix', 'nutanix', { ptr: onPrem('v1.NutanixPlatformStatus') }],
  ['External', 'external', { ptr: generic('v1.ExternalPlatformStatus') }],
]);
const infraStatus = s('v1.InfrastructureStatus', [
  ...str(
    ['InfrastructureName', 'infrastructureName'],
    ['Platform', 'platform'],
    ['EtcdDiscoveryDomain', 'etcdDiscoveryDomain'],
    ['APIServerURL', 'apiServerURL'],
    ['APIServerInternalURL', 'apiServerInternalURI'],
    ['ControlPlaneTopology', 'controlPlaneTopology'],
    ['InfrastructureTopology', 'infrastructureTopology'],
    ['CPUPartitioning', 'cpuPartitioning'],
  ),
  ['PlatformStatus', 'platformStatus', { ptr: platformStatus }],
]);
const infra = s('v1.Infrastructure', [
  ...objectMeta,
  [
    'Spec',
    'spec',
    {
      struct: s('v1.InfrastructureSpec', [
        [
          'CloudConfig',
          'cloudConfig',
          { struct: s('v1.ConfigMapFileReference', str(['Name', 'name'], ['Key', 'key'])) },
        ],
        ['PlatformSpec', 'platformSpec', 'json'],
      ]),
    },
  ],
  ['Status', 'status', { struct: infraStatus }],
]);
const dns = s('v1.DNS', [
  ...objectMeta,
  [
    'Spec',
    'spec',
    {
      struct: s('v1.DNSSpec', [
        ['BaseDomain', 'baseDomain', 'string'],
        ['PublicZone', 'publicZone', 'json'],
        ['PrivateZone', 'privateZone', 'json'],
        ['Platform', 'platform', 'json'],
      ]),
    },
  ],
]);
const proxy = s(
  'v1.ProxyStatus',
  str(['HTTPProxy', 'httpProxy'], ['HTTPSProxy', 'httpsProxy'], ['NoProxy', 'noProxy']),
);
const mtuValues = s('v1.MTUMigrationValues', [
  ['To', 'to', '*uint32'],
  ['From', 'from', '*uint32'],
]);
const network = s('v1.NetworkInfo', [
  [
    'MTUMigration',
    'mtuMigration',
    {
      ptr: s('v1.MTUMigration', [
        ['Network', 'network', { ptr: mtuValues }],
        ['Machine', 'machine', { ptr: mtuValues }],
      ]),
    },
  ],
]);
const bundle = s('v1.ImageRegistryBundle', [
  ['File', 'file', 'string'],
  ['Data', 'data', 'bytes'],
]);
const objectRef = s(
  'v1.ObjectReference',
  str(
    ['Kind', 'kind'],
    ['Namespace', 'namespace'],
    ['Name', 'name'],
    ['UID', 'uid'],
    ['APIVersion', 'apiVersion'],
    ['ResourceVersion', 'resourceVersion'],
    ['FieldPath', 'fieldPath'],
  ),
);

/** mcfgv1.ControllerConfigSpec of release-4.20, field by field. */
export const controllerConfigSpecSchema = s('v1.ControllerConfigSpec', [
  ...str(
    ['ClusterDNSIP', 'clusterDNSIP'],
    ['CloudProviderConfig', 'cloudProviderConfig'],
    ['Platform', 'platform'],
    ['EtcdDiscoveryDomain', 'etcdDiscoveryDomain'],
  ),
  ['KubeAPIServerServingCAData', 'kubeAPIServerServingCAData', 'bytes'],
  ['RootCAData', 'rootCAData', 'bytes'],
  ['CloudProviderCAData', 'cloudProviderCAData', 'bytes'],
  ['AdditionalTrustBundle', 'additionalTrustBundle', 'bytes'],
  ['ImageRegistryBundleUserData', 'imageRegistryBundleUserData', { slice: bundle }],
  ['ImageRegistryBundleData', 'imageRegistryBundleData', { slice: bundle }],
  ['PullSecret', 'pullSecret', { ptr: objectRef }],
  ['InternalRegistryPullSecret', 'internalRegistryPullSecret', 'bytes'],
  ['Images', 'images', 'map[string]string'],
  ...str(
    ['BaseOSContainerImage', 'baseOSContainerImage'],
    ['BaseOSExtensionsContainerImage', 'baseOSExtensionsContainerImage'],
    ['OSImageURL', 'osImageURL'],
    ['ReleaseImage', 'releaseImage'],
  ),
  ['Proxy', 'proxy', { ptr: proxy }],
  ['Infra', 'infra', { ptr: infra }],
  ['DNS', 'dns', { ptr: dns }],
  ['IPFamilies', 'ipFamilies', 'string'],
  ['NetworkType', 'networkType', 'string'],
  ['Network', 'network', { ptr: network }],
]);

type Json = Record<string, unknown>;

function zero(t: FieldType): unknown {
  if (typeof t === 'object') {
    if ('ptr' in t) return new GoNil(`*${t.ptr.name}`, 'ptr', new Set(t.ptr.fields.map((f) => f[0])));
    if ('slice' in t) return new GoNil(`[]${t.slice.name}`, 'slice');
    return toStruct(t.struct, {}, false);
  }
  switch (t) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int':
      return 0;
    case 'bytes':
      return new GoNil('[]uint8', 'slice');
    case '[]string':
      return new GoNil('[]string', 'slice');
    case 'map[string]string':
      return new GoNil('map[string]string', 'map');
    case '*uint32':
      return new GoNil('*uint32', 'ptr');
    default:
      return undefined;
  }
}

function convert(t: FieldType, v: unknown): unknown {
  if (v === undefined || v === null) return zero(t);
  if (typeof t === 'object') {
    if ('ptr' in t) return toStruct(t.ptr, v as Json, true);
    if ('struct' in t) return toStruct(t.struct, v as Json, false);
    return Array.isArray(v) ? v.map((e) => toStruct(t.slice, e as Json, false)) : zero(t);
  }
  switch (t) {
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : zero(t);
    case '[]string':
      return Array.isArray(v) ? v.map(String) : zero(t);
    case 'map[string]string':
      return new Map(Object.entries(v as Json).map(([k, e]) => [k, String(e)]));
    default:
      return v;
  }
}

function toStruct(schema: StructSchema, json: Json, pointer: boolean): GoStruct {
  const fields = new Map<string, unknown>();
  for (const [goName, jsonName, t] of schema.fields) fields.set(goName, convert(t, json[jsonName]));
  return new GoStruct(schema.name, fields, new Map(), pointer);
}

/** The RenderConfig value templates execute with; `spec` keeps the JSON for the MCO's template functions. */
export class RenderConfig extends GoStruct {
  constructor(
    readonly spec: ControllerConfigSpec,
    fields: ReadonlyMap<string, unknown>,
  ) {
    super('template.RenderConfig', fields);
  }
}

/** pkg/constants ConstantsByName. */
export const constantsByName: ReadonlyMap<string, string> = new Map([
  ['APIServerURLFile', '/etc/kubernetes/apiserver-url.env'],
]);

/** Builds the RenderConfig (upstream getMachineConfigsForControllerConfig's `rc`). */
export function renderConfig(
  spec: ControllerConfigSpec,
  pullSecret: string,
  tlsMinVersion: string,
  tlsCipherSuites: readonly string[],
): RenderConfig {
  const promoted = toStruct(controllerConfigSpecSchema, spec as unknown as Json, true);
  const fields = new Map(promoted.fields);
  fields.set('PullSecret', pullSecret);
  fields.set('TLSMinVersion', tlsMinVersion);
  fields.set('TLSCipherSuites', [...tlsCipherSuites]);
  fields.set('Constants', new Map(constantsByName));
  return new RenderConfig(spec, fields);
}
