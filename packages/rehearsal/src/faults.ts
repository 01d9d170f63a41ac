/** The faults a rehearsal can inject (`--fault`, `--kill`, `--pause-pool`), parsed and validated (pure). */

/** Everything that should go wrong in one rehearsal. */
export interface FaultPlan {
  /** ClusterOperators reporting Degraded=True after the update starts. */
  degradedOperators: string[];
  /** ClusterOperators that never report the target version. */
  neverUpdates: string[];
  /** Nodes that do not come back from the update's reboot. */
  nodeFailsBoot: string[];
  /** A PodDisruptionBudget that allows no eviction protects a workload on the workers. */
  pdbBlocksDrain: boolean;
  /** Files changed on a node's disk behind the daemon's back. */
  onDiskDrift: { node: string; path: string }[];
  /** Fraction of API requests answered with an injected 500. */
  apiErrorRate: number;
  /** Kill the CVO (like SIGKILL) when the update is this far (0..1), then start it again. */
  killCvoAt?: number;
  /** Kill these nodes' daemons during the update, then start them again. */
  killDaemons: string[];
  /** Pools paused before the update. */
  pausePools: string[];
  /** A machine-config-operator sync task fails during the update until the CVO reports it (`mco-sync-fails`). */
  mcoSyncFails?: boolean;
  /**
   * A minor update that needs an admin ack: A ships an admin-ack gate for its minor, and the CVO refuses B until it
   * is acknowledged. `give`: the rehearsal, as the admin, acknowledges once the CVO reports the block; `never`: nobody
   * does, and the update stalls on the precondition.
   */
  adminAck?: 'give' | 'never';
}

/** A fault flag that cannot be understood (a usage error). */
export class FaultSpecError extends Error {
  readonly code = 'FAULT_SPEC';
  constructor(
    message: string,
    readonly flag: string,
  ) {
    super(`${flag}: ${message}`);
    this.name = 'FaultSpecError';
  }
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
export const FAULT_KINDS = [
  'degraded-operator=NAME',
  'operator-never-updates=NAME',
  'node-fails-boot=NODE',
  'pdb-blocks-drain',
  'on-disk-drift=NODE:/etc/file',
  'api-errors=RATE',
  'mco-sync-fails',
  'admin-ack-required[=never]',
] as const;

function name(v: string, flag: string, what: string): string {
  if (!NAME.test(v) || v.length > 253)
    throw new FaultSpecError(`${JSON.stringify(v)} is not a valid ${what} name`, flag);
  return v;
}

/** Parses the fault flags. */
export function parseFaults(
  faults: readonly string[],
  kills: readonly string[],
  pausePools: readonly string[],
): FaultPlan {
  const plan: FaultPlan = {
    degradedOperators: [],
    neverUpdates: [],
    nodeFailsBoot: [],
    pdbBlocksDrain: false,
    onDiskDrift: [],
    apiErrorRate: 0,
    killDaemons: [],
    pausePools: [],
  };
  for (const f of faults) {
    const flag = `--fault ${f}`;
    const eq = f.indexOf('=');
    const kind = eq < 0 ? f : f.slice(0, eq);
    const value = eq < 0 ? '' : f.slice(eq + 1);
    switch (kind) {
      case 'degraded-operator':
        plan.degradedOperators.push(name(value, flag, 'ClusterOperator'));
        break;
      case 'operator-never-updates':
        plan.neverUpdates.push(name(value, flag, 'ClusterOperator'));
        break;
      case 'node-fails-boot':
        plan.nodeFailsBoot.push(name(value, flag, 'node'));
        break;
      case 'pdb-blocks-drain':
        if (value !== '') throw new FaultSpecError('takes no value', flag);
        plan.pdbBlocksDrain = true;
        break;
      case 'on-disk-drift': {
        const colon = value.indexOf(':');
        const path = value.slice(colon + 1);
        if (colon < 0 || !path.startsWith('/') || path.includes('..') || path.includes('\0'))
          throw new FaultSpecError('expected NODE:/absolute/path', flag);
        plan.onDiskDrift.push({ node: name(value.slice(0, colon), flag, 'node'), path });
        break;
      }
      case 'mco-sync-fails':
        if (value !== '') throw new FaultSpecError('takes no value', flag);
        plan.mcoSyncFails = true;
        break;
      case 'api-errors': {
        const r = Number(value);
        if (value === '' || !Number.isFinite(r) || r < 0 || r >= 1)
          throw new FaultSpecError('RATE must be a number in [0, 1)', flag);
        plan.apiErrorRate = r;
        break;
      }
      case 'admin-ack-required':
        if (value !== '' && value !== 'never') throw new FaultSpecError('takes no value, or =never', flag);
        plan.adminAck = value === 'never' ? 'never' : 'give';
        break;
      default:
        throw new FaultSpecError(`unknown fault; one of ${FAULT_KINDS.join(', ')}`, flag);
    }
  }
  for (const k of kills) {
    const flag = `--kill ${k}`;
    const cvo = /^cvo@(\d{1,3})%$/.exec(k);
    const daemon = /^daemon@(.+)$/.exec(k);
    if (cvo !== null) {
      const p = Number(cvo[1]);
      if (p < 1 || p > 99) throw new FaultSpecError('the percentage must be 1..99', flag);
      plan.killCvoAt = p / 100;
    } else if (daemon !== null) plan.killDaemons.push(name(daemon[1] ?? '', flag, 'node'));
    else throw new FaultSpecError('expected cvo@N% or daemon@NODE', flag);
  }
  for (const p of pausePools) plan.pausePools.push(name(p, `--pause-pool ${p}`, 'pool'));
  return plan;
}

/** One line per fault, for the report. */
export function describeFaults(p: FaultPlan): string[] {
  return [
    ...p.degradedOperators.map((n) => `degraded-operator=${n}`),
    ...p.neverUpdates.map((n) => `operator-never-updates=${n}`),
    ...p.nodeFailsBoot.map((n) => `node-fails-boot=${n}`),
    ...(p.pdbBlocksDrain ? ['pdb-blocks-drain'] : []),
    ...p.onDiskDrift.map((d) => `on-disk-drift=${d.node}:${d.path}`),
    ...(p.apiErrorRate > 0 ? [`api-errors=${p.apiErrorRate}`] : []),
    ...(p.mcoSyncFails === true ? ['mco-sync-fails'] : []),
    ...(p.killCvoAt !== undefined ? [`kill cvo@${Math.round(p.killCvoAt * 100)}%`] : []),
    ...p.killDaemons.map((n) => `kill daemon@${n}`),
    ...p.pausePools.map((n) => `pause-pool ${n}`),
    ...(p.adminAck !== undefined ? [`admin-ack-required${p.adminAck === 'never' ? '=never' : ''}`] : []),
  ];
}
