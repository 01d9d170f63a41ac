/**
 * machine-config-server TLS issuance and rotation (upstream cert rotation controller over library-go certrotation) on
 * the embedded API server; the chain is checked with the real `openssl verify`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMaps, defineResource, type KubeObject } from '@keelson/kube';
import { CERT_ANNOTATIONS, MCS_CA_NAME, MCS_TLS_SECRET, syncMcsTls } from '../src/operator/mcs-tls.js';
import { startTestCluster, type TestCluster } from './helpers/cluster.js';

const NS = 'openshift-machine-config-operator';
type Secret = KubeObject & { type?: string; data?: Record<string, string> };
const Secrets = defineResource<Secret>({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});
const YEAR = 365 * 24 * 3600_000;

describe('machine-config-server TLS', () => {
  let tc: TestCluster;
  let dir: string;
  const t0 = new Date('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    tc = await startTestCluster();
    dir = mkdtempSync(join(tmpdir(), 'mcs-tls-'));
  }, 60_000);
  afterAll(async () => {
    await tc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = async (): Promise<{ ca: Secret; tls: Secret; bundle: string }> => {
    const s = tc.client.resource(Secrets);
    const cm = await tc.client.resource(ConfigMaps).get(MCS_CA_NAME, NS);
    return {
      ca: await s.get(MCS_CA_NAME, NS),
      tls: await s.get(MCS_TLS_SECRET, NS),
      bundle: cm.data?.['ca-bundle.crt'] ?? '',
    };
  };
  const pem = (s: Secret): string => Buffer.from(s.data?.['tls.crt'] ?? '', 'base64').toString();
  /** `openssl verify` at the simulated time `at` (the certificates are issued on a clock that is not the real one). */
  const verify = (bundle: string, cert: string, at: Date = t0): string => {
    writeFileSync(join(dir, 'bundle.pem'), bundle);
    writeFileSync(join(dir, 'cert.pem'), cert);
    const attime = String(Math.floor(at.getTime() / 1000) + 60);
    return execFileSync('openssl', [
      'verify',
      '-attime',
      attime,
      '-CAfile',
      join(dir, 'bundle.pem'),
      join(dir, 'cert.pem'),
    ]).toString();
  };
  const hostnames = ['api-int.example.com', '10.0.0.5'];

  it('issues signer, CA bundle and serving certificate; the chain verifies; a second pass writes nothing', async () => {
    const r = await syncMcsTls(tc.client, { hostnames, now: t0 });
    expect(r).toEqual({ rotatedCA: true, bundleUpdated: true, issuedServing: true });
    const { ca, tls, bundle } = await read();
    expect(ca.type).toBe('kubernetes.io/tls');
    expect(tls.type).toBe('kubernetes.io/tls');
    expect(verify(bundle, pem(tls))).toContain(': OK');
    const cert = new X509Certificate(pem(tls));
    expect(cert.subjectAltName).toBe('IP Address:10.0.0.5, DNS:api-int.example.com');
    expect(tls.metadata.annotations?.[CERT_ANNOTATIONS.hostnames]).toBe('10.0.0.5,api-int.example.com');
    expect(tls.metadata.annotations?.[CERT_ANNOTATIONS.issuer]).toMatch(
      /^openshift-machine-config-operator_machine-config-server-ca@\d+$/,
    );
    expect(new X509Certificate(pem(ca)).validTo).toBe('Dec 30 00:00:00 2035 GMT');
    const rvs = [ca.metadata.resourceVersion, tls.metadata.resourceVersion];
    expect(await syncMcsTls(tc.client, { hostnames, now: new Date(t0.getTime() + YEAR) })).toEqual({
      rotatedCA: false,
      bundleUpdated: false,
      issuedServing: false,
    });
    const again = await read();
    expect([again.ca.metadata.resourceVersion, again.tls.metadata.resourceVersion]).toEqual(rvs);
  }, 60_000);

  it('new hostnames: a new serving certificate from the same signer', async () => {
    const before = await read();
    const r = await syncMcsTls(tc.client, { hostnames: [...hostnames, 'api-int.other.example'], now: t0 });
    expect(r).toEqual({ rotatedCA: false, bundleUpdated: false, issuedServing: true });
    const after = await read();
    expect(pem(after.ca)).toBe(pem(before.ca));
    expect(new X509Certificate(pem(after.tls)).subjectAltName).toContain('DNS:api-int.other.example');
  }, 60_000);

  it('past 8 years the signer rotates: the bundle keeps the old CA, the serving certificate comes from the new one', async () => {
    const before = await read();
    const later = new Date(t0.getTime() + 8 * YEAR + 3600_000);
    const r = await syncMcsTls(tc.client, { hostnames, now: later });
    expect(r).toEqual({ rotatedCA: true, bundleUpdated: true, issuedServing: true });
    const after = await read();
    expect(pem(after.ca)).not.toBe(pem(before.ca));
    expect(after.bundle.startsWith(pem(after.ca))).toBe(true);
    expect(after.bundle).toContain(pem(before.ca));
    expect(verify(pem(after.ca), pem(after.tls), later)).toContain(': OK');
    // a machine that still only trusts the old CA keeps trusting the old serving certificate until it expires
    expect(verify(pem(before.ca), pem(before.tls), later)).toContain(': OK');
  }, 60_000);
});
