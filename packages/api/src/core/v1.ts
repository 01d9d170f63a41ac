/**
 * The core Kubernetes kinds the CVO and MCO read and write, limited to the fields they use
 * (`v1` Node, Pod, ConfigMap, Secret, Namespace, Event; `policy/v1` PodDisruptionBudget; `coordination.k8s.io/v1` Lease).
 */
import type { Condition, IntOrString, KubeObject, LabelSelector, ObjectReference, Time } from './meta.js';

/** A node taint (`v1.Taint`). */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: Time;
}

/** A node condition (`v1.NodeCondition`: Ready, DiskPressure, MemoryPressure, PIDPressure, NetworkUnavailable). */
export interface NodeCondition extends Condition {
  lastHeartbeatTime?: Time;
}

/** `v1` Node. */
export interface Node extends KubeObject {
  spec?: {
    unschedulable?: boolean;
    taints?: Taint[];
    providerID?: string;
    podCIDR?: string;
    podCIDRs?: string[];
  };
  status?: {
    conditions?: NodeCondition[];
    addresses?: Array<{ type: string; address: string }>;
    nodeInfo?: {
      machineID?: string;
      systemUUID?: string;
      bootID?: string;
      kernelVersion?: string;
      osImage?: string;
      containerRuntimeVersion?: string;
      kubeletVersion?: string;
      operatingSystem?: string;
      architecture?: string;
    };
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
  };
}

/** A container of a pod spec (the fields operators render). */
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: Record<string, unknown> }>;
  ports?: Array<{ name?: string; containerPort: number; protocol?: string }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean; subPath?: string }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
}

/** `v1.PodSpec` (the fields operators read and write). */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  priorityClassName?: string;
  activeDeadlineSeconds?: number;
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  tolerations?: Array<{
    key?: string;
    operator?: 'Exists' | 'Equal';
    value?: string;
    effect?: string;
    tolerationSeconds?: number;
  }>;
  volumes?: Array<{ name: string } & Record<string, unknown>>;
}

/** `v1` Pod. */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: {
    phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
    conditions?: Condition[];
    hostIP?: string;
    podIP?: string;
    startTime?: Time;
    containerStatuses?: Array<{
      name: string;
      ready: boolean;
      restartCount: number;
      image?: string;
      imageID?: string;
      state?: Record<string, unknown>;
    }>;
  };
}

/** `policy/v1` PodDisruptionBudget. */
export interface PodDisruptionBudget extends KubeObject {
  spec?: {
    minAvailable?: IntOrString;
    maxUnavailable?: IntOrString;
    selector?: LabelSelector;
    unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
  };
  status?: {
    observedGeneration?: number;
    disruptionsAllowed?: number;
    currentHealthy?: number;
    desiredHealthy?: number;
    expectedPods?: number;
    disruptedPods?: Record<string, Time>;
    conditions?: Condition[];
  };
}

/** `coordination.k8s.io/v1` Lease (leader election). */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** `metav1.MicroTime` (RFC 3339 with microseconds). */
    acquireTime?: string;
    /** `metav1.MicroTime` (RFC 3339 with microseconds). */
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** `v1` ConfigMap. Values of `data` must be strings; `binaryData` values are base64. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** `v1` Secret. `data` values are base64; `stringData` is write-only and folded into `data` by the server. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

/** `v1` Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating' };
}

/** `v1` Event (core events, as `kubectl describe` and `oc get events` show them). */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: Time;
  lastTimestamp?: Time;
  /** `metav1.MicroTime`, or null for events written with first/last timestamps. */
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}
