/**
 * `/etc/kubernetes/kubelet.conf` as the MCO's kubelet-config controller writes it (machine-config-operator
 * `pkg/controller/kubelet-config/helpers.go` `DecodeKubeletConfig` / `EncodeKubeletConfig`): the text decoded into
 * k8s.io/kubelet `config/v1beta1.KubeletConfiguration` (unknown keys dropped), then encoded by apimachinery's YAML
 * serializer — the struct's JSON (encoding/json: `omitempty` fields left out when zero, non-omitempty structs always
 * written, `metav1.Duration` as Go's `Duration.String()`) turned into YAML by sigs.k8s.io/yaml (yaml.v2: keys in
 * its natural order, sequences not indented). The field table follows the Go struct of the vendored release.
 */
import { parse as parseYaml } from 'yaml';
import { marshalYamlV2, parseJsonForYamlV2 } from '../../yamlv2.js';
import { parseGoDuration } from '@keelson/api';

type Obj = Record<string, unknown>;
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A kubelet.conf the Go decoder would refuse. */
export class KubeletConfigError extends Error {
  readonly code = 'KUBELET_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'KubeletConfigError';
  }
}

/** How a field is written: o* = omitempty kinds, `dur` = metav1.Duration (always), `always` = non-omitempty value. */
type Kind =
  | 'ostr'
  | 'oint'
  | 'obool'
  | 'optr'
  | 'optrdur'
  | 'dur'
  | 'olist'
  | 'omap'
  | 'always'
  | 'auth'
  | 'authz'
  | 'swap'
  | 'crash'
  | 'logging';

// k8s.io/kubelet/config/v1beta1 KubeletConfiguration, in struct order (TypeMeta handled by the encoder)
const FIELDS: ReadonlyArray<readonly [string, Kind]> = [
  ['enableServer', 'optr'],
  ['staticPodPath', 'ostr'],
  ['podLogsDir', 'ostr'],
  ['syncFrequency', 'dur'],
  ['fileCheckFrequency', 'dur'],
  ['httpCheckFrequency', 'dur'],
  ['staticPodURL', 'ostr'],
  ['staticPodURLHeader', 'omap'],
  ['address', 'ostr'],
  ['port', 'oint'],
  ['readOnlyPort', 'oint'],
  ['tlsCertFile', 'ostr'],
  ['tlsPrivateKeyFile', 'ostr'],
  ['tlsCipherSuites', 'olist'],
  ['tlsMinVersion', 'ostr'],
  ['rotateCertificates', 'obool'],
  ['serverTLSBootstrap', 'obool'],
  ['authentication', 'auth'],
  ['authorization', 'authz'],
  ['registryPullQPS', 'optr'],
  ['registryBurst', 'oint'],
  ['imagePullCredentialsVerificationPolicy', 'ostr'],
  ['preloadedImagesVerificationAllowlist', 'olist'],
  ['eventRecordQPS', 'optr'],
  ['eventBurst', 'oint'],
  ['enableDebuggingHandlers', 'optr'],
  ['enableContentionProfiling', 'obool'],
  ['healthzPort', 'optr'],
  ['healthzBindAddress', 'ostr'],
  ['oomScoreAdj', 'optr'],
  ['clusterDomain', 'ostr'],
  ['clusterDNS', 'olist'],
  ['streamingConnectionIdleTimeout', 'dur'],
  ['nodeStatusUpdateFrequency', 'dur'],
  ['nodeStatusReportFrequency', 'dur'],
  ['nodeLeaseDurationSeconds', 'oint'],
  ['imageMinimumGCAge', 'dur'],
  ['imageMaximumGCAge', 'dur'],
  ['imageGCHighThresholdPercent', 'optr'],
  ['imageGCLowThresholdPercent', 'optr'],
  ['volumeStatsAggPeriod', 'dur'],
  ['kubeletCgroups', 'ostr'],
  ['systemCgroups', 'ostr'],
  ['cgroupRoot', 'ostr'],
  ['cgroupsPerQOS', 'optr'],
  ['cgroupDriver', 'ostr'],
  ['cpuManagerPolicy', 'ostr'],
  ['singleProcessOOMKill', 'optr'],
  ['cpuManagerPolicyOptions', 'omap'],
  ['cpuManagerReconcilePeriod', 'dur'],
  ['memoryManagerPolicy', 'ostr'],
  ['topologyManagerPolicy', 'ostr'],
  ['topologyManagerScope', 'ostr'],
  ['topologyManagerPolicyOptions', 'omap'],
  ['qosReserved', 'omap'],
  ['runtimeRequestTimeout', 'dur'],
  ['hairpinMode', 'ostr'],
  ['maxPods', 'oint'],
  ['podCIDR', 'ostr'],
  ['podPidsLimit', 'optr'],
  ['resolvConf', 'optr'],
  ['runOnce', 'obool'],
  ['cpuCFSQuota', 'optr'],
  ['cpuCFSQuotaPeriod', 'optrdur'],
  ['nodeStatusMaxImages', 'optr'],
  ['maxOpenFiles', 'oint'],
  ['contentType', 'ostr'],
  ['kubeAPIQPS', 'optr'],
  ['kubeAPIBurst', 'oint'],
  ['serializeImagePulls', 'optr'],
  ['maxParallelImagePulls', 'optr'],
  ['evictionHard', 'omap'],
  ['evictionSoft', 'omap'],
  ['evictionSoftGracePeriod', 'omap'],
  ['evictionPressureTransitionPeriod', 'dur'],
  ['evictionMaxPodGracePeriod', 'oint'],
  ['evictionMinimumReclaim', 'omap'],
  ['mergeDefaultEvictionSettings', 'optr'],
  ['podsPerCore', 'oint'],
  ['enableControllerAttachDetach', 'optr'],
  ['protectKernelDefaults', 'obool'],
  ['makeIPTablesUtilChains', 'optr'],
  ['iptablesMasqueradeBit', 'optr'],
  ['iptablesDropBit', 'optr'],
  ['featureGates', 'omap'],
  ['failSwapOn', 'optr'],
  ['memorySwap', 'swap'],
  ['containerLogMaxSize', 'ostr'],
  ['containerLogMaxFiles', 'optr'],
  ['containerLogMaxWorkers', 'optr'],
  ['containerLogMonitorInterval', 'optrdur'],
  ['configMapAndSecretChangeDetectionStrategy', 'ostr'],
  ['systemReserved', 'omap'],
  ['kubeReserved', 'omap'],
  ['reservedSystemCPUs', 'ostr'],
  ['showHiddenMetricsForVersion', 'ostr'],
  ['systemReservedCgroup', 'ostr'],
  ['kubeReservedCgroup', 'ostr'],
  ['enforceNodeAllocatable', 'olist'],
  ['allowedUnsafeSysctls', 'olist'],
  ['volumePluginDir', 'ostr'],
  ['providerID', 'ostr'],
  ['kernelMemcgNotification', 'obool'],
  ['logging', 'logging'],
  ['enableSystemLogHandler', 'optr'],
  ['enableSystemLogQuery', 'optr'],
  ['shutdownGracePeriod', 'dur'],
  ['shutdownGracePeriodCriticalPods', 'dur'],
  ['shutdownGracePeriodByPodPriority', 'olist'],
  ['crashLoopBackOff', 'crash'],
  ['reservedMemory', 'olist'],
  ['enableProfilingHandler', 'optr'],
  ['enableDebugFlagsHandler', 'optr'],
  ['seccompDefault', 'optr'],
  ['memoryThrottlingFactor', 'optr'],
  ['registerWithTaints', 'olist'],
  ['registerNode', 'optr'],
  ['tracing', 'optr'],
  ['localStorageCapacityIsolation', 'optr'],
  ['containerRuntimeEndpoint', 'always'],
  ['imageServiceEndpoint', 'ostr'],
  ['failCgroupV1', 'optr'],
  ['userNamespaces', 'optr'],
];

const isObj = (x: unknown): x is Obj => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Go's time.Duration.String() of a duration in milliseconds. */
export function goDurationString(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6));
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  if (neg) ns = -ns;
  const frac = (v: bigint, digits: number): string => {
    const s = v.toString().padStart(digits, '0').replace(/0+$/, '');
    return s === '' ? '' : `.${s}`;
  };
  let out: string;
  if (ns < 1_000n) out = `${ns.toString()}ns`;
  else if (ns < 1_000_000n) out = `${(ns / 1_000n).toString()}${frac(ns % 1_000n, 3)}µs`;
  else if (ns < 1_000_000_000n) out = `${(ns / 1_000_000n).toString()}${frac(ns % 1_000_000n, 6)}ms`;
  else {
    const s = ns / 1_000_000_000n;
    const sec = `${(s % 60n).toString()}${frac(ns % 1_000_000_000n, 9)}s`;
    const m = s / 60n;
    out =
      m === 0n ? sec : m < 60n ? `${m.toString()}m${sec}` : `${(m / 60n).toString()}h${(m % 60n).toString()}m${sec}`;
  }
  return neg ? `-${out}` : out;
}

function duration(v: unknown, field: string): string {
  if (v === undefined || v === null) return '0s';
  if (typeof v !== 'string')
    throw new KubeletConfigError(`json: cannot unmarshal ${typeof v} into Go struct field ${field} of type string`);
  try {
    return goDurationString(parseGoDuration(v));
  } catch (e) {
    throw new KubeletConfigError(`${field}: ${(e as Error).message}`);
  }
}

const emptyish = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);

function sub(v: unknown): Obj {
  return isObj(v) ? v : {};
}

function special(kind: Kind, v: unknown, field: string): Json {
  const o = sub(v);
  const ptr = (x: unknown): { [k: string]: Json } => (typeof x === 'boolean' ? { enabled: x } : {});
  switch (kind) {
    case 'auth': {
      const x509 = sub(o['x509']);
      const webhook = sub(o['webhook']);
      return {
        x509:
          typeof x509['clientCAFile'] === 'string' && x509['clientCAFile'] !== ''
            ? { clientCAFile: x509['clientCAFile'] }
            : {},
        webhook: { ...ptr(webhook['enabled']), cacheTTL: duration(webhook['cacheTTL'], `${field}.webhook.cacheTTL`) },
        anonymous: ptr(sub(o['anonymous'])['enabled']),
      };
    }
    case 'authz': {
      const webhook = sub(o['webhook']);
      return {
        ...(typeof o['mode'] === 'string' && o['mode'] !== '' ? { mode: o['mode'] } : {}),
        webhook: {
          cacheAuthorizedTTL: duration(webhook['cacheAuthorizedTTL'], `${field}.webhook.cacheAuthorizedTTL`),
          cacheUnauthorizedTTL: duration(webhook['cacheUnauthorizedTTL'], `${field}.webhook.cacheUnauthorizedTTL`),
        },
      };
    }
    case 'swap':
      return typeof o['swapBehavior'] === 'string' && o['swapBehavior'] !== ''
        ? { swapBehavior: o['swapBehavior'] }
        : {};
    case 'crash':
      return o['maxContainerRestartPeriod'] === undefined || o['maxContainerRestartPeriod'] === null
        ? {}
        : { maxContainerRestartPeriod: duration(o['maxContainerRestartPeriod'], `${field}.maxContainerRestartPeriod`) };
    default:
      return logging(o);
  }
}

/** logsapi.LoggingConfiguration (flushFrequency as an integer of nanoseconds unless given as a string). */
function logging(o: Obj): Json {
  const routing = (x: unknown): Json => {
    const r = sub(x);
    return {
      ...(r['splitStream'] === true ? { splitStream: true } : {}),
      infoBufferSize:
        typeof r['infoBufferSize'] === 'string' || typeof r['infoBufferSize'] === 'number'
          ? String(r['infoBufferSize'])
          : '0',
    };
  };
  const ff = o['flushFrequency'];
  const options = sub(o['options']);
  return {
    ...(typeof o['format'] === 'string' && o['format'] !== '' ? { format: o['format'] } : {}),
    flushFrequency: typeof ff === 'string' ? goDurationString(parseGoDuration(ff)) : typeof ff === 'number' ? ff : 0,
    verbosity: typeof o['verbosity'] === 'number' ? o['verbosity'] : 0,
    ...(Array.isArray(o['vmodule']) && o['vmodule'].length > 0 ? { vmodule: o['vmodule'] as Json } : {}),
    options: { text: routing(sub(options['text'])), json: routing(sub(options['json'])) },
  };
}

function field(kind: Kind, v: unknown, name: string): Json | undefined {
  switch (kind) {
    case 'ostr':
      return typeof v === 'string' && v !== '' ? v : undefined;
    case 'oint':
      return typeof v === 'number' && v !== 0 ? v : undefined;
    case 'obool':
      return v === true ? true : undefined;
    case 'optr':
      return v === undefined || v === null ? undefined : (v as Json);
    case 'optrdur':
      return v === undefined || v === null ? undefined : duration(v, name);
    case 'dur':
      return duration(v, name);
    case 'olist':
    case 'omap':
      return emptyish(v) ? undefined : (v as Json);
    case 'always':
      return typeof v === 'string' ? v : '';
    default:
      return special(kind, v, name);
  }
}

/** A decoded KubeletConfiguration: the Go struct's JSON (`apiVersion`/`kind` as the encoder sets them). */
export type KubeletConfiguration = Obj;

/** DecodeKubeletConfig: YAML or JSON text → the struct's values (unknown keys dropped). @throws KubeletConfigError */
export function decodeKubeletConfig(text: string): KubeletConfiguration {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new KubeletConfigError(`could not deserialize the Kubelet source: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw new KubeletConfigError('could not deserialize the Kubelet source: not a mapping');
  return normalize(doc);
}

/** The struct round trip: every field as encoding/json would write it. */
export function normalize(src: Obj): KubeletConfiguration {
  const out: Obj = { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1' };
  for (const [name, kind] of FIELDS) {
    const v = field(kind, src[name], name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/** EncodeKubeletConfig(…, ContentTypeYAML): the YAML text. */
export function encodeKubeletConfig(cfg: KubeletConfiguration): string {
  return marshalYamlV2(parseJsonForYamlV2(JSON.stringify(normalize(cfg))));
}

const kindOf = new Map<string, Kind>(FIELDS);

/** mergo's "empty" for a decoded user value of a field kind (empty values never override). */
function emptyFor(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'ostr':
    case 'always':
      return v === undefined || v === null || v === '';
    case 'oint':
      return v === undefined || v === null || v === 0;
    case 'obool':
      return v !== true;
    case 'dur':
      return v === undefined || v === null || (typeof v === 'string' && parseGoDuration(v) === 0);
    case 'optr':
    case 'optrdur':
      return v === undefined || v === null;
    default:
      return emptyish(v);
  }
}

function mergeStruct(dst: Obj, src: Obj): Obj {
  const out: Obj = { ...dst };
  for (const [k, v] of Object.entries(src)) {
    if (v === undefined || v === null || v === '' || v === 0 || v === false) continue;
    const d = out[k];
    out[k] = isObj(d) && isObj(v) ? mergeStruct(d, v) : v;
  }
  return out;
}

/**
 * generateKubeletIgnFiles' merge of a KubeletConfig fragment into the original config (mergo.Merge WithOverride on
 * the Go struct): non-empty user values override, maps merge key by key, nested structs field by field; `false` can
 * only turn off `protectKernelDefaults` (upstream's explicit workaround) or pointer fields.
 * @throws KubeletConfigError
 */
export function mergeKubeletConfig(
  original: KubeletConfiguration,
  fragment: Obj,
  rawFragment: string,
): KubeletConfiguration {
  const out: Obj = { ...original };
  if (rawFragment.includes('protectKernelDefaults')) delete out['protectKernelDefaults'];
  for (const [name, v] of Object.entries(fragment)) {
    const kind = kindOf.get(name);
    if (kind === undefined || emptyFor(kind, v)) continue;
    const d = out[name];
    if (kind === 'omap' && isObj(d) && isObj(v)) out[name] = { ...d, ...v };
    else if (
      (kind === 'auth' || kind === 'authz' || kind === 'swap' || kind === 'crash' || kind === 'logging') &&
      isObj(d) &&
      isObj(v)
    )
      out[name] = mergeStruct(d, v);
    else out[name] = v;
  }
  return normalize(out);
}

/** openshift/api config/v1 worker latency profiles → NodeStatusUpdateFrequency. */
const LATENCY_UPDATE_FREQUENCY: Readonly<Record<string, string>> = {
  MediumUpdateAverageReaction: '20s',
  LowUpdateSlowReaction: '1m0s',
  Default: '10s',
};

/**
 * generateOriginalKubeletConfigWithFeatureGates + updateOriginalKubeConfigwithNodeConfig on a decoded config: the
 * gates merged over the template's, the worker latency profile on the worker role.
 */
export function featuresKubeletConfig(
  conf: KubeletConfiguration,
  role: string,
  features: Record<string, boolean>,
  workerLatencyProfile: string | undefined,
): KubeletConfiguration {
  const out: KubeletConfiguration = { ...conf };
  out['featureGates'] = { ...(conf['featureGates'] ?? {}), ...features };
  const freq = LATENCY_UPDATE_FREQUENCY[workerLatencyProfile ?? ''];
  if (role === 'worker' && freq !== undefined) out['nodeStatusUpdateFrequency'] = freq;
  return out;
}
