/**
 * Pods: defaults, the Priority and ServiceAccount admission plugins, validation. The Priority plugin is kubernetes
 * `plugin/pkg/admission/priority/admission.go` (`admitPod`): on create a Pod's `priorityClassName` must name an
 * existing PriorityClass (else 403 `no PriorityClass with name … was found`), `spec.priority` and
 * `spec.preemptionPolicy` come from that class (or from the global default class, or 0 and PreemptLowerPriority
 * without one), and a Pod that sets them differently is refused; on update the values set at create are kept.
 */
import type { Cluster } from '../cluster.js';
import { defaultPod } from '../defaults.js';
import { forbidden } from '../errors.js';
import type { JsonObject, KubeObject } from '../types.js';
import { isObject, must, text } from '../util.js';

const PODS = { group: '', resource: 'pods' };

/** What the Priority plugin computes for a Pod: the class name it records, the value and the preemption policy. */
interface ResolvedPriority {
  className: string;
  value: number;
  preemptionPolicy: string;
}

/** `getDefaultPriorityClass`: the global default class with the lowest value, if any. */
function globalDefaultClass(classes: readonly KubeObject[]): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const c of classes)
    if (c['globalDefault'] === true && (best === undefined || Number(best['value']) > Number(c['value']))) best = c;
  return best;
}

function resolvePriority(cluster: Cluster, pod: KubeObject, spec: JsonObject): ResolvedPriority {
  const pcType = must(
    cluster.findType('scheduling.k8s.io', 'v1', 'priorityclasses'),
    'built-in type scheduling.k8s.io/v1/priorityclasses',
  );
  const name = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
  if (name === '') {
    const dflt = globalDefaultClass(cluster.peekAll(pcType));
    if (!dflt) return { className: '', value: 0, preemptionPolicy: 'PreemptLowerPriority' };
    return {
      className: dflt.metadata?.name ?? '',
      value: Number(dflt['value'] ?? 0),
      preemptionPolicy: text(dflt['preemptionPolicy'] ?? 'PreemptLowerPriority'),
    };
  }
  const pc = cluster.peek(pcType, undefined, name);
  if (!pc) throw forbidden(PODS, pod.metadata?.name ?? '', `no PriorityClass with name ${name} was found`);
  return {
    className: name,
    value: Number(pc['value'] ?? 0),
    preemptionPolicy: text(pc['preemptionPolicy'] ?? 'PreemptLowerPriority'),
  };
}

/** The Priority admission plugin on create (`admitPod`). */
function admitPriority(cluster: Cluster, pod: KubeObject, spec: JsonObject): void {
  const r = resolvePriority(cluster, pod, spec);
  const podName = pod.metadata?.name ?? '';
  if (spec['priority'] !== undefined && spec['priority'] !== r.value)
    throw forbidden(
      PODS,
      podName,
      `the integer value of priority (${text(spec['priority'])}) must not be provided in pod spec; priority admission controller computed ${r.value} from the given PriorityClass name`,
    );
  if (spec['preemptionPolicy'] !== undefined && spec['preemptionPolicy'] !== r.preemptionPolicy)
    throw forbidden(
      PODS,
      podName,
      `the string value of PreemptionPolicy (${text(spec['preemptionPolicy'])}) must not be provided in pod spec; priority admission controller computed ${r.preemptionPolicy} from the given PriorityClass name`,
    );
  if (r.className !== '') spec['priorityClassName'] = r.className;
  spec['priority'] = r.value;
  spec['preemptionPolicy'] = r.preemptionPolicy;
}

export function installPodStrategy(cluster: Cluster): void {
  cluster.setStrategy('', 'pods', {
    prepareCreate(obj) {
      defaultPod(obj);
      const spec = obj['spec'] as JsonObject;
      admitPriority(cluster, obj, spec);
      // the ServiceAccount admission plugin
      spec['serviceAccountName'] ??= 'default';
      spec['serviceAccount'] ??= spec['serviceAccountName'];
      obj['status'] = { phase: 'Pending', qosClass: 'BestEffort' };
    },
    prepareUpdate(obj, old) {
      defaultPod(obj);
      // the Priority plugin keeps what it set at create when an update leaves it out
      const spec = obj['spec'] as JsonObject;
      const oldSpec = (isObject(old['spec']) ? old['spec'] : {}) as JsonObject;
      if (spec['priority'] === undefined && oldSpec['priority'] !== undefined) spec['priority'] = oldSpec['priority'];
      if (spec['preemptionPolicy'] === undefined && oldSpec['preemptionPolicy'] !== undefined)
        spec['preemptionPolicy'] = oldSpec['preemptionPolicy'];
    },
    validate(obj) {
      const spec = obj['spec'];
      if (!isObject(spec) || !Array.isArray(spec['containers']) || spec['containers'].length === 0)
        return [{ field: 'spec.containers', type: 'FieldValueRequired', detail: '' }];
      return [];
    },
  });
}
