/**
 * The update phase of a rehearsal (see ./run.ts): the faults armed once A is installed, `upgrade --to B`, then the
 * watch until `decideUpdateVerdict` (./verdict.ts) says it is over, killing components on cue and giving admin acks.
 */
import { appendFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeClient } from '@keelson/kube';
import {
  SIMULATED_REBOOT_MS,
  type ComponentContext,
  type Running,
  type RunningNodes,
  type RunningOperators,
} from './components.js';
import { McoSyncFault } from './mco-sync-fault.js';
import { blockedOnAdminAck, giveAdminAcks } from './admin-ack.js';
import { type Observer } from './observer.js';
import type { TimelineEvent } from './timeline.js';
import {
  cond,
  decideUpdateVerdict,
  degradedPool,
  explainStall,
  nextRefusedSince,
  type DrainFailure,
  type RehearsalVerdict,
} from './verdict.js';
import { PDB_NAMESPACE, Session, sleep } from './session.js';
import { type Release } from './options.js';
import { followMcoDeployment, supervise } from './phase-supervise.js';

/** Sets the pools' maxUnavailable, pauses pools, creates the blocking PDB; the target's operator simulator with its faults. */
export async function arm(
  s: Session,
  b: Release,
  direct: KubeClient,
  operators: RunningOperators,
  ctx: ComponentContext,
): Promise<void> {
  const { opts } = s;
  for (const [pool, value] of Object.entries(opts.maxUnavailable ?? {})) {
    if (Object.hasOwn(opts.pools, pool)) continue; // a custom pool got it at creation
    await direct.request('PATCH', `/apis/machineconfiguration.openshift.io/v1/machineconfigpools/${pool}`, {
      body: { spec: { maxUnavailable: value } },
      contentType: 'application/merge-patch+json',
    });
    // the observer's pool event shows the new limit
  }
  for (const pool of opts.faults.pausePools) {
    await direct.request('PATCH', `/apis/machineconfiguration.openshift.io/v1/machineconfigpools/${pool}`, {
      body: { spec: { paused: true } },
      contentType: 'application/merge-patch+json',
    });
    s.emit({ t: s.t(), type: 'fault', fault: `pause-pool ${pool}`, detail: 'spec.paused=true' });
  }
  for (const d of opts.faults.onDiskDrift) await editByHand(s, ctx, d);
  if (opts.faults.pdbBlocksDrain)
    await armPdb(direct, s.emit, () => s.t(), s.machines?.nodes.find((n) => n.roles[0] === 'worker')?.name);
  for (const n of opts.faults.degradedOperators)
    s.emit({
      t: s.t(),
      type: 'fault',
      fault: `degraded-operator=${n}`,
      detail: `clusteroperator/${n} reports Degraded=True once the update reaches it`,
    });
  for (const n of opts.faults.neverUpdates)
    s.emit({
      t: s.t(),
      type: 'fault',
      fault: `operator-never-updates=${n}`,
      detail: `clusteroperator/${n} never reports ${b.version}`,
    });
  await operators.stop();
  const sim = s.known('cluster-operator simulator', ctx);
  s.started(
    'cluster-operator simulator (target)',
    await s.c.startOperatorSimulator(sim.ctx, {
      versions: {},
      degraded: opts.faults.degradedOperators,
      never: opts.faults.neverUpdates,
    }),
    sim.who,
  );
}

/**
 * `--fault on-disk-drift=NODE:PATH`: appends a line to the file in the node's root, as an admin editing it over ssh
 * would, once the node runs A (edits made at provisioning are rewritten by the first boot's update). The daemon's
 * preflight check before B finds it; a path that is not a file of the rendered config is not validated (as upstream).
 */
export async function editByHand(s: Session, ctx: ComponentContext, d: { node: string; path: string }): Promise<void> {
  const file = join(ctx.workDir, 'nodes', d.node, d.path);
  let detail: string;
  try {
    if (!(await stat(file)).isFile()) throw Object.assign(new Error(`${d.path} is not a file`), { code: 'ENOENT' });
    await appendFile(file, '# edited by hand\n');
    detail = `${d.path} on ${d.node} edited by hand after A was applied`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    detail = `${d.path} does not exist on ${d.node}: nothing to edit (the daemon only validates files of the rendered MachineConfig)`;
  }
  s.emit({ t: s.t(), type: 'fault', fault: `on-disk-drift=${d.node}:${d.path}`, detail });
}

/**
 * `--fault admin-ack-required[=never]`: once the CVO refuses B on the admin ack, says so; then (unless `=never`)
 * gives the ack as an admin would, through the same API, and says with which `oc patch`.
 */
export async function adminAckStep(s: Session, cv: unknown, direct: KubeClient): Promise<void> {
  const mode = s.opts.faults.adminAck;
  if (mode === undefined || s.adminAck.given || !blockedOnAdminAck(cv)) return;
  if (!s.adminAck.reported) {
    s.adminAck.reported = true;
    s.emit({
      t: s.t(),
      type: 'fault',
      fault: 'admin-ack-required',
      detail: `the CVO refuses the minor update until an admin acknowledges: ReleaseAccepted=False PreconditionChecks: ${cond(cv, 'ReleaseAccepted')?.message ?? ''}`,
    });
  }
  if (mode === 'never') return;
  const history = (cv as { status?: { history?: { state?: string; version?: string }[] } } | undefined)?.status
    ?.history;
  const { acked, command } = await giveAdminAcks(direct, history);
  if (acked.length === 0) return;
  s.adminAck.given = true;
  s.emit({
    t: s.t(),
    type: 'fault',
    fault: 'admin-ack',
    detail: `acknowledged ${acked.map((g) => g.gate).join(', ')} as an admin would: ${command}`,
  });
}

/** `upgrade --to B`, then watches until {@link decideUpdateVerdict} says it is over; kills components on cue. */
export async function update(
  s: Session,
  b: Release,
  obs: Observer,
  nodes: RunningNodes,
  startCvo: () => Promise<Running>,
  ctx: ComponentContext,
  installedConfigs: ReadonlyMap<string, string>,
  direct: KubeClient,
): Promise<RehearsalVerdict> {
  const { opts } = s;
  await requestUpdate(s, b, ctx);
  const startedAt = Date.now();
  const deadline = startedAt + opts.timeoutSeconds * 1000;
  let killedCvo = false;
  const killedDaemons = new Set<string>();
  let failingSince: number | undefined;
  let degradedSince: number | undefined;
  let refusedSince: number | undefined;
  const downSince = new Map<string, number>();
  let drainFailure: DrainFailure | undefined;
  let lastDeploymentCheck = 0;
  const mcoFault =
    opts.faults.mcoSyncFails === true
      ? new McoSyncFault(direct, (e) => {
          s.emit({ t: s.t(), type: 'fault', ...e });
        })
      : undefined;
  for (;;) {
    if (Date.now() - lastDeploymentCheck > 500) {
      lastDeploymentCheck = Date.now();
      await followMcoDeployment(s, direct, ctx);
      await supervise(s, ctx);
      drainFailure = await latestDrainFailure(direct);
      await mcoFault?.step(s.mco?.version, b.version, obs.clusterVersion());
    }
    const cv = obs.clusterVersion();
    const now = Date.now();
    failingSince = cond(cv, 'Failing')?.status === 'True' ? (failingSince ?? now) : undefined;
    degradedSince = degradedPool(obs.pools()) !== undefined ? (degradedSince ?? now) : undefined;
    refusedSince = nextRefusedSince(refusedSince, cv, now);
    await adminAckStep(s, cv, direct);
    const downNodes = trackDownNodes(downSince, obs, nodes, now);
    const killAt = s.killCvoAt ?? opts.faults.killCvoAt;
    const verdict = decideUpdateVerdict({
      clusterVersion: cv,
      pools: obs.pools(),
      target: b.version,
      installedConfigs,
      pausedPools: opts.faults.pausePools,
      now,
      failingSince,
      degradedSince,
      refusedSince,
      downNodes,
      rebootMs: SIMULATED_REBOOT_MS / opts.timeScale,
      drainFailure,
      startedAt,
      deadline,
    });
    if (verdict !== undefined) return finalVerdict(s, verdict, obs, killedCvo ? undefined : killAt);
    if (killAt !== undefined && !killedCvo) killedCvo = await killCvoOnCue(s, b, killAt, startCvo);
    await killDaemonsOnCue(s, obs, nodes, killedDaemons);
    await sleep(50);
  }
}

/** Longest wait for the daemons' first sync before the update request (a daemon that cannot finish it holds nothing). */
const DAEMONS_SETTLE_MS = 15_000;

/**
 * Waits, at most {@link DAEMONS_SETTLE_MS}, until every daemon has finished its first sync (settled.ts
 * unsettledDaemons): the pools count provisioned nodes as Done before their daemons have asked for the uncordon and
 * reported the node Updated, so the update would start, and its request count begin, amid the install's last
 * requests (~9 a node: the uncordon, its acknowledgement, events, MachineConfigNode reports). Runs before the faults
 * are armed: a fault armed earlier (e.g. an operator reporting Degraded) would make the update request itself refused.
 */
export async function daemonsSettled(obs: Observer): Promise<void> {
  const until = Date.now() + DAEMONS_SETTLE_MS;
  while (obs.unsettledDaemons().length > 0 && Date.now() < until) await sleep(50);
}

/** `upgrade --to B` through the components' requester; then `--fault api-errors=N%` is armed. */
async function requestUpdate(s: Session, b: Release, ctx: ComponentContext): Promise<void> {
  const { opts } = s;
  s.proxy?.markUpdate();
  s.emit({
    t: s.t(),
    type: 'phase',
    phase: 'upgrade',
    detail: `keelson upgrade --to ${b.version} (${b.pullSpec}, offered by the local update service)`,
  });
  await s.c.requestUpgrade(ctx, { toImage: b.pullSpec, version: b.version, force: opts.force === true });
  // armed once the request is in: the fault is about how the operators cope, not about `upgrade --to` itself
  if (opts.faults.apiErrorRate > 0) {
    s.proxy?.setErrorRate(opts.faults.apiErrorRate);
    s.emit({
      t: s.t(),
      type: 'fault',
      fault: 'api-errors',
      detail: `${opts.faults.apiErrorRate * 100}% of the components' API requests answered 500 InternalError`,
    });
  }
}

/** Since when each NotReady node has been down (updated in place), as the verdict's `downNodes`. */
function trackDownNodes(
  downSince: Map<string, number>,
  obs: Observer,
  nodes: RunningNodes,
  now: number,
): { name: string; since: number }[] {
  for (const n of obs.nodes()) {
    if (n.ready) downSince.delete(n.name);
    // a machine still in its reboot is not stuck: on a busy machine (5,000 virtual nodes on two cores) reboots
    // end late; the clock starts once the reboot is over and the Node is still NotReady
    else if (nodes.rebooting?.(n.name) === true) downSince.set(n.name, now);
    else if (!downSince.has(n.name)) downSince.set(n.name, now);
  }
  return [...downSince].map(([name, since]) => ({ name, since }));
}

/**
 * The verdict as reported: a stall explained (pools, PDB refusals, nodes); a `--kill cvo@N%` never reached
 * (`unreachedKillAt`) said, not hidden, so that the report does not read as if the CVO had been killed.
 */
function finalVerdict(
  s: Session,
  verdict: RehearsalVerdict,
  obs: Observer,
  unreachedKillAt: number | undefined,
): RehearsalVerdict {
  if (unreachedKillAt !== undefined)
    s.emit({
      t: s.t(),
      type: 'fault',
      fault: 'kill-point',
      detail: `cvo@${Math.round(unreachedKillAt * 100)}% was never reached (the update ended first): nothing was killed`,
    });
  return verdict.outcome === 'Stalled'
    ? {
        ...verdict,
        message: explainStall(verdict.message, obs.pools(), s.proxy?.counts().pdbRefusals ?? 0, obs.nodes()),
      }
    : verdict;
}

/** `--kill cvo@N%`: once B's progress reaches N, kills the CVO's process and starts a new one; whether it did. */
async function killCvoOnCue(
  s: Session,
  b: Release,
  killAt: number,
  startCvo: () => Promise<Running>,
): Promise<boolean> {
  const prog = s.events.findLast((e) => e.type === 'progress');
  if (prog?.type !== 'progress' || prog.version !== b.version || prog.done / prog.total < killAt) return false;
  const kill = s.cvo?.kill;
  if (kill === undefined) throw new Error('the wired CVO cannot be killed abruptly (run it as a child process)');
  await kill();
  s.emit({
    t: s.t(),
    type: 'component',
    component: 'cluster-version-operator',
    state: 'killed',
    detail: `at ${prog.done}/${prog.total}`,
  });
  s.cvo = await startCvo();
  s.led.delete('cluster-version-operator');
  s.emit({
    t: s.t(),
    type: 'component',
    component: 'cluster-version-operator',
    state: 'restarted',
    detail: "new process; waits for the dead holder's Lease to expire, then resumes the update",
  });
  return true;
}

/** `--kill daemon@NODE`: the node's daemon restarted once, when the node is updating. */
async function killDaemonsOnCue(
  s: Session,
  obs: Observer,
  nodes: RunningNodes,
  killedDaemons: Set<string>,
): Promise<void> {
  for (const n of s.opts.faults.killDaemons) {
    if (killedDaemons.has(n) || obs.nodes().find((x) => x.name === n)?.phase !== 'updating') continue;
    killedDaemons.add(n);
    await nodes.restartDaemon(n);
    s.emit({
      t: s.t(),
      type: 'component',
      component: `machine-config-daemon/${n}`,
      state: 'restarted',
      detail: 'killed mid-update',
    });
  }
}

/**
 * The newest `DrainThresholdExceeded` Event (the machine-config-controller's "Drain has been failing for more than 10
 * minutes"), read with the field selector a real API server supports for Events; undefined when there is none.
 */
export async function latestDrainFailure(client: KubeClient): Promise<DrainFailure | undefined> {
  type Ev = { involvedObject?: { name?: string }; message?: string; lastTimestamp?: string; eventTime?: string };
  let list: { items?: Ev[] };
  try {
    list = await client.request<{ items?: Ev[] }>('GET', '/api/v1/events', {
      query: { fieldSelector: 'reason=DrainThresholdExceeded' },
    });
  } catch {
    return undefined;
  }
  const newest = [...(list.items ?? [])]
    .sort((x, y) => (x.lastTimestamp ?? x.eventTime ?? '').localeCompare(y.lastTimestamp ?? y.eventTime ?? ''))
    .at(-1);
  return newest === undefined ? undefined : { node: newest.involvedObject?.name ?? '', message: newest.message ?? '' };
}

/** A workload on the workers whose PodDisruptionBudget allows no eviction. */
export async function armPdb(
  client: KubeClient,
  emit: (e: TimelineEvent) => void,
  t: () => number,
  worker: string | undefined,
): Promise<void> {
  const ns = PDB_NAMESPACE;
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  await client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'critical-app', namespace: ns },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'critical-app' } },
        template: {
          metadata: { labels: { app: 'critical-app' } },
          spec: {
            nodeSelector: { 'node-role.kubernetes.io/worker': '' },
            ...(worker !== undefined ? { nodeName: worker } : {}),
            containers: [{ name: 'app', image: 'registry.example/critical-app:1' }],
          },
        },
      },
    },
  });
  await client.request('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
    body: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'critical-app', namespace: ns },
      spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'critical-app' } } },
    },
  });
  emit({
    t: t(),
    type: 'fault',
    fault: 'pdb-blocks-drain',
    detail: `${ns}/critical-app: PodDisruptionBudget maxUnavailable 0 over 2 pods on ${worker ?? 'the workers'}`,
  });
}
