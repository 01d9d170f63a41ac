/**
 * The MCO controllers' pure decisions (upstream pkg/controller/{node,drain,render,template,kubelet-config,
 * container-runtime-config} and pkg/operator's status/ControllerConfig builders): which node of a pool gets the next
 * desiredConfig, the pool status, the pools of a node and the labels the node controller keeps, when to
 * cordon/drain/uncordon, when and what to render, the ControllerConfig status, the generated kubelet /
 * container-runtime / kubelet-features / registries MachineConfigs, the ClusterOperator status and the
 * ControllerConfig the operator writes. No I/O: the controllers of
 * `@keelson/machine-config-operator` read their informers, call these and write what they return.
 */
export * from './constants.js';
export * from './durations.js';
export * from './conditions.js';
export * from './semantic.js';
export * from './node/decide.js';
export * from './node/node-labels.js';
export * from './node/node-state.js';
export * from './node/pools-for-node.js';
export * from './node/rollout.js';
export * from './node/status.js';
export * from './drain/decide.js';
export {
  RenderPoolError,
  controllerConfigGate,
  controllerConfigVersionSkew,
  pendingSubConfig,
  decideRender,
  decideRenderWith,
  type RenderDecision,
  type RenderInput as RenderDecisionInput,
} from './render/decide.js';
export * from './template/status.js';
export {
  bundleCertificates,
  controllerCertificates,
  goDistinguishedName,
  poolCertExpirys,
} from './template/certificates.js';
export {
  TemplateError,
  loadTemplateTree,
  platformString,
  templatePaths,
  platformDirs,
  generateForRenderConfig,
  generateTemplateMachineConfigs,
  renderTemplateText,
  generateMachineConfigsForRole,
  type TreeEntry,
  type TemplateTree,
  type TemplateInputs,
} from './template/generate.js';
export { mcoTemplateFuncs, cloudPlatformLoadBalancerIPState } from './template/funcs.js';
export { TLS_PROFILES, OPENSSL_TO_IANA, securityProfileCiphers, type TLSSecurityProfile } from './template/tls.js';
export {
  TranspileError,
  TranspileCache,
  transpileToIgnition,
  transpileFile,
  transpileUnit,
  dataURLEscape,
} from './template/transpile.js';
export { RenderConfig, renderConfig } from './template/render-config.js';
export * from './generated/content.js';
export * from './kubelet/features.js';
export {
  KubeletConfigError,
  goDurationString,
  decodeKubeletConfig,
  normalize as normalizeKubeletConfig,
  encodeKubeletConfig,
  mergeKubeletConfig,
  featuresKubeletConfig,
  type KubeletConfiguration,
} from './kubelet/kubelet-conf.js';
export * from './registries/toml.js';
export * from './registries/edit.js';
export * from './registries/policy.js';
export * from './registries/content.js';
export * from './operator/status.js';
export * from './operator/controller-config.js';
