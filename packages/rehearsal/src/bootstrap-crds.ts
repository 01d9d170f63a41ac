/**
 * The payload's CRDs installed as the installer's bootstrap does before the CVO starts: created (kept when they
 * exist), then waited for until the API server serves them (condition `Established=True`). On kube-apiserver a CRD is
 * not served at once (its names are checked, then its storage starts), so creating a custom resource right after the
 * CRD would be refused with 404; the embedded server establishes them at once.
 */
import { isAlreadyExists, type KubeClient } from '@keelson/kube';

/** How long {@link installCrds} waits for the CRDs to be Established by default. */
export const CRD_ESTABLISH_TIMEOUT_MS = 60_000;

interface CrdLike {
  metadata?: { name?: string };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const established = (c: CrdLike): boolean =>
  (c.status?.conditions ?? []).some((x) => x.type === 'Established' && x.status === 'True');

/** Why a CRD is not served: its NamesAccepted or Established condition, whichever is not True. */
function whyNot(c: CrdLike): string {
  const conds = c.status?.conditions ?? [];
  const bad =
    conds.find((x) => x.type === 'NamesAccepted' && x.status !== 'True') ?? conds.find((x) => x.type === 'Established');
  return bad === undefined
    ? 'no status yet'
    : `${bad.type}=${bad.status}${bad.reason !== undefined ? ` ${bad.reason}` : ''}${bad.message ? `: ${bad.message}` : ''}`;
}

/** Creates the CRDs (existing ones kept) and waits until every one is Established; throws naming those that are not. */
export async function installCrds(
  client: KubeClient,
  crds: readonly object[],
  timeoutMs = CRD_ESTABLISH_TIMEOUT_MS,
): Promise<void> {
  const names: string[] = [];
  for (const crd of crds) {
    const name = (crd as { metadata?: { name?: unknown } }).metadata?.name;
    names.push(typeof name === 'string' ? name : '');
    try {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  const deadline = Date.now() + timeoutMs;
  let pending = names;
  for (;;) {
    const read = await Promise.all(
      pending.map((n) =>
        client.request<CrdLike>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${n}`),
      ),
    );
    const left = read.filter((c) => !established(c));
    if (left.length === 0) return;
    if (Date.now() >= deadline)
      throw new Error(
        `the API server did not establish ${left.length} CRD(s) within ${Math.round(timeoutMs / 1000)}s: ${left.map((c) => `${c.metadata?.name ?? ''} (${whyNot(c)})`).join('; ')}`,
      );
    pending = left.map((c) => c.metadata?.name ?? '');
    await new Promise((r) => setTimeout(r, 200));
  }
}
