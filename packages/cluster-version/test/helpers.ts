/** Helpers of the sandbox tests: an embedded API server with the ClusterOperator CRD, and polling with a deadline. */
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';

/** The embedded API server over HTTP with the ClusterOperator CRD and the `openshift-cluster-version` namespace. */
export async function startCluster(): Promise<{ sandbox: Sandbox; client: KubeClient }> {
  const sandbox = await startSandbox({ openshiftCrds: ['ClusterOperator'] });
  const client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-cluster-version' } },
  });
  return { sandbox, client };
}

/** Polls `fn` until it returns a truthy value; throws naming `what` (and the last error) after `timeoutMs`. */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}
