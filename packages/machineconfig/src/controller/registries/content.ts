/**
 * The `99-<pool>-generated-registries` MachineConfig, as machine-config-operator
 * `pkg/controller/container-runtime-config/container_runtime_config_controller.go` `registriesConfigIgnition` and
 * `syncIgnitionConfig` and `helpers.go` (`updateRegistriesConfig`, `updateSearchRegistriesConfig`,
 * `createNewIgnition`, `generateOriginalContainerRuntimeConfigs`) build it.
 */
import { normalizeIgnitionV35 } from '../../gojson.js';
import type { MachineConfig } from '@keelson/api';
import { Labels, McAnnotations } from '../constants.js';
import { dataURL, decodeDataURL } from '../generated/content.js';
import { editRegistriesConfig, RegistriesInputError, validateRegistriesConfScopes, type MirrorInputs } from './edit.js';
import { updatePolicyJSON, validBlockedAndAllowed } from './policy.js';
import { decodeRegistriesConf, encodeRegistriesConf, RegistriesConfError, searchRegistriesConf } from './toml.js';

export const REGISTRIES_CONF_PATH = '/etc/containers/registries.conf';
export const POLICY_JSON_PATH = '/etc/containers/policy.json';
export const SEARCH_REGISTRIES_DROPIN_PATH = '/etc/containers/registries.conf.d/01-image-searchRegistries.conf';

/** `image.config.openshift.io` spec.registrySources (absent lists stay undefined/null, as Go's nil). */
export interface RegistrySources {
  insecureRegistries?: string[] | null;
  blockedRegistries?: string[] | null;
  allowedRegistries?: string[] | null;
  containerRuntimeSearchRegistries?: string[] | null;
}

/** The default registries.conf and policy.json of a role, from its rendered templates. */
export interface OriginalFiles {
  registriesConf: string;
  policyJSON: string;
}

type File = { path?: string; contents?: { source?: string } };
const filesOf = (mc: MachineConfig): File[] =>
  ((mc.spec?.config as { storage?: { files?: File[] } } | undefined)?.storage?.files ?? []).filter(
    (f): f is File => f !== null && typeof f === 'object',
  );

/** generateOriginalContainerRuntimeConfigs: registries.conf and policy.json out of the role's template MCs. */
export function originalFiles(mcs: readonly MachineConfig[]): OriginalFiles {
  const find = (path: string, what: string): string | Error => {
    for (const mc of mcs) {
      const f = filesOf(mc).find((x) => x.path === path);
      if (f?.contents?.source !== undefined)
        return decodeDataURL(f.contents.source) ?? new Error(`could not decode ${what}`);
    }
    return new Error(`could not find ${what}`);
  };
  const reg = find(REGISTRIES_CONF_PATH, 'Registries Config');
  const pol = find(POLICY_JSON_PATH, 'Policy JSON');
  const errs = [reg, pol].filter((x): x is Error => x instanceof Error);
  if (errs.length > 0)
    throw new RegistriesInputError(
      `could not generate original ContainerRuntime Configs: could not generate old container runtime configs: ${errs.length === 1 ? (errs[0]?.message ?? '') : `[${errs.map((e) => e.message).join(', ')}]`}`,
    );
  return { registriesConf: reg as string, policyJSON: pol as string };
}

/** The cluster inputs of the registries config. */
export interface RegistriesInputs {
  /** ClusterVersion `version` status.desired.image. */
  releaseImage: string;
  registrySources: RegistrySources;
  mirrors: MirrorInputs;
}

/** updateRegistriesConfig. @throws RegistriesInputError | RegistriesConfError */
export function updateRegistriesConfig(
  original: string,
  insecure: readonly string[],
  blocked: readonly string[],
  mirrors: MirrorInputs,
): string {
  let conf;
  try {
    conf = decodeRegistriesConf(original);
  } catch (e) {
    if (e instanceof RegistriesConfError)
      throw new RegistriesInputError(`error unmarshalling registries config: ${e.message}`);
    throw e;
  }
  validateRegistriesConfScopes(insecure, blocked, [], mirrors);
  editRegistriesConfig(conf, insecure, blocked, mirrors);
  return encodeRegistriesConf(conf);
}

/** Files of the generated MC, in upstream's order (registries.conf, policy.json, search-registries drop-in). */
export interface GeneratedFile {
  path: string;
  data: string;
}

/**
 * registriesConfigIgnition (without sigstore image policies). `log` receives the blocked-registry problem upstream
 * logs and skips.
 * @throws RegistriesInputError
 */
export function registriesFiles(
  orig: OriginalFiles,
  inputs: RegistriesInputs,
  log?: (msg: string) => void,
): GeneratedFile[] {
  const src = inputs.registrySources;
  const ba = validBlockedAndAllowed(inputs.releaseImage, src, inputs.mirrors);
  if (ba.error !== undefined) log?.(`${ba.error}, skipping....`);
  const m = inputs.mirrors;
  const out: GeneratedFile[] = [];
  const anyMirror = m.icsp.length + m.idms.length + m.itms.length > 0;
  if ((src.insecureRegistries ?? null) !== null || ba.registriesBlocked !== null || anyMirror) {
    const data = updateRegistriesConfig(
      orig.registriesConf,
      src.insecureRegistries ?? [],
      ba.registriesBlocked ?? [],
      m,
    );
    out.push({ path: REGISTRIES_CONF_PATH, data });
  }
  if (ba.policyBlocked !== null || ba.allowed !== null) {
    const data = updatePolicyJSON(orig.policyJSON, ba.policyBlocked, ba.allowed, inputs.releaseImage);
    out.push({ path: POLICY_JSON_PATH, data });
  }
  const search = src.containerRuntimeSearchRegistries;
  if (search !== undefined && search !== null)
    out.push({ path: SEARCH_REGISTRIES_DROPIN_PATH, data: searchRegistriesConf(search) });
  return out;
}

/** createNewIgnition: the Ignition config of the files (NewIgnFileBytesOverwriting: 0644, overwrite). */
export function registriesIgnition(files: readonly GeneratedFile[]): Record<string, unknown> {
  return normalizeIgnitionV35({
    ignition: { version: '3.5.0' },
    storage: {
      files: files.map((f) => ({
        path: f.path,
        overwrite: true,
        mode: 0o644,
        contents: { source: dataURL(f.data), compression: '' },
      })),
    },
  });
}

/** getManagedKeyReg's name, and the deprecated `99-<pool>-<uid>-registries` it migrates from. */
export const registriesMcName = (pool: string): string => `99-${pool}-generated-registries`;
export const deprecatedRegistriesMcName = (pool: string, uid: string): string => `99-${pool}-${uid}-registries`;

/** The MC syncIgnitionConfig writes: role label, generated-by-controller-version, owned by the Image config. */
export function registriesMachineConfig(input: {
  pool: string;
  config: Record<string, unknown>;
  owner: { name: string; uid: string };
  controllerVersion: string;
}): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: registriesMcName(input.pool),
      labels: { [Labels.role]: input.pool },
      annotations: { [McAnnotations.generatedByControllerVersion]: input.controllerVersion },
      ownerReferences: [
        { apiVersion: 'config.openshift.io/v1', kind: 'Image', name: input.owner.name, uid: input.owner.uid },
      ],
    },
    spec: { osImageURL: '', config: input.config },
  };
}
