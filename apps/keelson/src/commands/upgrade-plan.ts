/** `keelson upgrade plan --from A --to B`: a dry run of an update, no cluster needed. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { MachineConfig } from '@keelson/ignition';
import { openPayload, PayloadError, verificationConfigFromManifests, verifyRelease, type ReleasePayload } from '@keelson/release-payload';
import { parseAllDocuments } from 'yaml';
import { CliError } from '../errors.js';
import { computeUpgradePlan, DEFAULT_POOL_NODES, type UpgradePlan } from '../plan/compute-plan.js';
import { formatPlan } from '../plan/format.js';
import { DEFAULT_NODE_TIMES, type PoolInput } from '../plan/pools.js';
import type { GraphVerdict } from '../plan/preconditions.js';
import { evaluateUpdates } from '../rehearse/update-service.js';

interface PlanOptions {
  from: string;
  to: string;
  machineconfigs?: string;
  pools?: string;
  output: string;
  upstream?: string;
  channel?: string;
  prometheus?: string;
  drainSeconds: string;
  applySeconds: string;
  rebootSeconds: string;
}

const MAX_FILE = 16 << 20;

async function readYamlDocs(path: string): Promise<unknown[]> {
  const text = await readFile(path, 'utf8').catch((e: unknown) => {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`, 1);
  });
  if (text.length > MAX_FILE) throw new CliError(`${path} is larger than 16 MiB`, 1);
  const docs = parseAllDocuments(text);
  const out: unknown[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    if (d.errors.length > 0) throw new CliError(`${path}: invalid YAML: ${d.errors[0]?.message ?? ''}`, 1);
    const v: unknown = d.toJS();
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/** MachineConfigs from every .yaml/.yml/.json file of DIR (Lists unpacked). */
async function readMachineConfigs(dir: string): Promise<MachineConfig[]> {
  const names = (await readdir(dir).catch((e: unknown) => {
    throw new CliError(`--machineconfigs ${dir}: ${(e as Error).message}`, 1);
  })).filter((n) => /\.(ya?ml|json)$/.test(n)).sort();
  const out: MachineConfig[] = [];
  for (const n of names) {
    for (const doc of await readYamlDocs(join(dir, n))) {
      const items = (doc as { kind?: unknown; items?: unknown[] }).kind === 'List' ? ((doc as { items?: unknown[] }).items ?? []) : [doc];
      for (const it of items) {
        const o = it as { kind?: unknown; metadata?: { name?: unknown } };
        if (o.kind !== 'MachineConfig') continue;
        if (typeof o.metadata?.name !== 'string') throw new CliError(`${join(dir, n)}: a MachineConfig without metadata.name`, 1);
        out.push(it as MachineConfig);
      }
    }
  }
  return out;
}

/** Pools file: `pools: [{name, nodes, maxUnavailable?, paused?, machineConfigSelector?}]` (or the list itself). */
async function readPools(path: string): Promise<PoolInput[]> {
  const [doc] = await readYamlDocs(path);
  const list = Array.isArray(doc) ? doc : (doc as { pools?: unknown } | undefined)?.pools;
  if (!Array.isArray(list)) throw new CliError(`${path}: expected "pools:" with a list of {name, nodes, maxUnavailable}`, 1);
  return list.map((p: unknown, i) => {
    const o = (p ?? {}) as Record<string, unknown>;
    const at = `${path}: pools[${i}]`;
    if (typeof o['name'] !== 'string' || o['name'] === '') throw new CliError(`${at}.name must be a non-empty string`, 1);
    const nodes = o['nodes'] ?? DEFAULT_POOL_NODES;
    if (typeof nodes !== 'number' || !Number.isInteger(nodes) || nodes < 0 || nodes > 100_000) throw new CliError(`${at}.nodes must be an integer 0..100000`, 1);
    const mu = o['maxUnavailable'];
    if (mu !== undefined && typeof mu !== 'number' && !(typeof mu === 'string' && /^\d+%?$/.test(mu))) throw new CliError(`${at}.maxUnavailable must be a count or a percentage like "20%"`, 1);
    return {
      name: o['name'],
      nodes,
      ...(mu !== undefined ? { maxUnavailable: mu } : {}),
      ...(o['paused'] === true ? { paused: true } : {}),
      ...(o['machineConfigSelector'] !== undefined ? { machineConfigSelector: o['machineConfigSelector'] as PoolInput['machineConfigSelector'] & object } : {}),
    };
  });
}

async function open(source: string, what: string): Promise<ReleasePayload> {
  try {
    return await openPayload(source);
  } catch (e) {
    if (e instanceof PayloadError) throw new CliError(`${what} ${source}: ${e.message}`, 1);
    throw e;
  }
}

async function signatureOf(from: ReleasePayload, to: ReleasePayload): Promise<UpgradePlan['signature']> {
  const digest = to.image?.digest;
  if (digest === undefined) return undefined;
  const cfg = verificationConfigFromManifests(from.manifests);
  if (cfg === null) return { verified: false, detail: `${from.metadata.version} declares no verification ConfigMap; the CVO would need force` };
  const r = await verifyRelease({ digest, keyrings: cfg.keyrings, stores: cfg.stores });
  const s = r.signatures[0];
  return r.verified && s !== undefined
    ? { verified: true, detail: `signed by key ${s.fingerprint} (${cfg.configMap}), signature from ${s.store}` }
    : { verified: false, detail: r.failures.map((f) => f.reason).join('; ') || 'no valid signature' };
}

function seconds(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`${flag} must be a number of seconds >= 0, got ${JSON.stringify(v)}`, 2);
  return n;
}

/** Registers `plan` under `keelson upgrade`. */
export function registerUpgradePlanCommand(upgrade: Command): void {
  upgrade
    .command('plan')
    .description('Dry-run an update without a cluster: manifests, run levels, preconditions, risks, per-pool node rollout')
    .requiredOption('--from <source>', 'current release: directory, OCI layout, archive or docker://image')
    .requiredOption('--to <source>', 'target release (same forms)')
    .option('--machineconfigs <dir>', 'your MachineConfigs (YAML/JSON), rendered into the pools with each release')
    .option('--pools <file>', 'pools and sizes: {pools: [{name, nodes, maxUnavailable, paused, machineConfigSelector}]}')
    .option('--upstream <url>', 'update service graph URL, for recommended updates and risks')
    .option('--channel <name>', 'channel for --upstream')
    .option('--prometheus <url>', 'evaluate PromQL risks against this Prometheus/Thanos URL')
    .option('--drain-seconds <n>', 'per-node drain time for the estimate', String(DEFAULT_NODE_TIMES.drain))
    .option('--apply-seconds <n>', 'per-node time to write the config', String(DEFAULT_NODE_TIMES.apply))
    .option('--reboot-seconds <n>', 'per-node reboot time', String(DEFAULT_NODE_TIMES.reboot))
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (o: PlanOptions) => {
      if (o.output !== 'text' && o.output !== 'json') throw new CliError(`-o must be text or json, got ${o.output}`, 2);
      if ((o.upstream === undefined) !== (o.channel === undefined)) throw new CliError('--upstream and --channel go together', 2);
      const times = { drain: seconds(o.drainSeconds, '--drain-seconds'), apply: seconds(o.applySeconds, '--apply-seconds'), reboot: seconds(o.rebootSeconds, '--reboot-seconds') };
      const [from, to] = await Promise.all([open(o.from, '--from'), open(o.to, '--to')]);
      let graph: GraphVerdict | undefined;
      if (o.upstream !== undefined && o.channel !== undefined) {
        try {
          const u = await evaluateUpdates(o.upstream, o.channel, from.metadata.version, o.prometheus);
          graph = { channel: o.channel, recommended: u.recommended, conditional: u.conditional.map((c) => ({ version: c.version, ...(c.recommended !== undefined ? { recommended: c.recommended } : {}) })) };
        } catch (e) {
          throw new CliError(`update service ${o.upstream}: ${(e as Error).message}`, 1);
        }
      }
      const signature = await signatureOf(from, to);
      const plan = computeUpgradePlan({
        from,
        to,
        times,
        ...(o.machineconfigs !== undefined ? { userMachineConfigs: await readMachineConfigs(o.machineconfigs) } : {}),
        ...(o.pools !== undefined ? { pools: await readPools(o.pools) } : {}),
        ...(graph !== undefined ? { graph } : {}),
        ...(signature !== undefined ? { signature } : {}),
      });
      process.stdout.write(o.output === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
    });
}
