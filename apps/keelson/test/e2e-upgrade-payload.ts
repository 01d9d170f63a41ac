/**
 * Helpers of the end-to-end upgrade proof: small release payloads whose operator Deployments carry
 * `RELEASE_VERSION` and whose ClusterOperators name their namespace in `relatedObjects` (so the sandbox's
 * cluster-operator simulator reports a version only after the CVO rolled that component's Deployment out), packed
 * as OCI images and pushed to a real `docker-registry` on loopback with `skopeo`, and a throwaway gpg signing key.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  TEST_RELEASE_COMPONENTS,
  testComponentNamespace,
  writeReleaseImageLayout,
  writeTestRelease,
} from '@keelson/payload-gen';

/** The CVO's own manifests (`manifests/` of every payload, upstream's layout). */
const CVO_MANIFESTS = fileURLToPath(new URL('../../cluster-version-operator/manifests/', import.meta.url));

/** The components of the test payloads: run level and name (one ClusterOperator each). */
export const COMPONENTS: readonly (readonly [level: string, name: string])[] = TEST_RELEASE_COMPONENTS;

/** Namespace of a component. */
export const namespaceOf = testComponentNamespace;

/** Writes a release payload directory (@keelson/payload-gen `writeTestRelease`) for `version`; returns its path. */
export async function writePayload(
  root: string,
  version: string,
  verification: { publicKey: string; store: string },
): Promise<string> {
  return writeTestRelease(root, {
    version,
    cvoManifestsDir: CVO_MANIFESTS,
    verification: { ...verification, name: 'e2e' },
  });
}

/** Packs a payload directory as an OCI image layout tagged `release` (@keelson/payload-gen). */
export async function writeOciLayout(payloadDir: string, layout: string): Promise<void> {
  await writeReleaseImageLayout(payloadDir, layout, 'release');
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
        s.close(() => {
          resolve(p);
        });
      });
    });
    await writeFile(
      join(dir, 'registry.yml'),
      `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'storage')}\nhttp:\n  addr: 127.0.0.1:${String(port)}\n`,
    );
    const child = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'registry.yml')], { stdio: 'ignore' });
    const host = `127.0.0.1:${String(port)}`;
    for (let i = 0; i < 200; i++) {
      if (
        await fetch(`http://${host}/v2/`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return new LocalRegistry(host, child);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    throw new Error('docker-registry did not start');
  }

  /** Pushes an OCI layout (tag `release`) as `<host>/<repo>:<tag>`; returns the by-digest pull spec. */
  push(layout: string, repo: string, tag: string, digestFile: string): string {
    execFileSync('skopeo', [
      '--insecure-policy',
      'copy',
      '--quiet',
      '--dest-tls-verify=false',
      `--digestfile=${digestFile}`,
      `oci:${layout}:release`,
      `docker://${this.host}/${repo}:${tag}`,
    ]);
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
    return execFileSync(
      'gpg',
      ['--homedir', this.home, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
      { input, stdio: ['pipe', 'pipe', 'ignore'] },
    );
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
    const claims = JSON.stringify({
      critical: {
        type: 'atomic container signature',
        image: { 'docker-manifest-digest': digest },
        identity: { 'docker-reference': repo },
      },
      optional: { creator: 'keelson-e2e' },
    });
    const dir = join(storeDir, `sha256=${digest.slice(7)}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'signature-1'), this.gpg(['--local-user', 'release@example.com', '--sign'], claims));
  }
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
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
