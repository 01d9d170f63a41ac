/**
 * Release signing for rehearsals: an OpenPGP key made on the spot (openpgp in JS, no system gpg), "atomic container
 * signature" claims over a release image digest, and a signature store served over loopback HTTP in the layout of
 * upstream's stores (`<store>/sha256=<hex>/signature-<n>`, as mirror.openshift.com/pub/openshift-v4/signatures).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as openpgp from 'openpgp';

/** A signing key pair in armored form. */
export interface SigningKey {
  /** Armored public key: what the verification ConfigMap lists (`verifier-public-key-<name>`). */
  publicKey: string;
  /** Armored private key (unencrypted; the rehearsal key lives only as long as the rehearsal). */
  privateKey: string;
  /** Hex fingerprint. */
  fingerprint: string;
}

/** Makes an ed25519 signing key for `name <email>`. */
export async function generateSigningKey(
  name = 'Keelson rehearsal',
  email = 'rehearsal@keelson.invalid',
): Promise<SigningKey> {
  const { publicKey, privateKey } = await openpgp.generateKey({
    type: 'ecc',
    curve: 'ed25519Legacy',
    userIDs: [{ name, email }],
    format: 'armored',
  });
  const key = await openpgp.readKey({ armoredKey: publicKey });
  return { publicKey, privateKey, fingerprint: key.getFingerprint() };
}

/** The signed JSON of an atomic container signature (containers/image "atomic container signature" format). */
export function atomicSignatureClaims(
  digest: string,
  dockerReference: string,
  creator = 'keelson rehearsal',
  timestamp?: number,
): Uint8Array {
  const claims = {
    critical: {
      identity: { 'docker-reference': dockerReference },
      image: { 'docker-manifest-digest': digest },
      type: 'atomic container signature',
    },
    optional: { creator, ...(timestamp !== undefined ? { timestamp } : {}) },
  };
  return Buffer.from(JSON.stringify(claims));
}

/** Signs the claims for `digest` with `privateKey`: a binary OpenPGP signed message, like `gpg --sign`. */
export async function signReleaseDigest(
  digest: string,
  dockerReference: string,
  privateKey: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<Uint8Array> {
  const signingKeys = await openpgp.readPrivateKey({ armoredKey: privateKey });
  const message = await openpgp.createMessage({
    binary: atomicSignatureClaims(digest, dockerReference, 'keelson rehearsal', timestamp),
  });
  const signed: unknown = await openpgp.sign({ message, signingKeys, format: 'binary' });
  if (!(signed instanceof Uint8Array)) throw new TypeError('openpgp.sign returned no binary message');
  return signed;
}

/** A running signature store. */
export interface SignatureStoreServer {
  /** Base URL of the store (what `store-*` keys of the verification ConfigMap hold). */
  url: string;
  /** Adds signature `signature-<n>` (n = count so far + 1) for `digest`. */
  add(digest: string, signature: Uint8Array): void;
  /** GET requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

const DIGEST_RE = /^(sha256|sha512):([a-f0-9]{64,128})$/;

/** Serves signatures over HTTP on 127.0.0.1 (GET/HEAD `/<algo>=<hex>/signature-<n>`, 404 past the last one). */
export async function startSignatureStore(port = 0): Promise<SignatureStoreServer> {
  const sigs = new Map<string, Uint8Array[]>();
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const m = /^\/(sha256|sha512)=([a-f0-9]+)\/signature-(\d+)$/.exec(req.url ?? '');
    if ((req.method !== 'GET' && req.method !== 'HEAD') || m === null) {
      res.writeHead(m === null ? 404 : 405).end();
      return;
    }
    const list = sigs.get(`${m[1] ?? ''}:${m[2] ?? ''}`) ?? [];
    const body = list[Number(m[3]) - 1];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    add(digest, signature) {
      const m = DIGEST_RE.exec(digest);
      if (m === null) throw new TypeError(`signature store: ${JSON.stringify(digest)} is not a sha256/sha512 digest`);
      const key = `${m[1] ?? ''}:${m[2] ?? ''}`;
      sigs.set(key, [...(sigs.get(key) ?? []), signature]);
    },
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
