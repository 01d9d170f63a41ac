/**
 * Where the operator's informers come from: the process Manager's shared cache (`mgr.informer()`, one watch per kind
 * and selection, started and stopped by the Manager), or, without one (tests, embedders), informers of its own that
 * the caller records and stops.
 */
import {
  Informer,
  type InformerOptions,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ResourceDescriptor,
} from '@keelson/kube';

/** The selection of an informer (the shape of `Manager.informer`'s options). */
export type InformerSelection<T extends KubeObject> = Pick<InformerOptions<T>, 'namespace' | 'fieldSelector'>;

/** A source of informers: `(d, o) => mgr.informer(d, o)`. */
export type InformerSource = <T extends KubeObject>(
  resource: ResourceDescriptor<T>,
  selection?: InformerSelection<T>,
) => Informer<T>;

/**
 * `source` itself, or a source making the informers of its own (pushed on `owned`, for the caller to stop).
 */
export function informerSource(
  client: KubeClient,
  logger: Logger,
  source: InformerSource | undefined,
  owned: Array<Informer<KubeObject>>,
): InformerSource {
  if (source !== undefined) return source;
  return <T extends KubeObject>(d: ResourceDescriptor<T>, selection: InformerSelection<T> = {}): Informer<T> => {
    const inf = new Informer<T>(client, d, { ...selection, logger });
    owned.push(inf);
    return inf;
  };
}

/** client-go `resourcelock.LeaderElectionRecordAnnotationKey`. */
export const LEADER_ELECTION_RECORD_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

/**
 * A ConfigMap carrying a leader-election record: upstream's Operator.enqueue (openshift/machine-config-operator
 * pkg/operator/operator.go) drops its events, as their renewals would re-run the sync every few seconds.
 */
export function isLeaderRecord(cm: KubeObject): boolean {
  return (cm.metadata.annotations?.[LEADER_ELECTION_RECORD_ANNOTATION] ?? '') !== '';
}
