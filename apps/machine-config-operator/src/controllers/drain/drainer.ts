/**
 * Cordon, uncordon and drain through the API, as kubectl's drain helper does it for the MCO: evictions via the
 * Eviction subresource, retried every `evictionRetryMs` while a PodDisruptionBudget refuses (HTTP 429), then
 * waiting for the pods to be gone, all within one attempt timeout.
 */
import { isNotFound, KubeApiError, type KubeClient, type Logger } from '@keelson/kube';
import type { Node, Pod } from '../../common/api-types.js';
import { Nodes, Pods } from '../../common/resources.js';
import { goDuration, podsToEvict } from '@keelson/machineconfig';

/** A failed drain attempt. */
export class DrainError extends Error {
  readonly code = 'DRAIN_FAILED';
  constructor(
    message: string,
    /** Pods whose eviction a PodDisruptionBudget refused. */
    readonly blockedPods: string[] = [],
  ) {
    super(message);
    this.name = 'DrainError';
  }
}

/** Timing of one drain attempt. */
export interface DrainTiming {
  evictionRetryMs: number;
  attemptTimeoutMs: number;
  podDeletePollMs: number;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Sets spec.unschedulable until the node shows the value (exponential backoff, `steps` tries). Upstream
 * `cordonOrUncordonNode` GETs the node after the patch to check it; the patch's response is the node as stored after
 * the patch, so it is checked instead (one request per try, not two).
 */
export async function cordonOrUncordon(
  client: KubeClient,
  name: string,
  desired: boolean,
  backoff: { initialMs: number; steps: number },
  log: Logger,
): Promise<void> {
  const verb = desired ? 'cordon' : 'uncordon';
  const nodes = client.resource(Nodes);
  let lastErr = '';
  let delay = backoff.initialMs;
  for (let i = 0; i < backoff.steps; i++) {
    try {
      const n: Node = await nodes.patch(name, { spec: { unschedulable: desired ? true : null } }, { type: 'merge' });
      if ((n.spec?.unschedulable === true) === desired) {
        log.info(`${verb} succeeded (currently schedulable: ${String(!desired)})`, { node: name });
        return;
      }
      lastErr = `node is still not in ${verb} state`;
    } catch (e) {
      lastErr = (e as Error).message;
    }
    if (i < backoff.steps - 1) await new Promise((r) => setTimeout(r, delay));
    delay *= 2;
  }
  throw new DrainError(`node ${name}: failed to ${verb} (${backoff.steps} tries): ${lastErr}`);
}

async function evictOne(
  client: KubeClient,
  pod: Pod,
  t: DrainTiming,
  signal: AbortSignal,
  blocked: Set<string>,
  log: Logger,
): Promise<void> {
  const ns = pod.metadata.namespace ?? '';
  const name = pod.metadata.name ?? '';
  const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}/eviction`;
  for (;;) {
    if (signal.aborted)
      throw new DrainError(
        `error when evicting pods/"${name}" -n "${ns}": global timeout reached: ${goDuration(t.attemptTimeoutMs)}`,
      );
    try {
      await client.request('POST', path, {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } },
        signal,
      });
      blocked.delete(`${ns}/${name}`);
      log.info(`Evicted pod ${ns}/${name}`);
      return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (e instanceof KubeApiError && e.status === 429) {
        blocked.add(`${ns}/${name}`);
        log.info(
          `error when evicting pods/"${name}" -n "${ns}" (will retry after ${goDuration(t.evictionRetryMs)}): ${e.body?.message ?? e.message}`,
        );
        await sleep(t.evictionRetryMs, signal);
        continue;
      }
      if (signal.aborted) continue;
      throw e;
    }
  }
}

async function waitGone(client: KubeClient, pod: Pod, t: DrainTiming, signal: AbortSignal): Promise<void> {
  const pods = client.resource(Pods);
  for (;;) {
    try {
      const cur = await pods.get(pod.metadata.name ?? '', pod.metadata.namespace);
      if (cur.metadata.uid !== pod.metadata.uid) return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (!signal.aborted) throw e;
    }
    if (signal.aborted)
      throw new DrainError(
        `error when waiting for pod "${pod.metadata.name ?? ''}" in namespace "${pod.metadata.namespace ?? ''}" to terminate: global timeout reached: ${goDuration(t.attemptTimeoutMs)}`,
      );
    await sleep(t.podDeletePollMs, signal);
  }
}

/** Evicts every drainable pod of the node in parallel and waits until they are gone. */
export async function drainNode(
  client: KubeClient,
  nodeName: string,
  t: DrainTiming,
  stop: AbortSignal,
  log: Logger,
): Promise<void> {
  const list = await client.resource(Pods).list({ fieldSelector: `spec.nodeName=${nodeName}` });
  const pods = podsToEvict(list.items);
  const signal = AbortSignal.any([stop, AbortSignal.timeout(t.attemptTimeoutMs)]);
  const blocked = new Set<string>();
  const results = await Promise.allSettled(
    pods.map(async (p) => {
      await evictOne(client, p, t, signal, blocked, log);
      await waitGone(client, p, t, signal);
    }),
  );
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
  if (errors.length > 0) throw new DrainError(`[${errors.join(', ')}]`, [...blocked].sort());
}
