/**
 * Pure generation of the `99-<pool>-generated-kubelet` and `99-<pool>-generated-containerruntime` MachineConfigs
 * from KubeletConfig / ContainerRuntimeConfig objects (upstream pkg/controller/kubelet-config, container-runtime-config).
 */
import type { MachineConfig } from '@keelson/api';
import { Labels, McAnnotations } from '../constants.js';
import {
  decodeKubeletConfig,
  encodeKubeletConfig,
  featuresKubeletConfig,
  KubeletConfigError,
  mergeKubeletConfig,
  normalize,
} from '../kubelet/kubelet-conf.js';
import { securityProfileCiphers, type TLSSecurityProfile } from '../template/tls.js';

type Obj = Record<string, unknown>;

/** A KubeletConfig/ContainerRuntimeConfig the controller cannot turn into a MachineConfig. */
export class GeneratedConfigError extends Error {
  readonly code = 'GENERATED_CONFIG_INVALID';
  constructor(
    message: string,
    /** JSON path in the object's spec. */
    readonly path: string,
  ) {
    super(message);
    this.name = 'GeneratedConfigError';
  }
}

/** `data:` URL as the MCO writes generated file contents. */
export function dataURL(text: string): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(text, 'utf8').toString('base64')}`;
}

/** Decodes a `data:` URL (base64 or percent-encoded). */
export function decodeDataURL(src: string): string | undefined {
  const m = /^data:([^,]*),(.*)$/s.exec(src);
  if (!m) return undefined;
  const meta = m[1] ?? '';
  const body = m[2] ?? '';
  return meta.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
}

/** Name of the n-th generated MC of a pool: `99-<pool>-generated-<kind>` then `-1`, `-2`… */
export function generatedName(pool: string, kind: 'kubelet' | 'containerruntime', suffix: string): string {
  return `99-${pool}-generated-${kind}${suffix === '' ? '' : `-${suffix}`}`;
}

function machineConfig(
  name: string,
  pool: string,
  owner: { kind: string; name: string; uid: string },
  files: Obj[],
  controllerVersion: string,
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      labels: { [Labels.role]: pool },
      annotations: { [McAnnotations.generatedByControllerVersion]: controllerVersion },
      ownerReferences: [
        {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: owner.kind,
          name: owner.name,
          uid: owner.uid,
          controller: true,
        },
      ],
    },
    spec: {
      osImageURL: '',
      baseOSExtensionsContainerImage: '',
      config: { ignition: { version: '3.5.0' }, storage: { files } },
    },
  };
}

const file = (path: string, text: string): Obj => ({
  path,
  mode: 0o644,
  overwrite: true,
  contents: { source: dataURL(text) },
});

/** KubeletConfiguration fields the MCO does not let users set (they are cluster-managed). */
const KUBELET_BLOCKED = [
  'cgroupDriver',
  'clusterDNS',
  'clusterDomain',
  'staticPodPath',
  'containerRuntimeEndpoint',
  'authentication',
  'authorization',
];

/** The KubeletConfig spec fields the kubelet MC uses. */
export interface KubeletSpecInput {
  kubeletConfig?: Obj;
  logLevel?: number;
  autoSizingReserved?: boolean;
  tlsSecurityProfile?: TLSSecurityProfile | null;
}

/**
 * syncKubeletConfig's kubelet.conf: the pool's template kubelet.conf with the release's feature gates, the worker
 * latency profile (worker pool), the KubeletConfig's own TLS profile when set, the user fragment merged as mergo
 * does, written as the Go KubeletConfiguration YAML.
 * @throws GeneratedConfigError
 */
function kubeletConfText(
  input: {
    pool: string;
    spec: KubeletSpecInput;
    baseKubeletConf: string | undefined;
    features?: Record<string, boolean>;
    workerLatencyProfile?: string;
  },
  frag: Obj,
): string {
  try {
    const base = input.baseKubeletConf !== undefined ? decodeKubeletConfig(input.baseKubeletConf) : normalize({});
    const withGates = featuresKubeletConfig(base, input.pool, input.features ?? {}, input.workerLatencyProfile);
    if (input.spec.tlsSecurityProfile !== undefined && input.spec.tlsSecurityProfile !== null) {
      const tls = securityProfileCiphers(input.spec.tlsSecurityProfile);
      withGates['tlsMinVersion'] = tls.minTLSVersion;
      withGates['tlsCipherSuites'] = tls.cipherSuites;
    }
    return encodeKubeletConfig(
      mergeKubeletConfig(withGates, normalizeFragment(frag), JSON.stringify(input.spec.kubeletConfig ?? {})),
    );
  } catch (e) {
    if (e instanceof KubeletConfigError) throw new GeneratedConfigError(e.message, 'spec.kubeletConfig');
    throw e;
  }
}

/** The fragment as DecodeKubeletConfig reads it (types checked), keeping only the keys the user set. */
function normalizeFragment(frag: Obj): Obj {
  const decoded = decodeKubeletConfig(JSON.stringify(frag));
  return Object.fromEntries(
    Object.keys(frag)
      .filter((k) => k in decoded)
      .map((k) => [k, decoded[k]]),
  );
}

/**
 * generateKubeletIgnFiles' split of the user fragment: `systemReserved` memory/cpu/ephemeral-storage go to the node
 * sizing file instead of kubelet.conf, and `featureGates` are dropped (they come from the FeatureGate object).
 */
function splitSystemReserved(kubeletConfig: Obj): { frag: Obj; reserved: Record<string, string> } {
  const { featureGates: _fg, ...frag } = kubeletConfig;
  const reserved: Record<string, string> = {};
  const sr = frag['systemReserved'];
  if (sr !== null && typeof sr === 'object' && !Array.isArray(sr)) {
    const split = ['memory', 'cpu', 'ephemeral-storage'];
    for (const [k, v] of Object.entries(sr as Obj)) if (split.includes(k)) reserved[k] = String(v);
    frag['systemReserved'] = Object.fromEntries(Object.entries(sr as Obj).filter(([k]) => !split.includes(k)));
  }
  return { frag, reserved };
}

/** createNewKubeletDynamicSystemReservedIgnition: `/etc/node-sizing-enabled.env`. */
function nodeSizingFile(auto: boolean | undefined, reserved: Record<string, string>): Obj {
  const pick = (k: string, d: string): string => (reserved[k] !== undefined && reserved[k] !== '' ? reserved[k] : d);
  return file(
    '/etc/node-sizing-enabled.env',
    `NODE_SIZING_ENABLED=${String(auto ?? false)}\nSYSTEM_RESERVED_MEMORY=${pick('memory', '1Gi')}\nSYSTEM_RESERVED_CPU=${pick('cpu', '500m')}\nSYSTEM_RESERVED_ES=${pick('ephemeral-storage', '1Gi')}\n`,
  );
}

/**
 * The kubelet MC of one pool: the pool's base `/etc/kubernetes/kubelet.conf` (from its `01-<role>-kubelet` MC)
 * with the user fragment merged in, plus a logging drop-in when `logLevel` is set.
 */
export function kubeletMachineConfig(input: {
  name: string;
  pool: string;
  owner: { name: string; uid: string };
  spec: KubeletSpecInput;
  baseKubeletConf: string | undefined;
  controllerVersion: string;
  /** The FeatureGate's gates of the running release (generateOriginalKubeletConfigWithFeatureGates). */
  features?: Record<string, boolean>;
  /** `nodes.config.openshift.io/cluster` spec.workerLatencyProfile (applied to the worker pool). */
  workerLatencyProfile?: string;
}): MachineConfig {
  const { frag, reserved } = splitSystemReserved(input.spec.kubeletConfig ?? {});
  const blocked = KUBELET_BLOCKED.filter((k) => Object.hasOwn(frag, k));
  if (blocked.length > 0)
    throw new GeneratedConfigError(
      `KubeletConfiguration: ${blocked.join(', ')} is not allowed to be set, but contains: ${blocked.map((k) => JSON.stringify(frag[k])).join(', ')}`,
      `spec.kubeletConfig.${blocked[0] ?? ''}`,
    );
  const ll = input.spec.logLevel;
  if (ll !== undefined && (!Number.isInteger(ll) || ll < 0 || ll > 10))
    throw new GeneratedConfigError(`logLevel must be an integer between 0 and 10, got ${String(ll)}`, 'spec.logLevel');
  const conf = kubeletConfText(input, frag);
  // upstream's order (kubelet_config_controller.go syncKubeletConfig): node sizing, log level, kubelet.conf
  const files: Obj[] = [];
  const auto = input.spec.autoSizingReserved;
  if (Object.keys(reserved).length > 0) files.push(nodeSizingFile(undefined, reserved));
  else if (auto !== undefined) files.push(nodeSizingFile(auto, reserved));
  if (ll !== undefined)
    files.push(
      file(
        '/etc/systemd/system/kubelet.service.d/20-logging.conf',
        `[Service]\nEnvironment="KUBELET_LOG_LEVEL=${String(ll)}"\n`,
      ),
    );
  files.push(file('/etc/kubernetes/kubelet.conf', conf));
  return machineConfig(
    input.name,
    input.pool,
    { kind: 'KubeletConfig', ...input.owner },
    files,
    input.controllerVersion,
  );
}

const LOG_LEVELS = ['fatal', 'panic', 'error', 'warn', 'info', 'debug', 'trace'];
const QUANTITY = /^(\d+)(Ki|Mi|Gi|Ti|K|M|G|T)?$/;
const UNIT: Record<string, number> = {
  '': 1,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

function quantityBytes(v: unknown, path: string): number {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
  const m = QUANTITY.exec(s);
  if (!m) throw new GeneratedConfigError(`invalid quantity ${JSON.stringify(v)} (e.g. 64Ki, 1Gi)`, path);
  return Number(m[1]) * (UNIT[m[2] ?? ''] ?? 1);
}

/** The container-runtime MC of one pool: CRI-O drop-ins `/etc/crio/crio.conf.d/01-ctrcfg-<field>` and storage.conf. */
export function containerRuntimeMachineConfig(input: {
  name: string;
  pool: string;
  owner: { name: string; uid: string };
  spec: { containerRuntimeConfig?: Obj };
  controllerVersion: string;
}): MachineConfig {
  const c = input.spec.containerRuntimeConfig ?? {};
  const files: Obj[] = [];
  const dropin = (field: string, line: string): void => {
    files.push(file(`/etc/crio/crio.conf.d/01-ctrcfg-${field}`, `[crio]\n  [crio.runtime]\n    ${line}\n`));
  };
  if (c['pidsLimit'] !== undefined) {
    const p = c['pidsLimit'];
    if (typeof p !== 'number' || !Number.isInteger(p) || (p !== -1 && p < 20))
      throw new GeneratedConfigError(
        `invalid PidsLimit ${JSON.stringify(p)}: must be -1 or at least 20`,
        'spec.containerRuntimeConfig.pidsLimit',
      );
    dropin('pidsLimit', `pids_limit = ${String(p)}`);
  }
  if (c['logLevel'] !== undefined) {
    if (typeof c['logLevel'] !== 'string' || !LOG_LEVELS.includes(c['logLevel']))
      throw new GeneratedConfigError(
        `invalid LogLevel ${JSON.stringify(c['logLevel'])}, must be one of ${LOG_LEVELS.join(', ')}`,
        'spec.containerRuntimeConfig.logLevel',
      );
    dropin('logLevel', `log_level = "${c['logLevel']}"`);
  }
  if (c['logSizeMax'] !== undefined)
    dropin(
      'logSizeMax',
      `log_size_max = ${String(quantityBytes(c['logSizeMax'], 'spec.containerRuntimeConfig.logSizeMax'))}`,
    );
  if (c['defaultRuntime'] !== undefined && c['defaultRuntime'] !== '') {
    if (c['defaultRuntime'] !== 'runc' && c['defaultRuntime'] !== 'crun')
      throw new GeneratedConfigError(
        `invalid DefaultRuntime ${JSON.stringify(c['defaultRuntime'])}, must be runc or crun`,
        'spec.containerRuntimeConfig.defaultRuntime',
      );
    dropin('defaultRuntime', `default_runtime = "${c['defaultRuntime']}"`);
  }
  if (c['overlaySize'] !== undefined) {
    quantityBytes(c['overlaySize'], 'spec.containerRuntimeConfig.overlaySize');
    const size = typeof c['overlaySize'] === 'number' ? String(c['overlaySize']) : (c['overlaySize'] as string);
    files.push(
      file(
        '/etc/containers/storage.conf',
        `[storage]\ndriver = "overlay"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n\n[storage.options.overlay]\nsize = "${size}"\n`,
      ),
    );
  }
  if (files.length === 0)
    throw new GeneratedConfigError(
      'ContainerRuntimeConfig sets nothing: set pidsLimit, logLevel, logSizeMax, overlaySize or defaultRuntime',
      'spec.containerRuntimeConfig',
    );
  return machineConfig(
    input.name,
    input.pool,
    { kind: 'ContainerRuntimeConfig', ...input.owner },
    files,
    input.controllerVersion,
  );
}
