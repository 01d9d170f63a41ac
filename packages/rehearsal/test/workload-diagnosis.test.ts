/** The diagnosis of a stalled `rehearse --kubeconfig`: workloads of the release not rolled out, explained by their Pods. */
import { describe, expect, it } from 'vitest';
import { diagnoseWorkloads, type PodLike, type WorkloadLike } from '../src/workload-diagnosis.js';

const deployment = (name: string, status: WorkloadLike['status'], generation = 1): WorkloadLike => ({
  metadata: { name, namespace: 'ns', generation },
  spec: { replicas: 1, selector: { matchLabels: { app: name } } },
  ...(status !== undefined ? { status } : {}),
});
const pod = (name: string, app: string, nodeName: string, phase?: string): PodLike => ({
  metadata: { name, namespace: 'ns', labels: { app } },
  spec: { nodeName },
  ...(phase !== undefined ? { status: { phase, conditions: [] } } : {}),
});
const done = { observedGeneration: 1, replicas: 1, availableReplicas: 1, updatedReplicas: 1 };

describe('diagnoseWorkloads', () => {
  it('says nothing of rolled-out workloads', () => {
    expect(diagnoseWorkloads([deployment('ok', done)], [], [pod('ok-1', 'ok', 'master-0', 'Running')])).toEqual([]);
  });

  it('groups the workloads without Pods under one cause; explains unscheduled and unrun Pods per workload', () => {
    const ds: WorkloadLike = {
      metadata: { name: 'daemon', namespace: 'ns', generation: 1 },
      spec: { selector: { matchLabels: { app: 'daemon' } } },
    };
    const out = diagnoseWorkloads(
      [
        deployment('none', undefined),
        deployment('pending', { observedGeneration: 1 }),
        deployment('stuck', { observedGeneration: 1, replicas: 1 }),
      ],
      [ds],
      [pod('pending-1', 'pending', ''), pod('stuck-1', 'stuck', 'worker-0', 'Pending')],
    );
    expect(out.map((d) => [d.subject, d.summary])).toEqual([
      ['workloads', '2 Deployment(s)/DaemonSet(s) of the release have no Pods'],
      ['deployment/ns/pending', '0/1 Pods available and updated'],
      ['deployment/ns/stuck', '0/1 Pods available and updated'],
    ]);
    expect(out[0]?.findings[0]?.message).toBe('no Pods exist for daemonset/ns/daemon, deployment/ns/none');
    expect(out[0]?.findings[0]?.action).toContain('keelson sandbox start --simulate-pods');
    expect(out[1]?.findings[0]?.message).toBe('1 Pod(s) not scheduled (pending-1)');
    expect(out[2]?.findings[0]?.message).toBe('1 Pod(s) scheduled but not running: stuck-1 on worker-0 (Pending)');
    expect(out[2]?.findings[0]?.action).toContain('no kubelet runs them there');
  });

  it('a generation no controller observed is not rolled out, whatever the old status says', () => {
    const out = diagnoseWorkloads([deployment('new', done, 2)], [], [pod('new-1', 'new', 'master-0', 'Pending')]);
    expect(out[0]?.summary).toBe('generation 2 not observed by a controller (status.observedGeneration 1)');
  });
});
