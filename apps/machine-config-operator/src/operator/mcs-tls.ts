/**
 * The machine-config-server's TLS as upstream's cert rotation controller keeps it
 * (openshift/machine-config-operator pkg/controller/certrotation/certrotation_controller.go over library-go
 * pkg/operator/certrotation): the signer Secret `machine-config-server-ca` (kubernetes.io/tls, 10 years, renewed
 * after 8), the CA bundle ConfigMap `machine-config-server-ca` (`ca-bundle.crt`: the current signer and earlier,
 * unexpired ones, so machines holding the old CA still trust a new serving certificate during the overlap) and the
 * serving Secret `machine-config-server-tls` (10 years, renewed after 8, or at once when the signer or the hostnames
 * change), with library-go's `auth.openshift.io/certificate-*` annotations. One pass writes only what must change.
 * Not wired into a running process yet (see the README).
 */
import { X509Certificate } from 'node:crypto';
import { ConfigMaps, defineResource, isNotFound, type KubeClient, type KubeObject } from '@keelson/kube';
import type { ConfigMap } from '@keelson/api';
import { MCO_NAMESPACE } from '../common/constants.js';
import { issueCertificate, type CertKeyPair } from './x509.js';

export const MCS_CA_NAME = 'machine-config-server-ca';
export const MCS_TLS_SECRET = 'machine-config-server-tls';
export const CERT_ANNOTATIONS = {
  notBefore: 'auth.openshift.io/certificate-not-before',
  notAfter: 'auth.openshift.io/certificate-not-after',
  issuer: 'auth.openshift.io/certificate-issuer',
  hostnames: 'auth.openshift.io/certificate-hostnames',
} as const;

const YEAR = 365 * 24 * 3600_000;

/** core/v1 Secret (the fields used here). */
export type SecretObj = KubeObject & { type?: string; data?: Record<string, string> };

/** core/v1 Secrets. */
export const Secrets = defineResource<SecretObj>({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});

/** Options of {@link syncMcsTls}. */
export interface McsTlsOptions {
  /** Serving certificate hostnames (api-int.<domain> and the API server's internal IPs). */
  readonly hostnames: readonly string[];
  readonly now?: Date;
  /** Upstream: 10 years validity, refreshed after 8, for both. */
  readonly caValidityMs?: number;
  readonly caRefreshMs?: number;
  readonly certValidityMs?: number;
  readonly certRefreshMs?: number;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string => (s === undefined ? '' : Buffer.from(s, 'base64').toString('utf8'));
const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Whether a certificate Secret must be (re)issued: missing, unreadable, expired, or past its refresh point. */
export function needsRenewal(s: SecretObj | undefined, now: Date, refreshMs: number): boolean {
  const pem = unb64(s?.data?.['tls.crt']);
  if (pem === '' || unb64(s?.data?.['tls.key']) === '') return true;
  try {
    const c = new X509Certificate(pem);
    const from = new Date(c.validFrom).getTime();
    return now.getTime() >= new Date(c.validTo).getTime() || now.getTime() >= from + refreshMs;
  } catch {
    return true;
  }
}

function tlsSecret(name: string, pair: CertKeyPair, annotations: Record<string, string>, have?: SecretObj): SecretObj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...(have?.metadata ?? {}),
      name,
      namespace: MCO_NAMESPACE,
      annotations: { ...(have?.metadata.annotations ?? {}), ...annotations },
    },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64(pair.certPem), 'tls.key': b64(pair.keyPem) },
  };
}

async function getOpt<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

async function put(client: KubeClient, have: SecretObj | undefined, want: SecretObj): Promise<void> {
  const r = client.resource(Secrets);
  if (have === undefined) await r.create(want);
  else await r.update(want);
}

/** Certificates of a PEM bundle that have not expired at `now`, without duplicates. */
function liveCerts(bundle: string, now: Date): string[] {
  const out: string[] = [];
  for (const m of bundle.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g)) {
    const pem = m[0].endsWith('\n') ? m[0] : `${m[0]}\n`;
    try {
      if (new Date(new X509Certificate(pem).validTo).getTime() > now.getTime() && !out.includes(pem)) out.push(pem);
    } catch {
      // an unreadable entry is dropped from the bundle
    }
  }
  return out;
}

/** What one pass did. */
export interface McsTlsResult {
  readonly rotatedCA: boolean;
  readonly bundleUpdated: boolean;
  readonly issuedServing: boolean;
}

/** One pass of the rotation: signer, CA bundle, serving certificate. */
export async function syncMcsTls(client: KubeClient, o: McsTlsOptions): Promise<McsTlsResult> {
  const now = o.now ?? new Date();
  const secrets = client.resource(Secrets);
  // signer
  let signer = await getOpt(secrets.get(MCS_CA_NAME, MCO_NAMESPACE));
  const rotatedCA = needsRenewal(signer, now, o.caRefreshMs ?? 8 * YEAR);
  if (rotatedCA) {
    const notAfter = new Date(now.getTime() + (o.caValidityMs ?? 10 * YEAR));
    const cn = `${MCO_NAMESPACE}_${MCS_CA_NAME}@${Math.floor(now.getTime() / 1000)}`;
    const pair = issueCertificate({ commonName: cn, notBefore: now, notAfter, isCA: true });
    const want = tlsSecret(
      MCS_CA_NAME,
      pair,
      { [CERT_ANNOTATIONS.notBefore]: iso(now), [CERT_ANNOTATIONS.notAfter]: iso(notAfter) },
      signer,
    );
    await put(client, signer, want);
    signer = want;
  }
  const ca: CertKeyPair = { certPem: unb64(signer?.data?.['tls.crt']), keyPem: unb64(signer?.data?.['tls.key']) };
  const caSubject = new X509Certificate(ca.certPem).subject.replace(/^CN=/, '');
  // CA bundle: the signer first, then the earlier ones still valid
  const cms = client.resource(ConfigMaps);
  const cm = await getOpt(cms.get(MCS_CA_NAME, MCO_NAMESPACE));
  const bundle = [
    ca.certPem,
    ...liveCerts(cm?.data?.['ca-bundle.crt'] ?? '', now).filter((c) => c !== ca.certPem),
  ].join('');
  const bundleUpdated = cm?.data?.['ca-bundle.crt'] !== bundle;
  if (bundleUpdated) {
    const want: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { ...(cm?.metadata ?? {}), name: MCS_CA_NAME, namespace: MCO_NAMESPACE },
      data: { ...(cm?.data ?? {}), 'ca-bundle.crt': bundle },
    };
    if (cm === undefined) await cms.create(want);
    else await cms.update(want);
  }
  // serving certificate
  const hostnames = [...new Set(o.hostnames)].sort();
  const serving = await getOpt(secrets.get(MCS_TLS_SECRET, MCO_NAMESPACE));
  const ann = serving?.metadata.annotations ?? {};
  const issuedServing =
    rotatedCA ||
    ann[CERT_ANNOTATIONS.issuer] !== caSubject ||
    ann[CERT_ANNOTATIONS.hostnames] !== hostnames.join(',') ||
    needsRenewal(serving, now, o.certRefreshMs ?? 8 * YEAR);
  if (issuedServing) {
    const notAfter = new Date(now.getTime() + (o.certValidityMs ?? 10 * YEAR));
    const pair = issueCertificate({
      commonName: hostnames[0] ?? 'machine-config-server',
      notBefore: now,
      notAfter,
      isCA: false,
      hostnames,
      issuer: ca,
    });
    await put(
      client,
      serving,
      tlsSecret(
        MCS_TLS_SECRET,
        pair,
        {
          [CERT_ANNOTATIONS.notBefore]: iso(now),
          [CERT_ANNOTATIONS.notAfter]: iso(notAfter),
          [CERT_ANNOTATIONS.issuer]: caSubject,
          [CERT_ANNOTATIONS.hostnames]: hostnames.join(','),
        },
        serving,
      ),
    );
  }
  return { rotatedCA, bundleUpdated, issuedServing };
}
