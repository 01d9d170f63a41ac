/**
 * What the CLI contributes to `@keelson/rehearsal`: the update requested through `keelson upgrade --to`'s own code
 * path (src/upgrade/cluster.ts `requestUpgrade`, oc's texts and refusals), and the pools that are not done explained as
 * `keelson mcp why POOL` does.
 */
import type { KubeClient } from '@keelson/kube';
import type { Diagnosis } from '@keelson/rehearsal';
import { snapshot } from '../commands/mcp.js';
import { explainPool, type ClusterSnapshot } from '../commands/mcp-why.js';
import { clientFromKubeconfig, requestUpgrade } from '../upgrade/cluster.js';
import { UpgradeRequestError } from '../upgrade/request.js';

/** Findings of `mcp why` that explain nothing by themselves. */
const QUIET = new Set(['UP_TO_DATE', 'NODE_UP_TO_DATE', 'NODE_WAITING']);

/** The pools that are not done, explained as `keelson mcp why POOL` does (pure). */
export function diagnosePools(snap: ClusterSnapshot): Diagnosis[] {
  const out: Diagnosis[] = [];
  for (const p of snap.pools) {
    const e = explainPool(snap, p.metadata.name ?? '');
    if (e === undefined || e.findings.some((f) => f.code === 'UP_TO_DATE')) continue;
    const findings = e.findings
      .filter((f) => !QUIET.has(f.code))
      .map((f) => ({ message: f.message, ...(f.action !== undefined ? { action: f.action } : {}) }));
    out.push({ subject: `machineconfigpool/${e.name}`, summary: e.summary, findings });
  }
  return out;
}

/** Reads the pools, nodes, pods and PDBs `keelson mcp why` reads, then {@link diagnosePools}. */
export async function diagnoseClusterPools(client: KubeClient): Promise<Diagnosis[]> {
  return diagnosePools(await snapshot(client));
}

/**
 * `keelson upgrade --to VERSION` against the rehearsal cluster. The CVO publishes B in `status.availableUpdates` once it
 * has polled the local update service; until then oc's "not one of the possible targets" refusal is retried (for at most
 * 60 s), and any other refusal is final.
 */
export async function requestUpgradeLikeTheCli(
  kubeconfigPath: string,
  o: { toImage: string; version: string; force?: boolean },
): Promise<void> {
  const client = await clientFromKubeconfig(kubeconfigPath);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await requestUpgrade(client, { to: o.version, ...(o.force === true ? { force: true } : {}) });
        return;
      } catch (e) {
        const notYetOffered =
          e instanceof UpgradeRequestError &&
          !e.usage &&
          /not one of the possible targets|no recommended updates|cannot refresh available updates/i.test(e.message);
        if (!notYetOffered || attempt >= 120) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await client.close();
  }
}
