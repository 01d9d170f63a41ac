/** Signature verification with keys and signatures made by Debian's `gpg` (batch mode, temp GNUPGHOME), stores served on loopback. */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseAtomicSignature,
  parseManifestFile,
  verificationConfigFromManifests,
  verifyRelease,
  PayloadError,
  type PayloadIssue,
} from '../src/index.js';

const DATA = fileURLToPath(new URL('./fixtures/upstream/payload/', import.meta.url));
const DIGEST = 'sha256:' + 'ab'.repeat(32);
const OTHER = 'sha256:' + 'cd'.repeat(32);

let home = '';
let pubA = '';
let pubB = '';
let server: Server;
let base = '';
const store = new Map<string, Buffer>();

function gpg(args: string[], input?: string | Buffer): Buffer {
  return execFileSync(
    'gpg',
    ['--homedir', home, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
    { input, stdio: ['pipe', 'pipe', 'ignore'] },
  );
}

function claims(digest: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    critical: {
      type: 'atomic container signature',
      image: { 'docker-manifest-digest': digest },
      identity: { 'docker-reference': 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64' },
    },
    optional: { creator: 'test', timestamp: 1700000000 },
    ...extra,
  });
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'rp-gpg-'));
  gpg(['--quick-gen-key', 'Release A <a@example.com>', 'ed25519', 'sign', 'never']);
  gpg(['--quick-gen-key', 'Release B <b@example.com>', 'rsa2048', 'sign', 'never']);
  pubA = gpg(['--armor', '--export', 'a@example.com']).toString();
  pubB = gpg(['--armor', '--export', 'b@example.com']).toString();
  const sign = (who: string, text: string) => gpg(['--local-user', who, '--sign'], text);
  const hex = DIGEST.slice(7);
  store.set(`/sigs/sha256=${hex}/signature-1`, sign('b@example.com', claims(DIGEST)));
  store.set(`/sigs/sha256=${hex}/signature-2`, sign('a@example.com', claims(DIGEST)));
  store.set(`/sigs/sha256=${OTHER.slice(7)}/signature-1`, sign('a@example.com', claims(DIGEST)));
  store.set(`/bad/sha256=${hex}/signature-1`, sign('a@example.com', claims(DIGEST, { surprise: 1 })));
  store.set(`/bad/sha256=${hex}/signature-2`, Buffer.from('garbage'));
  server = createServer((req, res) => {
    const b = store.get(req.url ?? '');
    if (req.url?.startsWith('/broken/')) return void res.writeHead(500).end();
    if (!b) return void res.writeHead(404).end();
    res.writeHead(200).end(b);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  // the throwaway GNUPGHOME's gpg-agent would outlive the test run
  execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore' });
  await rm(home, { recursive: true, force: true });
});

describe('verifyRelease', () => {
  it('verifies with an HTTP store and reports key and store', async () => {
    const r = await verifyRelease({
      digest: DIGEST,
      keyrings: [{ name: 'a', data: pubA }],
      stores: [{ url: `${base}/sigs` }],
    });
    expect(r.verified).toBe(true);
    expect(r.signatures).toHaveLength(1);
    expect(r.signatures[0]).toMatchObject({
      keyring: 'a',
      store: `${base}/sigs`,
      index: '2',
      dockerReference: 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64',
      creator: 'test',
    });
    const fpr = gpg(['--with-colons', '--fingerprint', 'a@example.com'])
      .toString()
      .split('\n')
      .find((l) => l.startsWith('fpr'))!
      .split(':')[9]!
      .toLowerCase();
    expect(r.signatures[0]!.fingerprint).toBe(fpr);
    // signature-1 was made by key B: a failure for keyring a, listed
    expect(r.failures.some((f) => f.index === '1' && f.keyring === 'a')).toBe(true);
  });

  it('requires every keyring to verify a signature', async () => {
    const both = await verifyRelease({
      digest: DIGEST,
      keyrings: [
        { name: 'a', data: pubA },
        { name: 'b', data: pubB },
      ],
      stores: [{ url: `${base}/sigs` }],
    });
    expect(both.failures.filter((f) => f.keyring === 'b' && f.index === '1')).toEqual([]);
    expect(both.verified).toBe(true);
    expect(both.signatures.map((s) => s.keyring).sort()).toEqual(['a', 'b']);
    const binary = gpg(['--export', 'b@example.com']);
    const onlyB = await verifyRelease({
      digest: DIGEST,
      keyrings: [{ name: 'b', data: new Uint8Array(binary) }],
      stores: [{ url: `${base}/bad` }],
    });
    expect(onlyB.verified).toBe(false);
    expect(onlyB.failures.map((f) => f.reason).join('\n')).toMatch(/no signature verified by keyring b/);
  });

  it('rejects a signature for another digest, unknown fields, garbage and missing stores', async () => {
    const other = await verifyRelease({
      digest: OTHER,
      keyrings: [{ name: 'a', data: pubA }],
      stores: [{ url: `${base}/sigs` }],
    });
    expect(other.verified).toBe(false);
    expect(other.failures.map((f) => f.reason).join('\n')).toContain(`signature is for ${DIGEST}, not ${OTHER}`);
    const bad = await verifyRelease({
      digest: DIGEST,
      keyrings: [{ name: 'a', data: pubA }],
      stores: [{ url: `${base}/bad` }],
    });
    expect(bad.verified).toBe(false);
    const reasons = bad.failures.map((f) => f.reason).join('\n');
    expect(reasons).toMatch(/unknown field "surprise"/);
    expect(reasons).toMatch(/not an OpenPGP message/);
    const none = await verifyRelease({
      digest: DIGEST,
      keyrings: [{ name: 'a', data: pubA }],
      stores: [{ url: `${base}/empty` }, { url: `${base}/broken` }],
    });
    expect(none.verified).toBe(false);
    expect(none.failures.map((f) => f.reason).join('\n')).toMatch(/response status 500[\s\S]*no signatures found/);
    const tag = await verifyRelease({ digest: 'latest', keyrings: [], stores: [] });
    expect(tag.failures[0]!.reason).toMatch(/not accessed via digest/);
  });

  it('reads signatures from ConfigMap binaryData and file stores', async () => {
    const hex = DIGEST.slice(7);
    const sig = store.get(`/sigs/sha256=${hex}/signature-2`)!;
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `sha256-${hex}`,
        namespace: 'openshift-config-managed',
        labels: { 'release.openshift.io/verification-signatures': '' },
      },
      binaryData: { [`sha256-${hex}-1`]: sig.toString('base64') },
    };
    const r = await verifyRelease({
      digest: DIGEST,
      keyrings: [{ name: 'a', data: pubA }],
      stores: [{ name: 'cluster', configMaps: [cm] }],
    });
    expect(r.verified).toBe(true);
    expect(r.signatures[0]!.store).toBe('cluster');
    const dir = await mkdtemp(join(tmpdir(), 'rp-sigs-'));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, `sha256=${hex}`));
    await writeFile(join(dir, `sha256=${hex}/signature-1`), sig);
    const f = await verifyRelease({
      digest: DIGEST,
      keyrings: [{ name: 'a', data: pubA }],
      stores: [{ url: `file://${dir}` }],
    });
    await rm(dir, { recursive: true, force: true });
    expect(f.verified).toBe(true);
  });

  it('parses atomic signatures strictly', () => {
    expect(() =>
      parseAtomicSignature(Buffer.from(claims(DIGEST).replace('atomic container signature', 'other'))),
    ).toThrow(/critical.type/);
    expect(parseAtomicSignature(Buffer.from(claims(DIGEST))).timestamp).toBe(1700000000);
  });
});

describe('verification ConfigMap (upstream testdata/manifests)', () => {
  const load = async (f: string) => {
    const issues: PayloadIssue[] = [];
    const ms = parseManifestFile(await readFile(join(DATA, 'manifests', f), 'utf8'), f, 'release-manifests', issues);
    expect(issues).toEqual([]);
    return ms;
  };
  it('loads keys and stores from loads-valid.yaml', async () => {
    const cfg = verificationConfigFromManifests(await load('loads-valid.yaml'));
    expect(cfg?.configMap).toBe('openshift-config-managed/release-verification');
    expect(cfg?.keyrings.map((k) => k.name)).toEqual(['redhat']);
    expect(cfg?.stores).toEqual([{ url: 'file://../verify/testdata/signatures' }]);
  });
  it('requires data (requires-data.yaml) and returns null without a ConfigMap', async () => {
    const rd = await load('requires-data.yaml');
    expect(() => verificationConfigFromManifests(rd)).toThrow(PayloadError);
    expect(verificationConfigFromManifests([])).toBeNull();
  });
});
