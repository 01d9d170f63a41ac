/**
 * Minimal X.509 v3 issuance over node:crypto (RSA 2048, sha256WithRSAEncryption): a self-signed CA and serving
 * certificates with subjectAltNames, as library-go's crypto package makes them for the cert rotation controller
 * (openshift/library-go pkg/crypto MakeSelfSignedCAConfigForDuration / MakeServerCertForDuration). DER is encoded by
 * hand: node:crypto signs but has no certificate builder.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

const len = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
};
const seq = (...p: Buffer[]): Buffer => tlv(0x30, ...p);
const int = (b: Buffer): Buffer => tlv(0x02, (b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
const oid = (s: string): Buffer => {
  const [a = 0, b = 0, ...rest] = s.split('.').map(Number);
  const out = [40 * a + b];
  for (const v of rest) {
    const chunk = [v & 0x7f];
    for (let x = Math.floor(v / 128); x > 0; x = Math.floor(x / 128)) chunk.unshift((x & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
};
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const bits = (b: Buffer): Buffer => tlv(0x03, Buffer.from([0]), b);
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));

function time(d: Date): Buffer {
  const p = (n: number): string => String(n).padStart(2, '0');
  const y = d.getUTCFullYear();
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return y < 2050 ? tlv(0x17, Buffer.from(`${p(y % 100)}${rest}`)) : tlv(0x18, Buffer.from(`${y}${rest}`));
}

const name = (cn: string): Buffer => seq(tlv(0x31, seq(oid('2.5.4.3'), utf8(cn))));
const SHA256_RSA = seq(oid('1.2.840.113549.1.1.11'), tlv(0x05));
const ext = (id: string, critical: boolean, value: Buffer): Buffer =>
  seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

/** A key pair and its certificate, PEM encoded. */
export interface CertKeyPair {
  readonly certPem: string;
  readonly keyPem: string;
}

/** What to issue. */
export interface CertRequest {
  readonly commonName: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** A CA (self-signed when no issuer is given). */
  readonly isCA: boolean;
  /** DNS names and IP addresses (serving certificates). */
  readonly hostnames?: readonly string[];
  /** The signing CA; absent: self-signed. */
  readonly issuer?: CertKeyPair;
}

const keyId = (spki: Buffer): Buffer => createHash('sha1').update(spki).digest();

/** The 16 bytes of an IPv6 address (`::` expanded). */
function ipv6Bytes(h: string): Buffer {
  const [head = '', tail] = h.includes('::') ? h.split('::') : [h, undefined];
  const hs = head === '' ? [] : head.split(':');
  const ts = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? hs : [...hs, ...Array<string>(8 - hs.length - ts.length).fill('0'), ...ts];
  return Buffer.from(groups.map((g) => g.padStart(4, '0')).join(''), 'hex');
}

function sanOf(hostnames: readonly string[]): Buffer {
  return seq(
    ...hostnames.map((h) => {
      if (isIP(h) === 4) return tlv(0x87, Buffer.from(h.split('.').map(Number)));
      if (isIP(h) === 6) return tlv(0x87, ipv6Bytes(h));
      return tlv(0x82, Buffer.from(h, 'ascii'));
    }),
  );
}

/** Issues a certificate (and a new RSA 2048 key) for `req`. */
export function issueCertificate(req: CertRequest): CertKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const issuerKey: KeyObject | string = req.issuer?.keyPem ?? privateKey;
  const issuerCert = req.issuer ? new X509Certificate(req.issuer.certPem) : undefined;
  const issuerSpki = issuerCert ? issuerCert.publicKey.export({ type: 'spki', format: 'der' }) : spki;
  const exts = [
    ext('2.5.29.15', true, bits(Buffer.from([req.isCA ? 0x86 : 0xa0]))), // keyCertSign|cRLSign|digitalSignature : digitalSignature|keyEncipherment
    ...(req.isCA ? [] : [ext('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1')))]),
    ext('2.5.29.19', true, seq(...(req.isCA ? [bool(true)] : []))),
    ext('2.5.29.14', false, octets(keyId(spki))),
    ...(req.issuer ? [ext('2.5.29.35', false, seq(tlv(0x80, keyId(issuerSpki))))] : []),
    ...(req.hostnames && req.hostnames.length > 0 ? [ext('2.5.29.17', false, sanOf(req.hostnames))] : []),
  ];
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))),
    int(serial),
    SHA256_RSA,
    name(issuerCert ? issuerCert.subject.replace(/^CN=/, '') : req.commonName),
    seq(time(req.notBefore), time(req.notAfter)),
    name(req.commonName),
    spki,
    tlv(0xa3, seq(...exts)),
  );
  const signature = sign('sha256', tbs, issuerKey);
  const der = seq(tbs, SHA256_RSA, bits(signature));
  const b64 = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return {
    certPem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}
