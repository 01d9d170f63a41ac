/**
 * Shared test plumbing for the daemon, server and virtual-node tests: a real embedded API server (HTTP on
 * 127.0.0.1) with the upstream MCO CRDs shipped by @keelson/api, MachineConfig builders, and the drain
 * responder TEST DOUBLE standing in for the machine-config-controller's drain controller (cordon/uncordon and
 * `lastAppliedDrain`; no pod eviction), which lives in the sibling controller code.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import {
  ControllerConfigs,
  Informer,
  KubeClient,
  MachineConfigPools,
  MachineConfigs,
  isAlreadyExists,
  isNotFound,
} from '@keelson/kube';
import { NODE_ANNOTATIONS, crdFile, type MachineConfig, type Node } from '@keelson/api';
import { Nodes } from '../src/daemon/cluster.js';
import { encodeDataUrl } from '../src/daemon/dataurl.js';

const CRD_KINDS = [
  'MachineConfig',
  'MachineConfigPool',
  'ControllerConfig',
  'MachineConfiguration',
  'MachineConfigNode',
] as const;

/** A sandbox with the MCO CRDs, a client and a temp directory. */
export interface TestEnv {
  readonly sandbox: Sandbox;
  readonly client: KubeClient;
  readonly dir: string;
  stop(): Promise<void>;
}

async function installCrd(client: KubeClient, kind: (typeof CRD_KINDS)[number]): Promise<void> {
  const { path, plural, group } = crdFile(kind);
  const text = readFileSync(path, 'utf8');
  try {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parseYaml(text) as Record<string, unknown>,
    });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  for (let i = 0; i < 200; i++) {
    try {
      await client.request('GET', `/apis/${group}/v1/${plural}`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`CRD ${plural}.${group} not served`);
}

/** A minimal valid ControllerConfig `machine-config-controller`. */
export function controllerConfig(caPem = ''): Record<string, unknown> {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'ControllerConfig',
    metadata: { name: 'machine-config-controller' },
    spec: {
      additionalTrustBundle: null,
      baseOSContainerImage: 'quay.io/test/rhcos@sha256:' + 'a'.repeat(64),
      cloudProviderCAData: null,
      cloudProviderConfig: '',
      clusterDNSIP: '172.30.0.10',
      dns: { apiVersion: 'config.openshift.io/v1', kind: 'DNS', spec: { baseDomain: 'example.com' } },
      images: {},
      infra: { apiVersion: 'config.openshift.io/v1', kind: 'Infrastructure', spec: {}, status: {} },
      ipFamilies: 'IPv4',
      kubeAPIServerServingCAData: Buffer.from(caPem).toString('base64'),
      network: null,
      proxy: null,
      releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.99.0',
      rootCAData: Buffer.from(caPem).toString('base64'),
    },
  };
}

/** Starts the sandbox and installs CRDs, the MCO namespace and the ControllerConfig. */
export async function startEnv(): Promise<TestEnv> {
  const sandbox = await startSandbox({ bookmarkIntervalMs: 1000 });
  const client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
  for (const k of CRD_KINDS) await installCrd(client, k);
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-config-operator' } },
  });
  await client
    .resource(ControllerConfigs)
    .create(controllerConfig('-----BEGIN CERTIFICATE-----\nTEST\n-----END CERTIFICATE-----\n') as never);
  const dir = mkdtempSync(join(tmpdir(), 'mco-daemon-test-'));
  return {
    sandbox,
    client,
    dir,
    async stop() {
      await client.close();
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Parts of a test MachineConfig. */
export interface McParts {
  files?: Record<string, string | { contents: string; mode: number }>;
  units?: { name: string; contents?: string; enabled?: boolean; dropins?: { name: string; contents: string }[] }[];
  sshKeys?: string[];
  passwordHash?: string;
  kernelArguments?: string[];
  osImageURL?: string;
}

/** A rendered-style MachineConfig built from parts. */
export function machineConfig(name: string, parts: McParts): MachineConfig {
  const files = Object.entries(parts.files ?? {}).map(([path, v]) => {
    const c = typeof v === 'string' ? { contents: v, mode: 420 } : v;
    return { path, mode: c.mode, overwrite: true, contents: { source: encodeDataUrl(c.contents) } };
  });
  const config: Record<string, unknown> = { ignition: { version: '3.5.0' } };
  if (files.length > 0) config['storage'] = { files };
  if (parts.units) config['systemd'] = { units: parts.units };
  if (parts.sshKeys || parts.passwordHash !== undefined) {
    config['passwd'] = {
      users: [
        {
          name: 'core',
          ...(parts.sshKeys ? { sshAuthorizedKeys: parts.sshKeys } : {}),
          ...(parts.passwordHash !== undefined ? { passwordHash: parts.passwordHash } : {}),
        },
      ],
    };
  }
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: {
      osImageURL: parts.osImageURL ?? 'quay.io/test/rhcos@sha256:' + 'a'.repeat(64),
      config,
      kernelArguments: parts.kernelArguments ?? [],
      extensions: [],
      fips: false,
      kernelType: 'default',
    },
  };
}

/** Creates a MachineConfig. */
export async function createMc(client: KubeClient, mc: MachineConfig): Promise<void> {
  await client.resource(MachineConfigs).create(mc);
}

/** Creates pool `name` whose spec and status point at `config` (what the render/node controllers would leave). */
export async function createPool(client: KubeClient, name: string, config: string): Promise<void> {
  const pools = client.resource(MachineConfigPools);
  const created = await pools.create({
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name },
    spec: {
      machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': name } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: '' } },
      configuration: { name },
    },
  });
  await pools.updateStatus({
    ...created,
    status: {
      configuration: { name: config },
      machineCount: 0,
      updatedMachineCount: 0,
      readyMachineCount: 0,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
    },
  });
}

/** Sets a node's desiredConfig (the node controller's job; the tests play it). */
export async function setDesired(client: KubeClient, node: string, config: string): Promise<void> {
  await client
    .resource(Nodes)
    .patch(node, { metadata: { annotations: { [NODE_ANNOTATIONS.desiredConfig]: config } } }, { type: 'merge' });
}

/** Annotation of a node. */
export async function annotation(client: KubeClient, node: string, key: string): Promise<string | undefined> {
  try {
    return (await client.resource(Nodes).get(node)).metadata.annotations?.[key];
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

let pollIntervalMs = 25;
/** Sets the polling interval of {@link until} (tests with many concurrent waits poll less often). */
export function setPollInterval(ms: number): void {
  pollIntervalMs = ms;
}

/** Polls until `fn` is true. */
export async function until(
  fn: () => boolean | Promise<boolean>,
  ms = 20_000,
  what = 'condition',
  intervalMs = pollIntervalMs,
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** Waits until the node reports state Done on `config`. */
export async function untilDone(client: KubeClient, node: string, config: string, ms = 20_000): Promise<void> {
  await until(
    async () => {
      const n = await client
        .resource(Nodes)
        .get(node)
        .catch((e: unknown) => {
          if (isNotFound(e)) return undefined; // not registered yet
          throw e;
        });
      const a = n?.metadata.annotations ?? {};
      return a[NODE_ANNOTATIONS.state] === 'Done' && a[NODE_ANNOTATIONS.currentConfig] === config;
    },
    ms,
    `${node} Done on ${config}`,
  );
}

/**
 * TEST DOUBLE of the drain controller (the real one is the machine-config-controller's, built in parallel):
 * answers `desiredDrain` by cordoning (`drain-…`) or uncordoning (`uncordon-…`) the Node and copying the value to
 * `lastAppliedDrain`. Records every request per node.
 */
export class DrainResponder {
  readonly requests = new Map<string, string[]>();
  /** Failed patches (retried on the next Node event). */
  readonly errors: string[] = [];
  readonly #informer: Informer<Node>;
  readonly #client: KubeClient;
  readonly #inflight = new Set<string>();
  constructor(client: KubeClient) {
    this.#client = client;
    this.#informer = new Informer(client, Nodes);
    const handle = (n: Node): void => {
      this.#handle(n).catch((e: unknown) => {
        // the API server went away (test teardown) or a transient error: the next Node event retries
        this.errors.push((e as Error).message);
      });
    };
    this.#informer.addHandlers({ add: handle, update: (_o, n) => handle(n) });
  }
  async start(): Promise<this> {
    this.#informer.start();
    await this.#informer.waitForSync();
    return this;
  }
  async stop(): Promise<void> {
    await this.#informer.stop();
  }
  /** Requests seen for a node. */
  seen(node: string): string[] {
    return this.requests.get(node) ?? [];
  }
  async #handle(n: Node): Promise<void> {
    const name = n.metadata.name ?? '';
    const want = n.metadata.annotations?.[NODE_ANNOTATIONS.desiredDrain] ?? '';
    if (
      want === '' ||
      want === n.metadata.annotations?.[NODE_ANNOTATIONS.lastAppliedDrain] ||
      this.#inflight.has(`${name}/${want}`)
    )
      return;
    this.#inflight.add(`${name}/${want}`);
    const list = this.requests.get(name) ?? [];
    list.push(want);
    this.requests.set(name, list);
    try {
      await this.#client.resource(Nodes).patch(
        name,
        {
          spec: { unschedulable: want.startsWith('drain-') ? true : null },
          metadata: { annotations: { [NODE_ANNOTATIONS.lastAppliedDrain]: want } },
        },
        { type: 'merge' },
      );
    } finally {
      this.#inflight.delete(`${name}/${want}`);
    }
  }
}
