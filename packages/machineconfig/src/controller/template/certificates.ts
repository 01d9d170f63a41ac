/**
 * The certificates of a ControllerConfig's bundles, as the template controller lists them in
 * `status.controllerCertificates` (upstream pkg/controller/template/template_controller.go
 * `UpdateControllerConfigCerts`, `createNewCert`), and the pool status's `certExpirys` taken from them (upstream
 * pkg/controller/node/status.go `calculateStatus`: the KubeAPIServerServingCAData ones).
 */
import { X509Certificate } from 'node:crypto';
import type { CertExpiry, ControllerCertificate, ControllerConfig } from '@keelson/api';

/** The spec bundles in upstream's order, by the name the status gives them. */
const SPEC_BUNDLES = [
  ['KubeAPIServerServingCAData', 'kubeAPIServerServingCAData'],
  ['CloudProviderCAData', 'cloudProviderCAData'],
  ['RootCAData', 'rootCAData'],
  ['AdditionalTrustBundle', 'additionalTrustBundle'],
] as const;

const PEM_BLOCK = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/;

/**
 * The certificates of one bundle (base64 of PEM, as the API holds `[]byte`): each PEM block in turn until one is not
 * a certificate (upstream stops at the first malformed block, keeping those before it).
 */
export function bundleCertificates(data: string | undefined | null, bundleFile: string): ControllerCertificate[] {
  let pem = Buffer.from(data ?? '', 'base64').toString('latin1');
  const out: ControllerCertificate[] = [];
  for (let m = PEM_BLOCK.exec(pem); m !== null; m = PEM_BLOCK.exec(pem)) {
    pem = pem.slice(m.index + m[0].length);
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(Buffer.from((m[2] ?? '').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'));
    } catch {
      break;
    }
    // upstream's field order (JSON as the Go struct serializes it)
    out.push({
      subject: goDistinguishedName(cert.subject),
      signer: goDistinguishedName(cert.issuer),
      notBefore: goTime(cert.validFrom),
      notAfter: goTime(cert.validTo),
      bundleFile,
    });
  }
  return out;
}

/** `status.controllerCertificates`: the spec bundles, then the image registry bundles (data, then user data). */
export function controllerCertificates(cc: ControllerConfig): ControllerCertificate[] {
  const spec = cc.spec as unknown as Record<string, unknown>;
  const out: ControllerCertificate[] = [];
  for (const [name, field] of SPEC_BUNDLES) out.push(...bundleCertificates(spec[field] as string | undefined, name));
  for (const field of ['imageRegistryBundleData', 'imageRegistryBundleUserData']) {
    const entries = Array.isArray(spec[field]) ? (spec[field] as { file?: string; data?: string }[]) : [];
    for (const e of entries) out.push(...bundleCertificates(e.data, e.file ?? ''));
  }
  return out;
}

/** A pool's `status.certExpirys`: the kube-apiserver serving CA certificates of the ControllerConfig's status. */
export function poolCertExpirys(cc: ControllerConfig | undefined): CertExpiry[] {
  return (cc?.status?.controllerCertificates ?? [])
    .filter((c) => c.bundleFile === 'KubeAPIServerServingCAData')
    .map((c) => ({
      bundle: c.bundleFile,
      subject: c.subject,
      ...(c.notAfter !== undefined ? { expiry: c.notAfter } : {}),
    }));
}

/** A certificate date as metav1.Time serializes it (RFC 3339, seconds, UTC). */
function goTime(openssl: string): string {
  return new Date(openssl).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Go's attribute order in `pkix.Name.ToRDNSequence` (Node's short names → Go's). */
const GO_ORDER: readonly (readonly [string, string])[] = [
  ['C', 'C'],
  ['O', 'O'],
  ['OU', 'OU'],
  ['L', 'L'],
  ['ST', 'ST'],
  ['street', 'STREET'],
  ['postalCode', 'POSTALCODE'],
  ['serialNumber', 'SERIALNUMBER'],
  ['CN', 'CN'],
];

/**
 * A distinguished name as Go's `pkix.Name.String()` prints it, from Node's one-attribute-per-line form: the parsed
 * attributes in Go's order (C, O, OU, L, ST, STREET, POSTALCODE, SERIALNUMBER, CN), several values of one type as one
 * multi-valued RDN, the sequence reversed, values escaped as RFC 4514; other attributes follow by Node's name.
 */
export function goDistinguishedName(nodeForm: string): string {
  const attrs = nodeForm
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), unescapeNodeValue(l.slice(l.indexOf('=') + 1))] as const);
  const rdns: string[] = attrs
    .filter(([k]) => !GO_ORDER.some(([node]) => node === k))
    .map(([k, v]) => `${k}=${escapeRdnValue(v)}`);
  for (const [node, go] of GO_ORDER) {
    const values = attrs.filter(([k]) => k === node).map(([, v]) => `${go}=${escapeRdnValue(v)}`);
    if (values.length > 0) rdns.push(values.join('+'));
  }
  return rdns.reverse().join(',');
}

/** A value as Node (OpenSSL's RFC 2253 flags) prints it, unescaped: `\,` → `,`, `\XX` (hex) → that character. */
function unescapeNodeValue(v: string): string {
  return v.replace(/\\(?:([0-9A-Fa-f]{2})|(.))/g, (_m, hex: string | undefined, c: string | undefined) =>
    hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (c ?? ''),
  );
}

/** Go's RDNSequence.String escaping: `,+"\<>;` always, a leading or trailing space, a leading `#`. */
function escapeRdnValue(v: string): string {
  let out = '';
  const last = v.length - 1;
  for (let i = 0; i < v.length; i++) {
    const c = v.charAt(i);
    const escape = ',+"\\<>;'.includes(c) || (c === ' ' && (i === 0 || i === last)) || (c === '#' && i === 0);
    out += escape ? `\\${c}` : c;
  }
  return out;
}
