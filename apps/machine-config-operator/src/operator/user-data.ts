/**
 * The Ignition pointer configs machines boot with, and the machine-config-server's hostnames:
 * - {@link ignitionHost} / {@link mcsHostnames}: openshift/machine-config-operator pkg/operator/sync.go
 *   `getIgnitionHost` and pkg/controller/certrotation/hostnames.go `syncHostnames` + `getServerIPsFromInfra`;
 * - {@link pointerConfig}: pkg/controller/common/helpers.go `PointerConfig`, serialized as Go's `json.Marshal` of
 *   ign3types.Config (spec 3.5.0) gives it;
 * - {@link managedUserDataSecret}: `syncMachineConfigPools` rendering manifests/userdata_secret.yaml — Secret
 *   `<pool>-user-data-managed` in openshift-machine-api, owned by the pool;
 * - {@link reconcileUserDataCA}: the cert rotation controller's `reconcileSecret` — the installer's `*-user-data`
 *   secrets get the current MCS CA bundle as their one `certificateAuthorities` source.
 */
import { goJsonMarshal } from '@keelson/api';
import type { KubeObject } from '@keelson/kube';

export const MACHINE_API_NAMESPACE = 'openshift-machine-api';
export const MANAGED_CA_LABEL = 'machineconfiguration.openshift.io/managed-ca-bundle-derived-from-configmap';
export const MCS_SECURE_PORT = 22623;
/** Ignition spec of ign3types.MaxVersion in release-4.20's vendored ignition (config/v3_5). */
export const POINTER_IGNITION_VERSION = '3.5.0';

/** core/v1 Secret as this module reads and writes it. */
export type UserDataSecret = KubeObject & { type?: string; data?: Record<string, string> };

type Infra = { status?: Record<string, unknown> };
type PlatformStatus = Record<string, { apiServerInternalIPs?: string[] } | string | undefined> & { type?: string };

const platformIPs = (infra: Infra, platforms: readonly string[]): string[] => {
  const ps = infra.status?.['platformStatus'] as PlatformStatus | undefined;
  if (ps?.type === undefined || !platforms.includes(ps.type)) return [];
  // platformStatus.baremetal, .openstack, .ovirt, .vsphere, .nutanix
  const sub = ps[ps.type.toLowerCase()];
  return typeof sub === 'object' ? (sub.apiServerInternalIPs ?? []) : [];
};

function internalHostname(infra: Infra): string {
  // Go field APIServerInternalURL, JSON name apiServerInternalURI
  const u = infra.status?.['apiServerInternalURI'];
  if (typeof u !== 'string' || u === '')
    throw new Error('no APIServerInternalURL found in cluster infrastructure resource');
  try {
    return new URL(u).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    throw new Error('no APIServerInternalURL found in cluster infrastructure resource');
  }
}

/** `syncHostnames`: the serving certificate's names — api-int's hostname, then the platform's API server internal IPs. */
export function mcsHostnames(infra: Infra): string[] {
  return [internalHostname(infra), ...platformIPs(infra, ['BareMetal', 'Ovirt', 'OpenStack', 'VSphere', 'Nutanix'])];
}

const joinHostPort = (h: string, port: number): string => (h.includes(':') ? `[${h}]:${port}` : `${h}:${port}`);

/** `getIgnitionHost`: api-int:22623, or the first API server internal IP on BareMetal, OpenStack, oVirt, vSphere. */
export function ignitionHost(infra: Infra): string {
  const ips = platformIPs(infra, ['BareMetal', 'OpenStack', 'Ovirt', 'VSphere']);
  return joinHostPort(ips[0] ?? internalHostname(infra), MCS_SECURE_PORT);
}

/** `dataurl.EncodeBytes`. */
export const caDataUrl = (ca: Buffer): string => `data:text/plain;charset=utf-8;base64,${ca.toString('base64')}`;

/** The pointer config of `role` (Go's json.Marshal of the ign3types.Config PointerConfig builds). */
export function pointerConfig(host: string, rootCA: Buffer, role: string): string {
  const resource = (source: string): Record<string, unknown> => ({ source, verification: {} });
  const cfg = {
    ignition: {
      config: { merge: [resource(`https://${host}/config/${role}`)], replace: { verification: {} } },
      proxy: {},
      security: { tls: { certificateAuthorities: [resource(caDataUrl(rootCA))] } },
      timeouts: {},
      version: POINTER_IGNITION_VERSION,
    },
    kernelArguments: {},
    passwd: {},
    storage: {},
    systemd: {},
  };
  // a Go struct: fields in declaration order
  return goJsonMarshal(cfg, { sortKeys: false });
}

/** The pool's `<pool>-user-data-managed` Secret (manifests/userdata_secret.yaml), owned by the pool. */
export function managedUserDataSecret(
  pool: { name: string; uid: string },
  pointer: string,
): UserDataSecret & { metadata: { name: string } } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${pool.name}-user-data-managed`,
      namespace: MACHINE_API_NAMESPACE,
      labels: { [MANAGED_CA_LABEL]: '' },
      ownerReferences: [
        {
          apiVersion: 'machineconfiguration.openshift.io/v1',
          kind: 'MachineConfigPool',
          name: pool.name,
          uid: pool.uid,
        },
      ],
    },
    type: 'Opaque',
    data: {
      disableTemplating: Buffer.from('true\n').toString('base64'),
      userData: Buffer.from(pointer).toString('base64'),
    },
  };
}

/** Whether `have` carries what `want` sets (labels, owner, type, data): ApplySecret's no-op case. */
export function managedSecretInLine(have: UserDataSecret, want: UserDataSecret): boolean {
  const labels = have.metadata.labels ?? {};
  const wantLabels = want.metadata.labels ?? {};
  if (Object.entries(wantLabels).some(([k, v]) => labels[k] !== v)) return false;
  if (JSON.stringify(have.metadata.ownerReferences ?? []) !== JSON.stringify(want.metadata.ownerReferences ?? []))
    return false;
  return have.type === want.type && JSON.stringify(have.data ?? {}) === JSON.stringify(want.data ?? {});
}

/** `isUserDataSecret`: not a managed one, and its `userData` is JSON with an `ignition` object. */
export function isUserDataSecret(s: UserDataSecret): boolean {
  if (s.metadata.labels?.[MANAGED_CA_LABEL] !== undefined) return false;
  const raw = s.data?.['userData'];
  if (raw === undefined) return false;
  try {
    const ign = (JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as Record<string, unknown>)['ignition'];
    return ign !== null && typeof ign === 'object' && !Array.isArray(ign);
  } catch {
    return false;
  }
}

/**
 * `reconcileSecret`: the new `userData` (base64) with the bundle as its only CA source, or undefined when already so.
 * @throws Error naming the secret when the config has no CA list or more than one CA (upstream's messages)
 */
export function reconcileUserDataCA(s: UserDataSecret, caBundle: Buffer): string | undefined {
  const name = s.metadata.name ?? '';
  const raw = Buffer.from(s.data?.['userData'] ?? '', 'base64');
  const cfg = JSON.parse(raw.toString('utf8')) as {
    ignition?: { security?: { tls?: { certificateAuthorities?: unknown } } };
  };
  const cas = cfg.ignition?.security?.tls?.certificateAuthorities;
  if (!Array.isArray(cas)) throw new Error(`failed to find certificateauthorities field in ignition (secret ${name})`);
  if (cas.length > 1) throw new Error('additional CAs detected, cannot modify automatically. Aborting');
  const first = (cas[0] ?? {}) as Record<string, unknown>;
  first['source'] = caDataUrl(caBundle);
  cas[0] = first;
  const updated = Buffer.from(goJsonMarshal(cfg), 'utf8');
  return updated.equals(raw) ? undefined : updated.toString('base64');
}
