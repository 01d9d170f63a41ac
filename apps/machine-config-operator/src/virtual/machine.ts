/**
 * One virtual machine: a root directory, a simulated rpm-ostree host persisted in it, a `VirtualHost`, a Node
 * object whose Ready condition drops while it reboots, and the real daemon. Its life: provision (Ignition from
 * the machine-config-server, then firstboot and a reboot), boot (kubelet registers the Node, the daemon starts),
 * and reboots requested by the daemon (Ready=False for `rebootDurationMs`, the staged deployment becomes the
 * booted one, /run is emptied, a new boot id).
 */
import { mkdirSync, promises as fs } from 'node:fs';
import { SimulatedRpmOstree } from '@keelson/ostree';
import { isNotFound, type KubeClient, type Logger } from '@keelson/kube';
import { type Node, type NodeCondition } from '@keelson/api';
import { NodeWriter, Nodes } from '../daemon/cluster.js';
import type { ClusterPlumbing } from '../daemon/start.js';
import { clusterAccessFor } from '../daemon/start.js';
import type { NodeSource } from '../daemon/cluster.js';
import type { DaemonContext } from '../daemon/context.js';
import { emit } from '../daemon/context.js';
import { MachineConfigDaemon, type SyncBackoff } from '../daemon/daemon.js';
import type { DrainTimeouts } from '../daemon/drain.js';
import type { DaemonEventHandler } from '../daemon/events.js';
import { runFirstboot } from '../daemon/firstboot.js';
import { CertificateSync } from '../daemon/certificate-writer.js';
import { RpmOstreeOs } from '../daemon/os.js';
import { HostRoot } from '../daemon/root.js';
import { atomicWrite, exists } from '../daemon/writer.js';
import { applyIgnition } from './ignition-apply.js';
import { VIRTUAL_STATE_DIR, VirtualHost } from './host.js';

/** Default OS image of a fresh virtual machine (what the "boot image" ships). */
export const DEFAULT_BOOT_IMAGE =
  'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0000000000000000000000000000000000000000000000000000000000000000';

/** How a virtual machine gets its first config. */
export type ConfigProvider = (pool: string, signal: AbortSignal) => Promise<string>;

/** Options of one {@link VirtualMachine}. */
export interface VirtualMachineOptions {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly pool: string;
  readonly rootDir: string;
  readonly plumbing: ClusterPlumbing;
  /**
   * The kubelet's API client (Node registration and `nodes/status`), when it has other credentials than the daemon
   * (upstream: the kubelet's `system:node:<name>` identity vs the machine-config-daemon ServiceAccount); default:
   * the daemon's client.
   */
  readonly kubelet?: KubeClient;
  readonly source: NodeSource;
  readonly fetchConfig: ConfigProvider;
  readonly rebootDurationMs: number;
  readonly bootImage?: string;
  readonly logger: Logger;
  readonly onEvent?: DaemonEventHandler | undefined;
  readonly drainTimeouts: DrainTimeouts;
  readonly syncBackoff: SyncBackoff;
  /** Fault: the machine never comes back from its next reboot (Node stays NotReady). */
  readonly failBoot?: boolean;
  /** Fault: after provisioning, these files are edited by hand (config drift). */
  readonly driftPaths?: readonly string[];
}

const BASE_FILES: Record<string, string> = {
  '/etc/passwd': 'root:x:0:0:root:/root:/bin/bash\ncore:x:1000:1000:CoreOS Admin:/var/home/core:/bin/bash\n',
  '/etc/group': 'root:x:0:\ncore:x:1000:\n',
  '/usr/etc/chrony.conf': 'pool 2.rhel.pool.ntp.org iburst\n',
  '/etc/chrony.conf': 'pool 2.rhel.pool.ntp.org iburst\n',
};

/** A virtual machine running the real daemon. */
export class VirtualMachine {
  readonly name: string;
  readonly root: HostRoot;
  readonly os: SimulatedRpmOstree;
  readonly host: VirtualHost;
  readonly #o: VirtualMachineOptions;
  #daemon: MachineConfigDaemon | undefined;
  #certs: CertificateSync | undefined;
  #abort = new AbortController();
  #provisioning = false;
  #pendingReboot = false;
  #stopped = false;
  #rebootDone: Promise<void> = Promise.resolve();
  #rebooting = false;
  /** Number of reboots since start. */
  reboots = 0;

  constructor(o: VirtualMachineOptions) {
    this.#o = o;
    this.name = o.name;
    this.root = new HostRoot(o.rootDir);
    mkdirSync(this.root.resolve(VIRTUAL_STATE_DIR), { recursive: true });
    this.os = new SimulatedRpmOstree({
      statePath: this.root.resolve(`${VIRTUAL_STATE_DIR}/rpm-ostree.json`),
      osImageURL: o.bootImage ?? DEFAULT_BOOT_IMAGE,
    });
    this.host = new VirtualHost(this.root, {
      onReboot: (r) => {
        this.#onReboot(r);
      },
    });
  }

  /**
   * True from a reboot request until the machine has booted again (its kubelet posted Ready) or failed to: a Node
   * NotReady for longer than a reboot takes is stuck only when this is false (a busy process runs reboots late).
   */
  get rebooting(): boolean {
    return this.#rebooting;
  }

  /** The running daemon (undefined while rebooting). */
  get daemon(): MachineConfigDaemon | undefined {
    return this.#daemon;
  }

  #ctx(cluster: boolean): DaemonContext {
    return {
      nodeName: this.name,
      root: this.root,
      host: this.host,
      os: new RpmOstreeOs(this.os, { sleep: async () => {} }),
      logger: this.#o.logger,
      drainTimeouts: this.#o.drainTimeouts,
      signal: this.#abort.signal,
      onEvent: this.#o.onEvent,
      cluster: cluster ? clusterAccessFor(this.#o.plumbing, this.name, this.#o.source, this.#o.pool) : undefined,
    };
  }

  /** Provisions (first start only) and boots; after {@link stop} this powers the machine on again (a new daemon). */
  async start(): Promise<void> {
    this.#stopped = false;
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
    await fs.mkdir(this.root.dir, { recursive: true });
    if (!(await exists(this.root.resolve(`${VIRTUAL_STATE_DIR}/provisioned`)))) await this.#provision();
    await this.#boot();
  }

  async #provision(): Promise<void> {
    this.#provisioning = true;
    for (const [p, c] of Object.entries(BASE_FILES))
      if (!(await exists(this.root.resolve(p)))) await atomicWrite(this.root.resolve(p), c);
    if (!(await exists(this.root.resolve(`${VIRTUAL_STATE_DIR}/boot-id`))))
      await atomicWrite(this.root.resolve(`${VIRTUAL_STATE_DIR}/boot-id`), '1\n');
    const config = await this.#o.fetchConfig(this.#o.pool, this.#abort.signal);
    const files = await applyIgnition(this.root, this.host, config);
    this.#o.logger.info('ignition applied', { node: this.name, files });
    const fb = await runFirstboot(this.#ctx(false));
    if (this.#pendingReboot) await this.#virtualReboot();
    this.#pendingReboot = false;
    this.#provisioning = false;
    for (const p of this.#o.driftPaths ?? []) {
      const real = this.root.resolve(p);
      if (await exists(real)) await fs.appendFile(real, '# edited by hand\n');
    }
    await atomicWrite(this.root.resolve(`${VIRTUAL_STATE_DIR}/provisioned`), `${fb.config ?? ''}\n`);
  }

  /** Simulated reboot of the OS: staged deployment booted, /run emptied, new boot id. */
  async #virtualReboot(): Promise<void> {
    this.os.reboot();
    await fs.rm(this.root.resolve('/run'), { recursive: true, force: true });
    await fs.mkdir(this.root.resolve('/run'), { recursive: true });
    const id = Number(await this.host.bootId()) + 1;
    await atomicWrite(this.root.resolve(`${VIRTUAL_STATE_DIR}/boot-id`), `${id}\n`);
    this.reboots++;
  }

  /**
   * Runs a kubelet API call until it succeeds, as the kubelet keeps posting node status (100 ms doubling to 2 s);
   * gives up only when the machine is stopped.
   */
  async #kubelet(what: string, call: () => Promise<void>): Promise<void> {
    for (let delay = 100; ; delay = Math.min(2000, delay * 2)) {
      try {
        await call();
        return;
      } catch (e) {
        if (this.#stopped) throw e;
        this.#o.logger.warn('kubelet call failed, retrying', {
          node: this.name,
          call: what,
          error: (e as Error).message,
          retryInMs: delay,
        });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  async #setReady(ready: boolean): Promise<void> {
    await this.#kubelet(ready ? 'post Ready' : 'post NotReady', () => this.#postReady(ready));
  }

  async #postReady(ready: boolean): Promise<void> {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const cond: NodeCondition = ready
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'KubeletNotReady',
          message: 'node is rebooting',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        };
    await (this.#o.kubelet ?? this.#o.plumbing.client)
      .resource(Nodes)
      .patch(this.name, { status: { conditions: [cond] } }, { type: 'merge', status: true });
  }

  async #ensureNode(): Promise<void> {
    await this.#kubelet('register Node', () => this.#registerNode());
    await this.#setReady(true);
  }

  /**
   * Registers the Node unless it exists. A reboot finds its Node in the shared Node watch's cache (the daemons'): no
   * GET per boot then; a first boot, or a Node the cache does not hold (deleted meanwhile), is checked with a GET and
   * created when missing.
   */
  async #registerNode(): Promise<void> {
    if (this.#o.source.current() !== undefined) return;
    const nodes = (this.#o.kubelet ?? this.#o.plumbing.client).resource(Nodes);
    try {
      await nodes.get(this.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      const node: Node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: this.name,
          labels: { 'kubernetes.io/hostname': this.name, 'kubernetes.io/os': 'linux', ...this.#o.labels },
        },
        spec: {},
      };
      await nodes.create(node);
    }
  }

  async #boot(): Promise<void> {
    await this.#ensureNode();
    if (this.#stopped) return;
    this.#abort = new AbortController();
    this.#daemon = new MachineConfigDaemon(this.#ctx(true), this.#o.syncBackoff);
    this.#daemon.start();
    this.#startCertificateWriter();
  }

  /** upstream's daemon runs its certificate writer beside the update loop; one shared ControllerConfig watch here. */
  #startCertificateWriter(): void {
    const p = this.#o.plumbing;
    if (p.controllerConfigs === undefined) return;
    this.#certs = new CertificateSync({
      client: p.client,
      root: this.root,
      host: this.host,
      node: this.#o.source,
      writer: new NodeWriter(p.client, this.name, p.events, p.stats, this.#o.source),
      controllerConfigs: p.controllerConfigs,
      logger: this.#o.logger,
    });
    this.#certs.start();
  }

  async #stopCertificateWriter(): Promise<void> {
    const certs = this.#certs;
    this.#certs = undefined;
    await certs?.stop();
  }

  #onReboot(rationale: string): void {
    if (this.#provisioning) {
      this.#pendingReboot = true;
      return;
    }
    this.#o.logger.info('rebooting', { node: this.name, rationale });
    this.#rebooting = true;
    this.#rebootDone = new Promise((resolve) => setImmediate(() => void this.#reboot().finally(resolve)));
  }

  async #reboot(): Promise<void> {
    const daemon = this.#daemon;
    this.#daemon = undefined;
    await Promise.all([daemon?.stop(), this.#stopCertificateWriter()]);
    try {
      await this.#setReady(false);
      if (this.#o.rebootDurationMs > 0) await new Promise((r) => setTimeout(r, this.#o.rebootDurationMs));
      if (this.#stopped) return;
      await this.#virtualReboot();
      if (this.#o.failBoot === true) {
        emit(
          this.#ctx(false),
          'degraded',
          undefined,
          'machine did not come back from reboot (injected fault failBootOn)',
        );
        return;
      }
      await this.#boot();
    } catch (e) {
      this.#o.logger.error('virtual reboot failed', { node: this.name, error: (e as Error).message });
    } finally {
      this.#rebooting = false;
    }
  }

  /** Stops the daemon (the machine "powers off" without changing its state). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    const daemon = this.#daemon;
    this.#daemon = undefined;
    await Promise.all([daemon?.stop(), this.#stopCertificateWriter()]);
    await this.#rebootDone;
  }
}
