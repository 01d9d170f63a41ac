/**
 * The `98-<pool>-generated-kubelet` MachineConfig of the kubelet-config controller's feature handler
 * (machine-config-operator `pkg/controller/kubelet-config/kubelet_config_features.go` `syncFeatureHandler`,
 * `generateKubeConfigIgnFromFeatures`, `generateFeatureMap`; `kubelet_config_controller.go`
 * `generateOriginalKubeletConfigWithFeatureGates`; `helpers.go` `updateOriginalKubeConfigwithNodeConfig`): the role's
 * template kubelet.conf rendered with the APIServer TLS profile, every feature gate the cluster's FeatureGate reports
 * for this release merged into `featureGates`, the worker latency profile of `nodes.config.openshift.io/cluster`
 * applied to the worker role, written back as the kubelet's YAML.
 */
import type { ControllerConfig, MachineConfig } from '../../common/api-types.js';
import { Labels, McAnnotations } from '../../common/constants.js';
import { dataURL, decodeDataURL } from '../generated/content.js';
import { generateMachineConfigsForRole, type TemplateTree } from '../template/generate.js';
import { securityProfileCiphers, type TLSSecurityProfile } from '../template/tls.js';
import { decodeKubeletConfig, encodeKubeletConfig, featuresKubeletConfig, KubeletConfigError } from './kubelet-conf.js';
import { normalizeIgnitionV35 } from '@keelson/ignition';

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

/** getManagedFeaturesKey. */
export const featuresMcName = (pool: string): string => `98-${pool}-generated-kubelet`;

/** MachineConfigFromIgnConfig + the generated-by-controller-version annotation (no owner, as upstream). */
export function featuresMachineConfig(
  pool: string,
  config: Record<string, unknown>,
  controllerVersion: string,
): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: featuresMcName(pool),
      labels: { [Labels.role]: pool },
      annotations: { [McAnnotations.generatedByControllerVersion]: controllerVersion },
    },
    spec: { osImageURL: '', config },
  };
}
