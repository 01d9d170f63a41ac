/**
 * Helpers of the end-to-end upgrade proof: small release payloads whose operator Deployments carry
 * `RELEASE_VERSION` and whose ClusterOperators name their namespace in `relatedObjects` (so the sandbox's
 * cluster-operator simulator reports a version only after the CVO rolled that component's Deployment out), packed
 * as OCI images and pushed to a real `docker-registry` on loopback with `skopeo`, and a throwaway gpg signing key.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CVO's own manifests (`manifests/` of every payload, upstream's layout). */
const CVO_MANIFESTS = fileURLToPath(new URL('../../cluster-version-operator/manifests/', import.meta.url));
const PROFILE = { 'include.release.openshift.io/self-managed-high-availability': 'true' };

/** The components of the test payloads: run level and name (one ClusterOperator each). */
export const COMPONENTS: readonly (readonly [level: string, name: string])[] = [
  ['10', 'config-operator'],
  ['50', 'ingress'],
  ['50', 'dns'],
  ['70', 'console'],
];

/** Namespace of a component. */
export const namespaceOf = (component: string): string => `openshift-${component}`;

function componentFiles(level: string, component: string, version: string): Record<string, string> {
  const ns = namespaceOf(component);
  const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), annotations: PROFILE });
  const j = (o: unknown) => JSON.stringify(o, null, 1);
  return {
    [`0000_${level}_${component}_00_namespace.yaml`]: j({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(ns) }),
    [`0000_${level}_${component}_01_config.yaml`]: j({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(`${component}-config`, ns), data: { version } }),
    [`0000_${level}_${component}_02_deployment.yaml`]: j({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(`${component}-operator`, ns),
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: component } },
        template: {
          metadata: { labels: { app: component } },
          spec: { containers: [{ name: 'operator', image: `quay.io/keelson/${component}:${version}`, env: [{ name: 'RELEASE_VERSION', value: version }] }] },
        },
      },
    }),
    [`0000_${level}_${component}_99_clusteroperator.yaml`]: j({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterOperator',
      metadata: meta(component),
      status: { versions: [{ name: 'operator', version }], relatedObjects: [{ group: '', resource: 'namespaces', name: ns }] },
    }),
  };
}

/** Writes a release payload directory (`manifests/` + `release-manifests/`) for `version`; returns its path. */
export async function writePayload(root: string, version: string, verification: { publicKey: string; store: string }): Promise<string> {
  const rm = join(root, 'release-manifests');
  await mkdir(join(root, 'manifests'), { recursive: true });
  await mkdir(rm, { recursive: true });
  for (const name of await readdir(CVO_MANIFESTS)) await writeFile(join(root, 'manifests', name), await readFile(join(CVO_MANIFESTS, name)));
  await writeFile(join(rm, 'release-metadata'), JSON.stringify({ kind: 'cincinnati-metadata-v0', version, previous: [] }));
  await writeFile(join(rm, 'image-references'), JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: { name: version, creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { tags: [] } }));
  await writeFile(join(rm, '0000_03_config-operator_00_namespaces.yaml'), ['openshift-config', 'openshift-config-managed'].map((n) => JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n, annotations: PROFILE } })).join('\n'));
  for (const [level, c] of COMPONENTS) for (const [f, text] of Object.entries(componentFiles(level, c, version))) await writeFile(join(rm, f), text);
  await writeFile(join(rm, '0000_90_cluster-update-keys_configmap.yaml'), JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'release-verification', namespace: 'openshift-config-managed', annotations: { ...PROFILE, 'release.openshift.io/verification-config-map': '' } },
    data: { 'verifier-public-key-e2e': verification.publicKey, 'store-e2e': verification.store },
  }));
  return root;
}

/** Packs a payload directory as a one-layer OCI image layout tagged `release`. */
export async function writeOciLayout(payloadDir: string, layout: string): Promise<void> {
  await mkdir(join(layout, 'blobs/sha256'), { recursive: true });
  const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
  const put = async (b: Buffer) => {
    const d = sha(b);
    await writeFile(join(layout, 'blobs/sha256', d.slice(7)), b);
    return { digest: d, size: b.length };
  };
  const layer = execFileSync('tar', ['-C', payloadDir, '--sort=name', '--mtime=2026-01-01', '--owner=0', '--group=0', '-cf', '-', 'manifests', 'release-manifests'], { maxBuffer: 1 << 26 });
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: { 'io.openshift.release': 'x' } }, rootfs: { type: 'layers', diff_ids: [sha(layer)] } }));
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...(await put(config)) },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...(await put(layer)) }],
  }));
  const m = await put(manifest);
  await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(join(layout, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', ...m, annotations: { 'org.opencontainers.image.ref.name': 'release' } }] }));
}

/** A real Debian `docker-registry` serving plain HTTP on loopback. */
export class LocalRegistry {
  private constructor(
    readonly host: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(dir: string): Promise<LocalRegistry> {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => { resolve(p); });
      });
    });
    await writeFile(join(dir, 'registry.yml'), `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'storage')}\nhttp:\n  addr: 127.0.0.1:${String(port)}\n`);
    const child = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'registry.yml')], { stdio: 'ignore' });
    const host = `127.0.0.1:${String(port)}`;
    for (let i = 0; i < 200; i++) {
      if (await fetch(`http://${host}/v2/`).then((r) => r.ok, () => false)) return new LocalRegistry(host, child);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    throw new Error('docker-registry did not start');
  }

  /** Pushes an OCI layout (tag `release`) as `<host>/<repo>:<tag>`; returns the by-digest pull spec. */
  push(layout: string, repo: string, tag: string, digestFile: string): string {
    execFileSync('skopeo', ['--insecure-policy', 'copy', '--quiet', '--dest-tls-verify=false', `--digestfile=${digestFile}`, `oci:${layout}:release`, `docker://${this.host}/${repo}:${tag}`]);
    const digest = readFileSync(digestFile, 'utf8').trim();
    return `${this.host}/${repo}@${digest}`;
  }

  /** Stops the registry process and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** A throwaway gpg home with one ed25519 signing key (Debian's gpg). */
export class Signer {
  constructor(readonly home: string) {
    this.gpg(['--quick-gen-key', 'Keelson E2E <release@example.com>', 'ed25519', 'sign', 'never']);
  }

  private gpg(args: string[], input?: string): Buffer {
    return execFileSync('gpg', ['--homedir', this.home, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { input, stdio: ['pipe', 'pipe', 'ignore'] });
  }

  /** The armored public key, as a verification ConfigMap carries it. */
  publicKey(): string {
    return this.gpg(['--armor', '--export', 'release@example.com']).toString();
  }

  /** Stops the gpg agent of this home. */
  close(): void {
    try {
      execFileSync('gpgconf', ['--homedir', this.home, '--kill', 'all'], { stdio: 'ignore' });
    } catch {
      // no agent was started
    }
  }

  /** Writes an atomic container signature of `pullSpec` (`host/repo@sha256:…`) to `<store>/sha256=<hex>/signature-1`. */
  async sign(storeDir: string, pullSpec: string): Promise<void> {
    const [repo = '', digest = ''] = pullSpec.split('@');
    const claims = JSON.stringify({ critical: { type: 'atomic container signature', image: { 'docker-manifest-digest': digest }, identity: { 'docker-reference': repo } }, optional: { creator: 'keelson-e2e' } });
    const dir = join(storeDir, `sha256=${digest.slice(7)}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'signature-1'), this.gpg(['--local-user', 'release@example.com', '--sign'], claims));
  }
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}
