/**
 * The `98-<pool>-generated-kubelet` MachineConfig of the kubelet-config controller's feature handler
 * (machine-config-operator `pkg/controller/kubelet-config/kubelet_config_features.go` `syncFeatureHandler`,
 * `generateKubeConfigIgnFromFeatures`, `generateFeatureMap`; `kubelet_config_controller.go`
 * `generateOriginalKubeletConfigWithFeatureGates`; `helpers.go` `updateOriginalKubeConfigwithNodeConfig`): the role's
 * template kubelet.conf rendered with the APIServer TLS profile, every feature gate the cluster's FeatureGate reports
 * for this release merged into `featureGates`, the worker latency profile of `nodes.config.openshift.io/cluster`
 * applied to the worker role, written back as the kubelet's YAML.
 */
import type { ControllerConfig, MachineConfig } from '@keelson/api';
import { Labels, McAnnotations } from '../constants.js';
import { dataURL, decodeDataURL } from '../generated/content.js';
import { generateMachineConfigsForRole, type TemplateTree } from '../template/generate.js';
import { normalizeIgnitionV35 } from '../../gojson.js';
import { securityProfileCiphers, type TLSSecurityProfile } from '../template/tls.js';
import { decodeKubeletConfig, encodeKubeletConfig, featuresKubeletConfig, KubeletConfigError } from './kubelet-conf.js';

/** `config.openshift.io/v1` FeatureGate status entry. */
export interface FeatureGateDetails {
  version?: string;
  enabled?: Array<{ name?: string }> | null;
  disabled?: Array<{ name?: string }> | null;
}

/** generateFeatureMap: every known gate of `version` (enabled → true, disabled → false); undefined when not reported. */
export function featureGateMap(
  status: { featureGates?: FeatureGateDetails[] | null } | undefined,
  version: string,
): Record<string, boolean> | undefined {
  const d = (status?.featureGates ?? []).find((x) => x.version === version);
  if (!d) return undefined;
  const out: Record<string, boolean> = {};
  for (const f of d.enabled ?? []) if (f.name) out[f.name] = true;
  for (const f of d.disabled ?? []) if (f.name) out[f.name] = false;
  return out;
}

/** The template kubelet.conf of a role (GenerateMachineConfigsForRole with the TLS profile). @throws KubeletConfigError */
export function templateKubeletConf(
  tree: TemplateTree,
  cc: ControllerConfig,
  role: string,
  tlsProfile: TLSSecurityProfile | null | undefined,
): string {
  const tls = securityProfileCiphers(tlsProfile);
  const mcs = generateMachineConfigsForRole(tree, cc.spec, role, tls);
  for (const mc of mcs) {
    const files =
      (mc.spec?.config as { storage?: { files?: Array<{ path?: string; contents?: { source?: string } }> } })?.storage
        ?.files ?? [];
    const f = files.find((x) => x.path === '/etc/kubernetes/kubelet.conf');
    if (f?.contents?.source !== undefined) {
      const text = decodeDataURL(f.contents.source);
      if (text === undefined) throw new KubeletConfigError('could not decode the original Kubelet source string');
      return text;
    }
  }
  throw new KubeletConfigError(
    'could not generate the original Kubelet config ignition: could not generate old kubelet config',
  );
}

/** generateKubeConfigIgnFromFeatures: the Ignition config of the 98- MC. @throws KubeletConfigError */
export function featuresIgnition(input: {
  baseKubeletConf: string;
  role: string;
  features: Record<string, boolean>;
  workerLatencyProfile?: string;
}): Record<string, unknown> {
  const conf = featuresKubeletConfig(
    decodeKubeletConfig(input.baseKubeletConf),
    input.role,
    input.features,
    input.workerLatencyProfile,
  );
  return normalizeIgnitionV35({
    ignition: { version: '3.5.0' },
    storage: {
      files: [
        {
          path: '/etc/kubernetes/kubelet.conf',
          overwrite: true,
          mode: 0o644,
          contents: { source: dataURL(encodeKubeletConfig(conf)), compression: '' },
        },
      ],
    },
  });
}

/** getManagedNodeConfigKey. */
export const nodeConfigMcName = (pool: string): string => `97-${pool}-generated-kubelet`;

/**
 * updateMachineConfigwithCgroup: the cgroup v2 kernel arguments (v1's removed) for master/worker/arbiter pools;
 * other pools keep `current`. @throws KubeletConfigError for a mode other than v2/""
 */
export function cgroupKernelArguments(
  role: string,
  cgroupMode: string | undefined,
  current: readonly string[],
): string[] {
  if (role !== 'master' && role !== 'worker' && role !== 'arbiter') return [...current];
  if (cgroupMode !== undefined && cgroupMode !== '' && cgroupMode !== 'v2')
    throw new KubeletConfigError(
      `unknown cgroup mode found ${cgroupMode}, failed to update the machine config resource`,
    );
  const v1 = ['systemd.unified_cgroup_hierarchy=0', 'systemd.legacy_systemd_cgroup_controller=1'];
  const v2 = ['systemd.unified_cgroup_hierarchy=1', 'cgroup_no_v1="all"', 'psi=0'];
  const out = current.filter((a) => !v1.includes(a));
  for (const a of v2) if (!out.includes(a)) out.push(a);
  return out;
}

/** getManagedFeaturesKey. */
export const featuresMcName = (pool: string): string => `98-${pool}-generated-kubelet`;

/** MachineConfigFromIgnConfig + the generated-by-controller-version annotation (no owner, as upstream). */
export function featuresMachineConfig(
  pool: string,
  config: Record<string, unknown>,
  controllerVersion: string,
  name = featuresMcName(pool),
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name,
      labels: { [Labels.role]: pool },
      annotations: { [McAnnotations.generatedByControllerVersion]: controllerVersion },
    },
    spec: { osImageURL: '', config },
  };
}
