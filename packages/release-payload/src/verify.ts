import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type * as OpenPGP from 'openpgp';

/** openpgp is large (~0.15 s to import): loaded on the first verification only. */
const loadOpenpgp = (): Promise<typeof OpenPGP> => import('openpgp');
import { PayloadError } from './errors.js';
import type { KubeObject, Manifest } from './parse.js';
import type { ProxySettings } from './proxy.js';
import { tlsFetch, type Deadlines } from './transport.js';

/** A named OpenPGP public keyring (armored text or binary). */
export interface Keyring {
  name: string;
  data: string | Uint8Array;
}

/**
 * A signature store: an HTTP(S)/file URL, or ConfigMaps carrying signatures in `binaryData`. `ca` (PEM) replaces
 * {@link StoreHttpOptions.ca} as the trust anchor of that store (ClusterVersion `spec.signatureStores[].ca`);
 * `unusable` says why the store is not honoured (e.g. its CA ConfigMap is missing): it is reported, never fetched.
 */
export type SignatureStore =
  { url: string; ca?: string; unusable?: string } | { name: string; configMaps: readonly KubeObject[] };

/**
 * How HTTP(S) stores are reached: the cluster's egress settings as upstream's `Operator.HTTPClient`
 * (openshift/cluster-version-operator pkg/cvo/cvo.go, egress.go `getTransport`) gives them to every store.
 */
export interface StoreHttpOptions extends Deadlines {
  /** Proxy `cluster` status (https stores use `httpsProxy`, http ones `httpProxy`, `noProxy` bypasses). */
  proxy?: ProxySettings;
  /** PEM bundle used as the only trusted roots (`openshift-config-managed/trusted-ca-bundle`); default Node's roots. */
  ca?: string;
  /**
   * Why no HTTP client can be built (e.g. the Proxy could not be read): every HTTP(S) store fails with it, as
   * upstream's sigstore hands an `HTTPClient()` error to its callback; ConfigMap and file stores still count.
   */
  unavailable?: string;
}

/** Options of {@link verifyRelease}. */
export interface VerifyOptions {
  /** Release image manifest digest (`sha256:<hex>`). */
  digest: string;
  keyrings: readonly Keyring[];
  stores: readonly SignatureStore[];
  /** Largest signature accepted (default 50 KiB, as upstream). */
  maxSignatureBytes?: number;
  /** Highest `signature-<n>` index probed per store (default 9, as upstream's sigstore). */
  maxSignatures?: number;
  /** Verification time (default now). */
  date?: Date;
  /** Proxy, trust and deadlines for HTTP(S) stores. */
  http?: StoreHttpOptions;
}

/** One valid signature. */
export interface VerifiedSignature {
  keyring: string;
  /** Hex fingerprint of the signing key. */
  fingerprint: string;
  store: string;
  /** `signature-<n>` index, or ConfigMap key. */
  index: string;
  /** The signature as fetched (what the CVO persists to `openshift-config-managed/signatures-managed`). */
  data?: Uint8Array;
  /** `critical.identity.docker-reference`. */
  dockerReference: string;
  creator?: string;
  timestamp?: number;
}

/** Why one signature (or store, or keyring) did not verify. */
export interface VerificationFailure {
  store?: string;
  index?: string;
  keyring?: string;
  reason: string;
}

/** Result of {@link verifyRelease}. */
export interface VerificationResult {
  verified: boolean;
  digest: string;
  /** Valid signatures, at least one per keyring when `verified`. */
  signatures: VerifiedSignature[];
  /** Every reason something did not verify. */
  failures: VerificationFailure[];
}

const DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** Parsed "atomic container signature" claims. */
export interface AtomicSignature {
  dockerManifestDigest: string;
  dockerReference: string;
  creator?: string;
  timestamp?: number;
}

function onlyKeys(o: unknown, allowed: string[], where: string): Record<string, unknown> {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error(`${where} must be an object`);
  for (const k of Object.keys(o))
    if (!allowed.includes(k)) throw new Error(`unknown field ${JSON.stringify(k)} in ${where}`);
  return o as Record<string, unknown>;
}

/** Parses and strictly validates the signed JSON of an atomic container signature (unknown fields rejected). */
export function parseAtomicSignature(data: Uint8Array): AtomicSignature {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (e) {
    throw new Error(`signed content is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const top = onlyKeys(doc, ['critical', 'optional'], 'signature');
  const crit = onlyKeys(top['critical'], ['type', 'image', 'identity'], 'critical');
  if (crit['type'] !== 'atomic container signature')
    throw new Error(`critical.type is ${JSON.stringify(crit['type'])}, expected "atomic container signature"`);
  const image = onlyKeys(crit['image'], ['docker-manifest-digest'], 'critical.image');
  const identity = onlyKeys(crit['identity'], ['docker-reference'], 'critical.identity');
  const d = image['docker-manifest-digest'];
  if (typeof d !== 'string' || !DIGEST_RE.test(d))
    throw new Error(`critical.image.docker-manifest-digest ${JSON.stringify(d)} is not a digest`);
  const ref = identity['docker-reference'];
  if (typeof ref !== 'string' || ref === '') throw new Error('critical.identity.docker-reference is empty');
  const out: AtomicSignature = { dockerManifestDigest: d, dockerReference: ref };
  if (top['optional'] !== undefined) {
    const opt = onlyKeys(top['optional'], ['creator', 'timestamp'], 'optional');
    if (typeof opt['creator'] === 'string') out.creator = opt['creator'];
    if (typeof opt['timestamp'] === 'number') out.timestamp = opt['timestamp'];
  }
  return out;
}

interface FetchedSig {
  store: string;
  index: string;
  data: Uint8Array;
}

/** Splits a PEM bundle into certificates (what Node's `ca` option takes as separate roots). */
function pemCertificates(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** GET through the store's proxy, with `ca` (else the shared bundle, else Node's roots) as trusted roots. */
function httpGet(url: string, ca: string | undefined, http: StoreHttpOptions | undefined): Promise<Response> {
  const bundle = ca ?? http?.ca;
  const deadlines: Deadlines = {
    ...(http?.connectTimeoutMs !== undefined ? { connectTimeoutMs: http.connectTimeoutMs } : {}),
    ...(http?.idleTimeoutMs !== undefined ? { idleTimeoutMs: http.idleTimeoutMs } : {}),
  };
  return tlsFetch(
    url,
    {},
    { rejectUnauthorized: true, sources: [], ...(bundle !== undefined ? { ca: pemCertificates(bundle) } : {}) },
    deadlines,
    http?.proxy,
  );
}

async function fetchStore(
  store: SignatureStore,
  digest: string,
  opts: VerifyOptions,
  failures: VerificationFailure[],
): Promise<FetchedSig[]> {
  const max = opts.maxSignatureBytes ?? 50 * 1024;
  const [algo, hex] = digest.split(':') as [string, string];
  const out: FetchedSig[] = [];
  if ('configMaps' in store) {
    const prefix = `${algo}-${hex}`;
    for (const cm of store.configMaps) {
      const bd = (cm['binaryData'] ?? {}) as Record<string, unknown>;
      const rawName = ((cm['metadata'] ?? {}) as Record<string, unknown>)['name'];
      const name = typeof rawName === 'string' ? rawName : '?';
      for (const [k, v] of Object.entries(bd).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!k.startsWith(prefix) || typeof v !== 'string') continue;
        const data = Buffer.from(v, 'base64');
        if (data.length === 0) continue;
        if (data.length > max) {
          failures.push({ store: store.name, index: `${name}/${k}`, reason: `signature larger than ${max} bytes` });
          continue;
        }
        out.push({ store: store.name, index: `${name}/${k}`, data });
      }
    }
    return out;
  }
  const unusable = store.unusable ?? (/^https?:/.test(store.url) ? opts.http?.unavailable : undefined);
  if (unusable !== undefined) {
    failures.push({ store: store.url, reason: unusable });
    return out;
  }
  const base = store.url.replace(/\/+$/, '');
  const scheme = /^(https?|file):/.exec(base)?.[1];
  if (scheme === undefined) {
    failures.push({ store: store.url, reason: `unsupported store scheme in ${store.url} (use https, http or file)` });
    return out;
  }
  // upstream sigstore checkHTTPSignatures: signature-1 … signature-9; a 404 ends the store, other failures are
  // recorded and the next index is tried
  for (let n = 1; n <= (opts.maxSignatures ?? MAX_SIGNATURE_SEARCH); n++) {
    const url = `${base}/${algo}=${hex}/signature-${n}`;
    let got: Uint8Array | 'not-found' | 'too-large';
    try {
      got =
        scheme === 'file' ? await readFileSignature(url, max) : await readHttpSignature(url, store.ca, opts.http, max);
    } catch (e) {
      failures.push({
        store: store.url,
        index: String(n),
        reason: `unable to retrieve signature from ${url}: ${(e as Error).message}`,
      });
      continue;
    }
    if (got === 'not-found') break;
    if (got === 'too-large') {
      failures.push({ store: store.url, index: String(n), reason: `signature larger than ${max} bytes` });
      continue;
    }
    if (got.length > 0) out.push({ store: store.url, index: String(n), data: got });
  }
  return out;
}

/** Upstream library-go sigstore `maxSignatureSearch` (indices 1 to 9 are probed). */
const MAX_SIGNATURE_SEARCH = 9;

async function readFileSignature(url: string, max: number): Promise<Uint8Array | 'not-found' | 'too-large'> {
  try {
    const data = await readFile(fileURLToPath(url));
    return data.length > max ? 'too-large' : data;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'not-found';
    throw e;
  }
}

/** One signature over HTTP(S); the body is read up to `max` bytes only (hostile stores are bounded). */
async function readHttpSignature(
  url: string,
  ca: string | undefined,
  http: StoreHttpOptions | undefined,
  max: number,
): Promise<Uint8Array | 'not-found' | 'too-large'> {
  const res = await httpGet(url, ca, http);
  if (res.status === 404 || res.status < 200 || res.status >= 300) {
    await res.body?.cancel();
    if (res.status === 404) return 'not-found';
    throw new Error(`response status ${res.status}`);
  }
  if (!res.body) return new Uint8Array();
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

async function readKeyring(k: Keyring, openpgp: typeof OpenPGP): Promise<OpenPGP.Key[]> {
  if (typeof k.data === 'string' && k.data.includes('-----BEGIN PGP')) return openpgp.readKeys({ armoredKeys: k.data });
  return openpgp.readKeys({ binaryKeys: typeof k.data === 'string' ? Buffer.from(k.data, 'latin1') : k.data });
}

/**
 * Verifies a release digest: fetches signatures from every store, checks each OpenPGP signature against each keyring
 * and its "atomic container signature" claims against the digest. Verified when every keyring verified at least one
 * signature (as upstream). Reports the key and store that verified, or every failure reason.
 */
export async function verifyRelease(opts: VerifyOptions): Promise<VerificationResult> {
  const failures: VerificationFailure[] = [];
  const signatures: VerifiedSignature[] = [];
  const digest = opts.digest;
  if (!DIGEST_RE.test(digest)) {
    return {
      verified: false,
      digest,
      signatures,
      failures: [
        { reason: `release images that are not accessed via digest cannot be verified (${JSON.stringify(digest)})` },
      ],
    };
  }
  if (opts.keyrings.length === 0) failures.push({ reason: 'no keyrings were given; nothing can be verified' });
  if (opts.stores.length === 0) failures.push({ reason: 'no signature stores were given' });
  const keyrings: { name: string; keys: OpenPGP.Key[] }[] = [];
  const openpgp = await loadOpenpgp();
  for (const k of opts.keyrings) {
    try {
      keyrings.push({ name: k.name, keys: await readKeyring(k, openpgp) });
    } catch (e) {
      failures.push({ keyring: k.name, reason: `cannot read keyring: ${(e as Error).message}` });
    }
  }
  const fetched = (await Promise.all(opts.stores.map((s) => fetchStore(s, digest, opts, failures)))).flat();
  if (fetched.length === 0 && opts.stores.length > 0)
    failures.push({ reason: `no signatures found for ${digest} in ${opts.stores.length} store(s)` });
  const remaining = new Set(keyrings.map((k) => k.name));
  for (const sig of fetched) {
    const readMsg = async (): Promise<OpenPGP.Message<Uint8Array>> => {
      try {
        return await openpgp.readMessage({ binaryMessage: sig.data });
      } catch {
        return await openpgp.readMessage({ armoredMessage: Buffer.from(sig.data).toString('utf8') });
      }
    };
    try {
      await readMsg();
    } catch (e) {
      failures.push({ store: sig.store, index: sig.index, reason: `not an OpenPGP message: ${(e as Error).message}` });
      continue;
    }
    for (const kr of keyrings) {
      try {
        // a message object is consumed by verification: read it again for each keyring
        const message = await readMsg();
        // openpgp's overloaded typings confuse the type-aware lint rules here
        /* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment */
        const res = await openpgp.verify({
          message,
          verificationKeys: kr.keys,
          expectSigned: true,
          format: 'binary',
          ...(opts.date ? { date: opts.date } : {}),
        });
        /* eslint-enable @typescript-eslint/no-unsafe-class-instance-assignment */
        const first = res.signatures[0];
        if (!first) throw new Error('no signature');
        await first.verified;
        const claims = parseAtomicSignature(res.data as Uint8Array);
        if (claims.dockerManifestDigest !== digest)
          throw new Error(`signature is for ${claims.dockerManifestDigest}, not ${digest}`);
        const key = kr.keys.find((k) => k.getKeys(first.keyID).length > 0);
        const s: VerifiedSignature = {
          keyring: kr.name,
          fingerprint: key ? key.getFingerprint() : first.keyID.toHex(),
          store: sig.store,
          index: sig.index,
          dockerReference: claims.dockerReference,
          data: sig.data,
        };
        if (claims.creator !== undefined) s.creator = claims.creator;
        if (claims.timestamp !== undefined) s.timestamp = claims.timestamp;
        signatures.push(s);
        remaining.delete(kr.name);
      } catch (e) {
        failures.push({ store: sig.store, index: sig.index, keyring: kr.name, reason: (e as Error).message });
      }
    }
  }
  for (const r of remaining)
    if (fetched.length > 0) failures.push({ keyring: r, reason: `no signature verified by keyring ${r}` });
  const verified = keyrings.length > 0 && keyrings.length === opts.keyrings.length && remaining.size === 0;
  return { verified, digest, signatures, failures: verified ? failures : failures };
}

/** Keys and stores declared by a payload's verification ConfigMap. */
export interface VerificationConfig {
  configMap: string;
  keyrings: Keyring[];
  stores: { url: string }[];
  warnings: string[];
}

/**
 * Finds the root of trust in a payload: the first ConfigMap annotated `release.openshift.io/verification-config-map`;
 * `verifier-public-key-*` keys are keyrings and `store-*` keys are store URLs. Returns `null` when there is none;
 * throws {@link PayloadError} when it lacks keys or stores.
 */
export function verificationConfigFromManifests(manifests: readonly Manifest[]): VerificationConfig | null {
  const cm = manifests.find(
    (m) =>
      m.gvk.group === '' &&
      m.gvk.kind === 'ConfigMap' &&
      m.annotations !== null &&
      'release.openshift.io/verification-config-map' in m.annotations,
  );
  if (!cm) return null;
  const id = `${cm.namespace}/${cm.name}`;
  const data = (cm.object['data'] ?? {}) as Record<string, unknown>;
  const out: VerificationConfig = { configMap: id, keyrings: [], stores: [], warnings: [] };
  for (const [k, v] of Object.entries(data)) {
    if (typeof v !== 'string') continue;
    if (k.startsWith('verifier-public-key-'))
      out.keyrings.push({ name: k.slice('verifier-public-key-'.length), data: v });
    else if (k.startsWith('store-')) {
      let u: URL;
      try {
        u = new URL(v.trim());
      } catch {
        throw new PayloadError(
          'VerificationFailed',
          `${id}: ${k} is not a valid URL: ${JSON.stringify(v)}`,
          `${cm.dir}/${cm.filename}#data.${k}`,
        );
      }
      if (!['https:', 'http:', 'file:'].includes(u.protocol))
        throw new PayloadError(
          'VerificationFailed',
          `${id}: ${k} must use https, http or file`,
          `${cm.dir}/${cm.filename}#data.${k}`,
        );
      out.stores.push({ url: v.trim() });
    } else out.warnings.push(`${id}: ignoring unrecognized data key ${k}`);
  }
  if (out.stores.length === 0)
    throw new PayloadError(
      'VerificationFailed',
      `${id} did not provide any signature stores to read from and cannot be used`,
      `${cm.dir}/${cm.filename}`,
    );
  if (out.keyrings.length === 0)
    throw new PayloadError(
      'VerificationFailed',
      `${id} did not provide any GPG public keys to verify signatures from and cannot be used`,
      `${cm.dir}/${cm.filename}`,
    );
  return out;
}
