/**
 * The registry lists of `image.config.openshift.io/cluster` turned into registries.conf flags and a policy.json, as
 * machine-config-operator `pkg/controller/container-runtime-config/helpers.go` does (`updatePolicyJSON`,
 * `getValidBlockedAndAllowedRegistries`, `payloadRepoHasUnblockedMirror`, `getPayloadRepo`). ClusterImagePolicy /
 * ImagePolicy (sigstore) scopes are not handled here.
 */
import { goJsonMarshal } from '@keelson/api';
import {
  editRegistriesConfig,
  RegistriesInputError,
  scopeIsNestedInsideScope,
  validateRegistriesConfScopes,
  type MirrorInputs,
} from './edit.js';
import { emptyRegistriesConf, type Registry } from './toml.js';

/** helpers.go errParsingReference. */
export const ERR_PARSING_REFERENCE = 'error parsing reference of release image';

/** A release image reference split as docker/reference ParseNamed does (name, and whether it has a digest). */
export interface PayloadRef {
  name: string;
  digested: boolean;
}

/** getPayloadRepo: reference.ParseNamed (a fully qualified, normalized name). @throws RegistriesInputError */
export function parsePayloadRef(image: string): PayloadRef {
  let rest = image;
  let digested = false;
  const at = rest.indexOf('@');
  if (at >= 0) {
    if (!/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/.test(rest.slice(at + 1)))
      throw new RegistriesInputError(ERR_PARSING_REFERENCE);
    digested = true;
    rest = rest.slice(0, at);
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    if (!/^[\w][\w.-]{0,127}$/.test(rest.slice(colon + 1))) throw new RegistriesInputError(ERR_PARSING_REFERENCE);
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  const domain = parts[0] ?? '';
  const qualified = parts.length > 1 && (domain.includes('.') || domain.includes(':') || domain === 'localhost');
  const pathOk = parts.slice(1).every((p) => /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/.test(p));
  if (!qualified || !pathOk || !/^[a-zA-Z0-9.-]+(?::[0-9]+)?$/.test(domain))
    throw new RegistriesInputError(ERR_PARSING_REFERENCE);
  return { name: rest, digested };
}

/** sysregistriesv2 FindRegistry: the registry whose prefix matches `name` the longest. */
function findRegistry(regs: readonly Registry[], name: string): Registry | undefined {
  let best: Registry | undefined;
  let bestLen = -1;
  for (const r of regs) {
    const prefix = r.prefix !== '' ? r.prefix : r.location;
    if (!scopeIsNestedInsideScope(name, prefix)) continue;
    const len = prefix.startsWith('*.') ? (name.split('/')[0]?.length ?? 0) : prefix.length;
    if (len > bestLen) {
      best = r;
      bestLen = len;
    }
  }
  return best;
}

/** payloadRepoHasUnblockedMirror. */
function payloadRepoHasUnblockedMirror(
  payload: PayloadRef,
  inputs: MirrorInputs,
  insecure: readonly string[],
  blocked: readonly string[],
): boolean {
  const conf = emptyRegistriesConf();
  editRegistriesConfig(conf, insecure, blocked, { idms: [...inputs.idms], itms: [], icsp: [...inputs.icsp] });
  const reg = findRegistry(conf.registries ?? [], payload.name);
  if (!reg) return false;
  const prefix = reg.prefix !== '' ? reg.prefix : reg.location;
  const endpoints = (reg.mirrors ?? []).filter((m) =>
    reg.mirrorByDigestOnly || m.pullFromMirror === 'digest-only'
      ? payload.digested
      : m.pullFromMirror === 'tag-only'
        ? !payload.digested
        : true,
  );
  endpoints.push(reg);
  const rest = prefix.startsWith('*.') ? '' : payload.name.slice(prefix.length);
  return endpoints.some((e) => {
    const src = prefix.startsWith('*.') ? payload.name : e.location + rest;
    return !blocked.some((b) => scopeIsNestedInsideScope(src, b));
  });
}

/** What getValidBlockedAndAllowedRegistries returns; `error` is the message upstream logs and skips. */
export interface BlockedAllowed {
  registriesBlocked: string[] | null;
  policyBlocked: string[] | null;
  allowed: string[] | null;
  error?: string;
}

/** getValidBlockedAndAllowedRegistries. @throws RegistriesInputError when the release image cannot be parsed */
export function validBlockedAndAllowed(
  releaseImage: string,
  registrySources: {
    insecureRegistries?: string[] | null;
    blockedRegistries?: string[] | null;
    allowedRegistries?: string[] | null;
  },
  inputs: MirrorInputs,
): BlockedAllowed {
  const payload = parsePayloadRef(releaseImage);
  let registriesBlocked: string[] | null = null;
  let policyBlocked: string[] | null = null;
  let allowed: string[] | null = null;
  const blockErr: string[] = [];
  const blockedIn = registrySources.blockedRegistries ?? [];
  for (const reg of blockedIn) {
    if (scopeIsNestedInsideScope(payload.name, reg)) {
      if (!payloadRepoHasUnblockedMirror(payload, inputs, registrySources.insecureRegistries ?? [], blockedIn)) {
        blockErr.push(reg);
        continue;
      }
      (registriesBlocked ??= []).push(reg);
      if (payload.name !== reg) (policyBlocked ??= []).push(reg);
      (allowed ??= []).push(payload.name);
      continue;
    }
    (registriesBlocked ??= []).push(reg);
    (policyBlocked ??= []).push(reg);
  }
  if (registrySources.allowedRegistries) allowed = [...(allowed ?? []), ...registrySources.allowedRegistries];
  const out: BlockedAllowed = { registriesBlocked, policyBlocked, allowed };
  if (blockErr.length > 0)
    out.error = `error adding [${blockErr.map((b) => JSON.stringify(b)).join(' ')}] to blocked registries, cannot block the repository being used by the payload`;
  return out;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** json.MarshalIndent(v, "", "  ") with Go's map key order and HTML-safe escaping (`@keelson/api` `goJsonMarshal`). */
export function goMarshalIndent(v: Json): string {
  return goJsonMarshal(v, { indent: '  ' });
}

const accept = (): Json => ({ type: 'insecureAcceptAnything' });
const reject = (): Json => ({ type: 'reject' });

/**
 * updatePolicyJSON (without cluster image policies): the template's policy.json with `default` and the `docker` /
 * `atomic` transports set from the allowed or blocked lists.
 * @throws RegistriesInputError
 */
export function updatePolicyJSON(
  data: string,
  blocked: readonly string[] | null,
  allowed: readonly string[] | null,
  releaseImage: string,
): string {
  if ((allowed?.length ?? 0) !== 0 && (blocked?.length ?? 0) !== 0) {
    const payload = parsePayloadRef(releaseImage);
    if (!(allowed?.length === 1 && allowed[0] === payload.name))
      throw new RegistriesInputError(
        'invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified',
      );
  }
  if (allowed === null && blocked === null) return data;
  validateRegistriesConfScopes([], blocked ?? [], allowed ?? [], { idms: [], itms: [], icsp: [] });
  let policy: { default?: Json; transports?: Record<string, Json> };
  try {
    policy = JSON.parse(data) as typeof policy;
  } catch (e) {
    throw new RegistriesInputError(`error decoding policy json: ${(e as Error).message}`);
  }
  if (policy === null || typeof policy !== 'object' || !Array.isArray(policy.default))
    throw new RegistriesInputError('error decoding policy json: "default" must be an array of requirements');
  const transports: Record<string, Json> = { ...(policy.transports ?? {}) };
  const scopes: Record<string, Json> = {};
  if ((allowed?.length ?? 0) > 0) {
    policy.default = [reject()];
    for (const r of allowed ?? []) scopes[r] = [accept()];
  }
  if ((blocked?.length ?? 0) > 0) {
    policy.default = [accept()];
    for (const r of blocked ?? []) scopes[r] = [reject()];
  }
  if (Object.keys(scopes).length > 0) {
    transports['docker'] = scopes;
    transports['atomic'] = Object.fromEntries(
      Object.entries(scopes).filter(([reg]) => (reg.match(/\//g) ?? []).length < 3),
    );
  }
  return goMarshalIndent({ default: policy.default, transports });
}
