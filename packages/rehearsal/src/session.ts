/**
 * The running state of one rehearsal (see ./run.ts): what was started (stopped in reverse), the clock, the event sink,
 * the identity each component runs as, and what the phases (./phase-setup.ts, ./phase-install.ts,
 * ./phase-supervise.ts, ./phase-update.ts) share: the CVO, the MCO, the machines, the API server.
 */
import { KubeClient } from '@keelson/kube';
import { OPERATOR_SIMULATOR_IDENTITY } from '@keelson/kube-sandbox';
import { type ApiProxy } from './api-proxy.js';
import { type TargetCluster } from './target.js';
import { type ComponentContext, type RehearsalComponents, type Running } from './components.js';
import {
  COMPONENT_WORKLOADS,
  shippedBindings,
  waitForClusterWorkload,
  waitForServiceAccount,
  workloadServiceAccount,
  writeServiceAccountKubeconfig,
  type ReleaseComponent,
  type ServiceAccountRef,
} from './identities.js';
import type { TimelineEvent } from './timeline.js';
import { type Release, type RehearseOptions } from './options.js';
import { Stack } from './stack.js';

/** The installer's bootstrap machine-config-server the machines first boot from (see ./phase-install.ts). */
export const BOOTSTRAP_MCS = 'machine-config-server (bootstrap)';

/** The component with a stop() that runs once however often it is called (stopped early, then at the end). */
export function stopOnce<T extends Running>(r: T): T {
  let stopping: Promise<void> | undefined;
  return { ...r, stop: () => (stopping ??= r.stop()) };
}

/** The machine-config-operator's operands: its operator deploys their workloads, the release ships none of them. */
const MCO_OPERANDS: ReadonlySet<string> = new Set([
  'machine-config-controller',
  'machine-config-daemon',
  'machine-config-server',
]);

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** One rehearsal's running state: what was started (stopped in reverse), the clock and the event sink. */
export class Session {
  readonly stack = new Stack();
  proxy: ApiProxy | undefined;
  constructor(
    readonly c: RehearsalComponents,
    readonly opts: RehearseOptions,
    readonly t0: number,
    readonly emit: (e: TimelineEvent) => void,
    readonly events: readonly TimelineEvent[],
  ) {}

  t(): number {
    return Date.now() - this.t0;
  }

  /** Set once the rehearsal is over: components that finish starting afterwards are stopped at once. */
  closed = false;

  started<R extends Running>(component: string, r: R, detail?: string): R {
    if (this.closed) {
      void r.stop().catch(() => undefined);
      return r;
    }
    this.emit({
      t: this.t(),
      type: 'component',
      component,
      state: 'started',
      ...(detail !== undefined ? { detail } : {}),
    });
    this.stack.push(component, () => r.stop());
    return r;
  }

  /** The cluster's kubeconfig (through the counting proxy), once the API server runs. */
  kubeconfigPath: string | undefined;
  /** `--kill cvo@N%` as checked by `checkFaultTargets` (./phase-setup.ts). */
  killCvoAt: number | undefined;
  /** The admin's client of the API server (not through the proxy), once it runs. */
  direct: KubeClient | undefined;
  /** `--kubeconfig`: the existing API server, checked by `connectTarget` (./phase-setup.ts). */
  target: TargetCluster | undefined;
  /** The CVO's current pod. */
  cvo: Running | undefined;
  /** Starts a new CVO (a new pod of its Deployment). */
  startCvo: (() => Promise<Running>) | undefined;
  /** The machines and the machine-config-server they boot from. */
  machines: { nodes: { name: string; roles: string[] }[]; serverUrl?: string } | undefined;
  /** The MCO operator and controller of the release its Deployment runs. */
  mco: { version: string; operator: Running; controller: Running } | undefined;
  /** Components that have held their Lease since they were (re)started (see ./supervise.ts `decideRestarts`). */
  led = new Set<Supervised>();
  /** Whether the CVO's admin-ack block was reported, and the ack given (`--fault admin-ack-required`). */
  adminAck = { reported: false, given: false };

  /** The context of each component, with the kubeconfig of its ServiceAccount (see {@link Session.as}). */
  private readonly identities = new Map<string, { ctx: ComponentContext; who: string }>();

  /** The context a component was started with last (the admin one before it ever started). */
  ctxOf(component: string, ctx: ComponentContext): ComponentContext {
    return this.known(component, ctx).ctx;
  }

  /** The context and identity a component was started with last (the admin's before it ever started). */
  known(component: string, ctx: ComponentContext): { ctx: ComponentContext; who: string | undefined } {
    return this.identities.get(component) ?? { ctx, who: undefined };
  }

  /**
   * The component's context: a kubeconfig of the ServiceAccount its workload in `release` runs as, once the CVO has
   * created and bound it (the admin's when the release ships no workload for it, which the timeline says).
   */
  async as(
    ctx: ComponentContext,
    component: ReleaseComponent | 'cluster-operator simulator' | typeof BOOTSTRAP_MCS,
    release: Release,
    deadline: number,
  ): Promise<{ ctx: ComponentContext; who: string }> {
    const cached = this.identities.get(component);
    if (cached !== undefined) return cached;
    const direct = this.direct;
    let sa: ServiceAccountRef | undefined;
    if (component === 'cluster-operator simulator')
      sa = { namespace: OPERATOR_SIMULATOR_IDENTITY.namespace, name: OPERATOR_SIMULATOR_IDENTITY.serviceAccount };
    else if (component === BOOTSTRAP_MCS)
      // the installer's bootstrap server has no workload; it runs here as the in-cluster server's ServiceAccount
      // (RBAC from the release), so it is refused what that server would be
      sa = { namespace: COMPONENT_WORKLOADS['machine-config-server'].namespace, name: 'machine-config-server' };
    else {
      sa = workloadServiceAccount(release.payload, COMPONENT_WORKLOADS[component]);
      // the MCO's operands: its operator deploys them (the release carries none); their pods start once it has
      if (sa === undefined && direct !== undefined && MCO_OPERANDS.has(component))
        sa = await waitForClusterWorkload(direct, COMPONENT_WORKLOADS[component], deadline, () => this.closed);
    }
    let out: { ctx: ComponentContext; who: string };
    if (sa === undefined || direct === undefined)
      out = { ctx, who: `as the admin: release ${release.version} ships no workload manifest for it` };
    else {
      await waitForServiceAccount(direct, sa, deadline, shippedBindings(release.payload, sa), () => this.closed);
      const path = await writeServiceAccountKubeconfig(
        direct,
        this.proxy?.url ?? '',
        sa,
        ctx.workDir,
        `kubeconfig-${component.replace(/\W+/g, '-')}`,
      );
      out = { ctx: { ...ctx, kubeconfigPath: path }, who: `as system:serviceaccount:${sa.namespace}:${sa.name}` };
    }
    this.identities.set(component, out);
    return out;
  }
}

/** Where `--fault pdb-blocks-drain` puts its workload. */
export const PDB_NAMESPACE = 'rehearsal-workload';

/** The components `supervise` (./phase-supervise.ts) restarts when they lose their Lease. */
export type Supervised = 'cluster-version-operator' | 'machine-config-operator' | 'machine-config-controller';

/** The install did not finish: reported as Stalled. */
export class InstallStalled extends Error {}
