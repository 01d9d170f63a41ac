/** Test helpers: small release payloads, OCI layouts, gpg signing, the sandbox with the CVO CRDs, and a ClusterOperator reporter test double. */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { KubeClient, KubeConfig, isConflict } from '@keelson/kube';
import {
  startOperatorSimulator,
  startSandbox,
  type OperatorFault,
  type OperatorSimulator,
  type Sandbox,
} from '@keelson/kube-sandbox';
import { TEST_RELEASE_COMPONENTS, writeReleaseImageLayout, writeTestRelease } from '@keelson/payload-gen';

export const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
export const APP_MANIFESTS = new URL('../manifests/', import.meta.url).pathname;

/** The components of the fixture payloads (run level, name). */
export const COMPONENTS: [string, string][] = TEST_RELEASE_COMPONENTS.map(([level, name]) => [level, name]);

/**
 * Writes a small release payload directory (@keelson/payload-gen `writeTestRelease`, with the CVO's own manifests and
 * the `ingress-obsolete` object, deleted when `deleteObsolete`); returns its path.
 */
export async function writeFixturePayload(
  root: string,
  version: string,
  opts: { verification?: { publicKey: string; store: string }; deleteObsolete?: boolean } = {},
): Promise<string> {
  return writeTestRelease(root, {
    version,
    cvoManifestsDir: APP_MANIFESTS,
    obsoleteManifest: opts.deleteObsolete === true ? 'delete' : 'keep',
    ...(opts.verification !== undefined ? { verification: opts.verification } : {}),
  });
}

/** Packs a payload directory as an OCI image layout (@keelson/payload-gen); returns the manifest digest. */
export async function writeOciLayout(payloadDir: string, layout: string): Promise<string> {
  return writeReleaseImageLayout(payloadDir, layout);
}

/** A throwaway gpg home with one signing key (Debian's gpg). */
export class Signer {
  private constructor(readonly home: string) {}
  static async create(): Promise<Signer> {
    const s = new Signer(await mkdtemp(join(tmpdir(), 'cvo-gpg-')));
    s.gpg(['--quick-gen-key', 'Keelson Test <release@example.com>', 'ed25519', 'sign', 'never']);
    return s;
  }
  gpg(args: string[], input?: string): Buffer {
    return execFileSync(
      'gpg',
      ['--homedir', this.home, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
      { input, stdio: ['pipe', 'pipe', 'ignore'] },
    );
  }
  publicKey(): string {
    return this.gpg(['--armor', '--export', 'release@example.com']).toString();
  }
  /** Writes `<store>/sha256=<hex>/signature-1` for `digest`. */
  async sign(storeDir: string, digest: string, reference: string): Promise<void> {
    const claims = JSON.stringify({
      critical: {
        type: 'atomic container signature',
        image: { 'docker-manifest-digest': digest },
        identity: { 'docker-reference': reference },
      },
      optional: { creator: 'keelson-test' },
    });
    const dir = join(storeDir, `sha256=${digest.slice(7)}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'signature-1'), this.gpg(['--local-user', 'release@example.com', '--sign'], claims));
  }
}

/**
 * The releases most process tests update between: 4.18.0 on disk (the CVO's own payload, trusting a new test key and a
 * file signature store) and 4.18.1 as an OCI layout whose digest that key signed.
 */
export async function writeSignedReleasePair(dir: string): Promise<{
  payloadA: string;
  imageB: string;
  digestB: string;
  signer: Signer;
  store: string;
  verification: { publicKey: string; store: string };
}> {
  const signer = await Signer.create();
  const store = join(dir, 'signatures');
  const verification = { publicKey: signer.publicKey(), store: `file://${store}` };
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0', { verification });
  await writeFixturePayload(join(dir, 'payload-b'), '4.18.1', { verification });
  const digestB = await writeOciLayout(join(dir, 'payload-b'), join(dir, 'layout-b'));
  await signer.sign(store, digestB, 'quay.io/keelson/release:4.18.1');
  return { payloadA, imageB: `oci:${join(dir, 'layout-b')}@${digestB}`, digestB, signer, store, verification };
}

/** A sandbox with the ClusterVersion/ClusterOperator CRDs, the CVO namespace and a ClusterVersion, as an installer leaves it. */
export async function startCluster(
  opts: { channel?: string; upstream?: string; persistDir?: string } = {},
): Promise<{ sandbox: Sandbox; client: KubeClient; kubeconfig: string; dir: string }> {
  const sandbox = await startSandbox(opts.persistDir ? { persistDir: opts.persistDir } : {});
  const dir = await mkdtemp(join(tmpdir(), 'cvo-test-'));
  const kubeconfig = await sandbox.writeKubeconfig(join(dir, 'kubeconfig'));
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const client = new KubeClient(kc);
  for (const f of [
    '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
    '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
  ]) {
    const crd = parseYaml(await readFile(join(FIXTURES, 'upstream', f), 'utf8')) as Record<string, unknown>;
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  }
  for (let i = 0; i < 100; i++) {
    try {
      await client.request('GET', '/apis/config.openshift.io/v1/clusterversions');
      await client.request('GET', '/apis/config.openshift.io/v1/clusteroperators');
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-cluster-version' } },
  });
  // every OpenShift cluster serves openshift-user-critical, which the CVO's payload Pod names (kube-apiserver's
  // Priority admission refuses a Pod whose class does not exist)
  await client.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
    body: {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'openshift-user-critical' },
      value: 1_000_000_000,
      description:
        'Used for user critical pods that must run in the cluster, but can be moved to another node if necessary.',
    },
  });
  await client.request('POST', '/apis/config.openshift.io/v1/clusterversions', {
    body: {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: {
        clusterID: 'c0ffee00-1234-4abc-8def-0123456789ab',
        ...(opts.channel ? { channel: opts.channel } : {}),
        ...(opts.upstream ? { upstream: opts.upstream } : {}),
      },
    },
  });
  return { sandbox, client, kubeconfig, dir };
}

/**
 * TEST DOUBLE (not the upgrade-sim simulator): reports every ClusterOperator as Available at the version the
 * ClusterVersion is moving to, after `delayMs`. Records when each operator reported which version.
 */
export class OperatorReporterDouble {
  readonly reports: { name: string; version: string; at: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  /** Names that never report (fault). */
  readonly silent = new Set<string>();
  /** Names that report Degraded=True. */
  readonly degraded = new Set<string>();
  /** `versionsFor` gives the versions an operator's manifest declares (default: `operator` at the desired version). */
  constructor(
    private readonly client: KubeClient,
    private readonly delayMs = 0,
    private readonly versionsFor?: Map<string, { name: string; version: string }[]>,
  ) {}
  start(intervalMs = 25): void {
    this.timer = setInterval(() => {
      void this.tick();
    }, intervalMs);
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const cv = await this.client.request<{ status?: { desired?: { version?: string } } }>(
        'GET',
        '/apis/config.openshift.io/v1/clusterversions/version',
      );
      const version = cv.status?.desired?.version;
      if (!version) return;
      const list = await this.client.request<{
        items: {
          metadata: { name: string; creationTimestamp?: string };
          status?: { versions?: { name: string; version: string }[]; conditions?: { type: string; status: string }[] };
        }[];
      }>('GET', '/apis/config.openshift.io/v1/clusteroperators');
      for (const co of list.items) {
        const name = co.metadata.name;
        if (this.silent.has(name)) continue;
        const deg = this.degraded.has(name) ? 'True' : 'False';
        const versions = this.versionsFor?.get(name) ?? [{ name: 'operator', version }];
        const cur = co.status?.versions?.find((v) => v.name === 'operator')?.version;
        const curDeg = co.status?.conditions?.find((c) => c.type === 'Degraded')?.status;
        if (JSON.stringify(co.status?.versions ?? []) === JSON.stringify(versions) && curDeg === deg) continue;
        if (
          this.delayMs > 0 &&
          Date.now() - Date.parse(co.metadata.creationTimestamp ?? '') < this.delayMs &&
          cur === undefined
        )
          continue;
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const body = {
          ...co,
          status: {
            ...(co.status ?? {}),
            versions,
            conditions: [
              { type: 'Available', status: 'True', lastTransitionTime: now, reason: 'AsExpected', message: '' },
              { type: 'Progressing', status: 'False', lastTransitionTime: now, reason: 'AsExpected', message: '' },
              {
                type: 'Degraded',
                status: deg,
                lastTransitionTime: now,
                reason: deg === 'True' ? 'TestDegraded' : 'AsExpected',
                message: deg === 'True' ? 'the test double reports Degraded' : '',
              },
            ],
          },
        };
        try {
          await this.client.request('PUT', `/apis/config.openshift.io/v1/clusteroperators/${name}/status`, { body });
          this.reports.push({ name, version, at: Date.now() });
        } catch (e) {
          if (!isConflict(e)) throw e;
        }
      }
    } catch {
      // transient: the next tick retries
    } finally {
      this.busy = false;
    }
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
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/**
 * The upgrade-sim cluster-operator simulator of @keelson/kube-sandbox (not a test double), restarted by each
 * `simulate(faults)` to change the faults it plays. `kubeconfigPath` is read when `simulate` is called.
 */
export class RestartableOperatorSimulator {
  private current: OperatorSimulator | undefined;
  constructor(private readonly kubeconfigPath: () => string) {}

  /** Stops the running simulator and starts one with `faults`; resolves once it has synced. */
  async simulate(faults: Record<string, OperatorFault> = {}): Promise<void> {
    await this.stop();
    const sim = await startOperatorSimulator({
      kubeconfig: await readFile(this.kubeconfigPath(), 'utf8'),
      delayMs: 20,
      waitForDeployments: false,
      faults,
    });
    await sim.synced;
    this.current = sim;
  }

  /** Stops the running simulator, if any. */
  async stop(): Promise<void> {
    await this.current?.stop();
    this.current = undefined;
  }
}
