/**
 * `--fault mco-sync-fails`: a machine-config-operator sync task fails during the update, and the update survives it.
 * Once the target release's operator runs, the kube-apiserver client CA ConfigMap it reads into the ControllerConfig
 * (`openshift-config-managed/kube-apiserver-client-ca`) is taken away, so its RenderConfig task fails. As upstream
 * release-4.20 reports it (openshift/machine-config-operator `pkg/operator/status.go` `syncDegradedStatus`,
 * `syncAvailableStatus`), ClusterOperator machine-config stays Available=True and goes Degraded=True
 * `RenderConfigFailed`; the CVO tolerates a Degraded operator during an update for 40 minutes (scaled), then reports
 * it (Failing=True `ClusterOperatorDegraded`). When the CVO has reported it, the ConfigMap is put back as it was: the
 * operator's next sync clears Degraded and the update completes.
 */
import { isNotFound, type KubeClient } from '@keelson/kube';

const PATH = '/api/v1/namespaces/openshift-config-managed/configmaps/kube-apiserver-client-ca';

/** A timeline `fault` event of this fault. */
export interface McoSyncFaultEvent {
  fault: 'mco-sync-fails';
  detail: string;
}

type Cond = { type?: string; status?: string; reason?: string; message?: string };
type Stored = { metadata?: Record<string, unknown>; data?: Record<string, string> } & Record<string, unknown>;

/** The fault's phases: waiting for the target operator, broken, restored. */
export type McoSyncFaultPhase = 'armed' | 'broken' | 'restored';

const condOf = (o: unknown, type: string): Cond | undefined =>
  ((o as { status?: { conditions?: Cond[] } } | undefined)?.status?.conditions ?? []).find((c) => c.type === type);

/** The CVO reports the degraded machine-config operator (after its 40-minute tolerance). */
export function cvoReportsMachineConfig(clusterVersion: unknown): boolean {
  const f = condOf(clusterVersion, 'Failing');
  return f?.status === 'True' && /machine-config/.test(f.message ?? '');
}

/** Drives the fault; {@link McoSyncFault.step} is called from the rehearsal's update loop. */
export class McoSyncFault {
  phase: McoSyncFaultPhase = 'armed';
  private saved: Stored | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly emit: (e: McoSyncFaultEvent) => void,
  ) {}

  /**
   * One step: breaks the operator's input once `mcoVersion` (the running operator's release) is the target; restores
   * it once the CVO reports the degraded operator. Returns the phase.
   */
  async step(mcoVersion: string | undefined, target: string, clusterVersion: unknown): Promise<McoSyncFaultPhase> {
    if (this.phase === 'armed' && mcoVersion === target) await this.break();
    else if (this.phase === 'broken' && cvoReportsMachineConfig(clusterVersion)) await this.restore(clusterVersion);
    return this.phase;
  }

  private async break(): Promise<void> {
    try {
      this.saved = await this.client.request<Stored>('GET', PATH);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (this.saved === undefined) {
      this.phase = 'restored';
      this.emit({ fault: 'mco-sync-fails', detail: 'not injected: the cluster has no kube-apiserver-client-ca' });
      return;
    }
    await this.client.request('DELETE', PATH);
    this.phase = 'broken';
    this.emit({
      fault: 'mco-sync-fails',
      detail:
        'configmap openshift-config-managed/kube-apiserver-client-ca removed: the new machine-config-operator RenderConfig task fails (Degraded RenderConfigFailed, Available stays True)',
    });
  }

  private async restore(clusterVersion: unknown): Promise<void> {
    const s = this.saved ?? {};
    const meta = (s.metadata ?? {}) as { name?: string; namespace?: string; labels?: unknown; annotations?: unknown };
    await this.client.request('POST', '/api/v1/namespaces/openshift-config-managed/configmaps', {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: meta.name,
          namespace: meta.namespace,
          ...(meta.labels !== undefined ? { labels: meta.labels } : {}),
          ...(meta.annotations !== undefined ? { annotations: meta.annotations } : {}),
        },
        data: s.data ?? {},
      },
    });
    this.phase = 'restored';
    this.emit({
      fault: 'mco-sync-fails',
      detail: `the CVO reported it (${condOf(clusterVersion, 'Failing')?.message ?? ''}); configmap kube-apiserver-client-ca restored`,
    });
  }
}
