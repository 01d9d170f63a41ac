/** `keelson mcp` (the `oc get mcp` counterpart) and `keelson mcp why POOL|NODE`. */
import type { Command } from 'commander';
import { KubeClient, MachineConfigNodes, MachineConfigPools } from '@keelson/kube';
import type { MachineConfigPool, Pod } from '@keelson/api';
import { NodeAnnotations } from '@keelson/machineconfig';
import { Nodes, Pods, PodDisruptionBudgets } from '@keelson/machine-config-operator';
import { CliError } from '../errors.js';
import { addOutputOption, outputFormat, renderStructured, writeOut, type OutputFlags } from '../output.js';
import { describeObject, type EventLike } from './mcp-describe.js';
import { explainNode, explainPool, formatExplanation, type ClusterSnapshot } from './mcp-why.js';

const Pools = MachineConfigPools;

function client(kubeconfig: string | undefined): KubeClient {
  try {
    return KubeClient.fromKubeconfigFile(kubeconfig);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
}

/** kubectl's HumanDuration. */
export function humanAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(s / 3600);
  const d = Math.floor(h / 24);
  if (s < 120) return `${String(s)}s`;
  if (m < 10) return s % 60 === 0 ? `${String(m)}m` : `${String(m)}m${String(s % 60)}s`;
  if (h < 3) return `${String(m)}m`;
  if (h < 8) return m % 60 === 0 ? `${String(h)}h` : `${String(h)}h${String(m % 60)}m`;
  if (h < 48) return `${String(h)}h`;
  if (d < 8) return h % 24 === 0 ? `${String(d)}d` : `${String(d)}d${String(h % 24)}h`;
  if (d < 365 * 2) return `${String(d)}d`;
  return `${String(Math.floor(d / 365))}y`;
}

const HEADERS = [
  'NAME',
  'CONFIG',
  'UPDATED',
  'UPDATING',
  'DEGRADED',
  'MACHINECOUNT',
  'READYMACHINECOUNT',
  'UPDATEDMACHINECOUNT',
  'DEGRADEDMACHINECOUNT',
  'AGE',
];

/** The `oc get mcp` rows of pools. */
export function poolRows(pools: readonly MachineConfigPool[], now: number): string[][] {
  const cond = (p: MachineConfigPool, t: string): string =>
    p.status?.conditions?.find((c) => c.type === t)?.status ?? '';
  const num = (n: number | undefined): string => (n === undefined ? '' : String(n));
  return [...pools]
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))
    .map((p) => [
      p.metadata.name ?? '',
      p.status?.configuration?.name ?? '',
      cond(p, 'Updated'),
      cond(p, 'Updating'),
      cond(p, 'Degraded'),
      num(p.status?.machineCount),
      num(p.status?.readyMachineCount),
      num(p.status?.updatedMachineCount),
      num(p.status?.degradedMachineCount),
      p.metadata.creationTimestamp ? humanAge(now - Date.parse(p.metadata.creationTimestamp)) : '<unknown>',
    ]);
}

/** Aligns rows under headers with three spaces, as kubectl does. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3)))
      .join('')
      .trimEnd();
  return `${[headers, ...rows].map(line).join('\n')}\n`;
}

/** What `mcp why` reads from the cluster (also used by the rehearsal's diagnosis of a failed run). */
export async function snapshot(c: KubeClient): Promise<ClusterSnapshot> {
  const [pools, nodes, pdbs, mcns] = await Promise.all([
    c.resource(Pools).listAll(),
    c.resource(Nodes).listAll(),
    c
      .resource(PodDisruptionBudgets)
      .listAll()
      .catch(() => ({ items: [] })),
    // MachineConfigNodes add what each node reports; a cluster without them (or no right to list them) explains anyway
    c
      .resource(MachineConfigNodes)
      .listAll()
      .catch(() => ({ items: [] })),
  ]);
  const podsByNode = new Map<string, Pod[]>();
  const draining = nodes.items.filter((n) => {
    const dd = n.metadata.annotations?.[NodeAnnotations.desiredDrain] ?? '';
    return dd.startsWith('drain-') && dd !== (n.metadata.annotations?.[NodeAnnotations.lastAppliedDrain] ?? '');
  });
  for (const n of draining) {
    const name = n.metadata.name ?? '';
    podsByNode.set(name, (await c.resource(Pods).list({ fieldSelector: `spec.nodeName=${name}` })).items);
  }
  return { pools: pools.items, nodes: nodes.items, pdbs: pdbs.items, podsByNode, mcns: mcns.items };
}

/** Registers `keelson mcp`, `keelson mcp describe` and `keelson mcp why`. */
export function registerMcpCommands(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('MachineConfigPools: the `oc get mcp` table, and `why` a pool or node is not done')
    .option('--kubeconfig <file>', 'kubeconfig (default: KUBECONFIG or ~/.kube/config)');
  addOutputOption(mcp, { formats: ['table', 'json', 'yaml'], aliases: ['json'] }).action(
    async (o: OutputFlags & { kubeconfig?: string }) => {
      const format = outputFormat(o, mcp);
      const c = client(o.kubeconfig);
      try {
        const list = await c.resource(Pools).listAll();
        if (format === 'json' || format === 'yaml')
          await writeOut(await renderStructured({ apiVersion: 'v1', kind: 'List', items: list.items }, format));
        else await writeOut(table(HEADERS, poolRows(list.items, Date.now())));
      } finally {
        await c.close();
      }
    },
  );
  const describe = mcp
    .command('describe')
    .description(
      'A MachineConfigPool as `oc describe mcp POOL` prints it: labels, spec, status, conditions, its Events',
    )
    .argument('<pool>', 'a MachineConfigPool name')
    .option('--kubeconfig <file>', 'kubeconfig (default: KUBECONFIG or ~/.kube/config)');
  describe.action(async (name: string, o: { kubeconfig?: string }) => {
    const c = client(o.kubeconfig ?? mcp.opts<{ kubeconfig?: string }>().kubeconfig);
    try {
      const list = await c.resource(Pools).listAll();
      const pool = list.items.find((p) => p.metadata.name === name);
      if (pool === undefined)
        throw new CliError(
          `machineconfigpools.machineconfiguration.openshift.io "${name}" not found (pools: ${list.items.map((p) => p.metadata.name ?? '').join(', ') || 'none'})`,
        );
      const events = await c
        .request<{ items?: EventLike[] }>('GET', '/api/v1/events', {
          query: { fieldSelector: `involvedObject.kind=MachineConfigPool,involvedObject.name=${name}` },
        })
        .catch(() => ({ items: [] as EventLike[] }));
      await writeOut(describeObject(pool as unknown as Record<string, unknown>, events.items ?? [], Date.now()));
    } finally {
      await c.close();
    }
  });
  const why = mcp
    .command('why')
    .description('Explain in plain words what a pool or a node waits on, and what to do')
    .argument('<name>', 'a MachineConfigPool or a node name')
    .option('--kubeconfig <file>', 'kubeconfig (default: KUBECONFIG or ~/.kube/config)');
  addOutputOption(why, { formats: ['text', 'json', 'yaml'], aliases: ['json'] }).action(
    async (name: string, o: OutputFlags & { kubeconfig?: string }) => {
      const format = outputFormat(o, why);
      const kubeconfig = o.kubeconfig ?? mcp.opts<{ kubeconfig?: string }>().kubeconfig;
      const c = client(kubeconfig);
      try {
        const snap = await snapshot(c);
        const e = explainPool(snap, name) ?? explainNode(snap, name);
        if (!e)
          throw new CliError(
            `no MachineConfigPool or node named ${name} (pools: ${snap.pools.map((p) => p.metadata.name ?? '').join(', ') || 'none'})`,
          );
        await writeOut(
          format === 'json' || format === 'yaml' ? await renderStructured(e, format) : formatExplanation(e),
        );
      } finally {
        await c.close();
      }
    },
  );
}
