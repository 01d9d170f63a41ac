/**
 * ControllerConfig `status.controllerCertificates` and pool `status.certExpirys` from certificates made here with
 * Debian's `openssl` (upstream UpdateControllerConfigCerts / createNewCert and the node controller's calculateStatus).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControllerConfig } from '@keelson/api';
import { describe, expect, it } from 'vitest';
import {
  bundleCertificates,
  computeTemplateStatus,
  controllerCertificates,
  goDistinguishedName,
  poolCertExpirys,
} from '../../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'keelson-certs-'));

/** A self-signed CA made by openssl; returns its PEM and openssl's own view of its end date. */
function makeCert(name: string, subject: string, days: number): { pem: string; notAfter: string } {
  const key = join(dir, `${name}.key`);
  const crt = join(dir, `${name}.crt`);
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    crt,
    '-days',
    String(days),
    '-subj',
    subject,
  ]);
  const end = execFileSync('openssl', ['x509', '-in', crt, '-noout', '-enddate']).toString().trim();
  return { pem: readFileSync(crt, 'utf8'), notAfter: new Date(end.replace('notAfter=', '')).toISOString() };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const seconds = (iso: string): string => iso.replace(/\.\d{3}Z$/, 'Z');

describe('controller certificates (UpdateControllerConfigCerts)', () => {
  const lb = makeCert('lb', '/OU=openshift/CN=kube-apiserver-lb-signer', 3650);
  const multi = makeCert('multi', '/C=US/O=Example, Inc./OU=b/OU=a/CN= padded #1', 30);
  const root = makeCert('root', '/CN=root-ca', 365);

  it("prints names as Go's pkix.Name.String(): reversed Go order, multi-valued RDNs, RFC 4514 escapes", () => {
    const [c] = bundleCertificates(b64(lb.pem), 'KubeAPIServerServingCAData');
    expect(c).toEqual({
      subject: 'CN=kube-apiserver-lb-signer,OU=openshift',
      signer: 'CN=kube-apiserver-lb-signer,OU=openshift',
      notBefore: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
      notAfter: seconds(lb.notAfter),
      bundleFile: 'KubeAPIServerServingCAData',
    });
    const [m] = bundleCertificates(b64(multi.pem), 'x');
    expect(m?.subject).toBe('CN=\\ padded #1,OU=b+OU=a,O=Example\\, Inc.,C=US');
    expect(goDistinguishedName('CN=x\nemailAddress=a@b')).toBe('CN=x,emailAddress=a@b');
    expect(goDistinguishedName('CN=\\#lead\\2Cx')).toBe('CN=\\#lead\\,x');
  });

  it('reads every certificate of a bundle up to the first block that is not one', () => {
    const junk = '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n';
    const certs = bundleCertificates(b64(`leading text\n${lb.pem}${root.pem}${junk}${multi.pem}`), 'RootCAData');
    expect(certs.map((c) => c.subject)).toEqual(['CN=kube-apiserver-lb-signer,OU=openshift', 'CN=root-ca']);
    expect(bundleCertificates('', 'RootCAData')).toEqual([]);
    expect(bundleCertificates(undefined, 'RootCAData')).toEqual([]);
  });

  it('lists the spec bundles in upstream order, then the registry bundles; the pools expire on the API CA', () => {
    const cc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: { name: 'machine-config-controller', generation: 2 },
      spec: {
        rootCAData: b64(root.pem),
        kubeAPIServerServingCAData: b64(lb.pem + multi.pem),
        imageRegistryBundleData: [{ file: 'registry.example.com..5000', data: b64(root.pem) }],
      },
    } as unknown as ControllerConfig;
    expect(controllerCertificates(cc).map((c) => `${c.bundleFile} ${c.subject}`)).toEqual([
      'KubeAPIServerServingCAData CN=kube-apiserver-lb-signer,OU=openshift',
      'KubeAPIServerServingCAData CN=\\ padded #1,OU=b+OU=a,O=Example\\, Inc.,C=US',
      'RootCAData CN=root-ca',
      'registry.example.com..5000 CN=root-ca',
    ]);
    // the template controller's status carries them, and the node controller's certExpirys take the API CA ones
    const status = computeTemplateStatus(cc, 'v1', { state: 'completed' }, new Date('2026-11-27T00:00:00Z'));
    expect(status.controllerCertificates).toHaveLength(4);
    expect(poolCertExpirys({ ...cc, status })).toEqual([
      {
        bundle: 'KubeAPIServerServingCAData',
        subject: 'CN=kube-apiserver-lb-signer,OU=openshift',
        expiry: seconds(lb.notAfter),
      },
      {
        bundle: 'KubeAPIServerServingCAData',
        subject: 'CN=\\ padded #1,OU=b+OU=a,O=Example\\, Inc.,C=US',
        expiry: seconds(multi.notAfter),
      },
    ]);
    expect(poolCertExpirys(undefined)).toEqual([]);
  });
});
