/** The rehearsal bootstrap's `openshift-user-critical` PriorityClass, on the embedded API server. */
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapPriorityClasses } from '../src/priority-classes.js';

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  sb = await startSandbox();
  client = KubeClient.fromKubeconfigString(sb.kubeconfigYaml());
});
afterAll(async () => {
  await client.close();
  await sb.stop();
});

describe('bootstrapPriorityClasses', () => {
  it('creates openshift-user-critical as OpenShift serves it, and keeps an existing one', async () => {
    await bootstrapPriorityClasses(client);
    await bootstrapPriorityClasses(client);
    const pc = await client.request<Record<string, unknown>>(
      'GET',
      '/apis/scheduling.k8s.io/v1/priorityclasses/openshift-user-critical',
    );
    expect(pc).toMatchObject({ value: 1_000_000_000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' });
  });
});
