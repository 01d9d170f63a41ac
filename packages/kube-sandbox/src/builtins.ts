/** The built-in resource types the sandbox serves, with their discovery data and patch strategies. */
import type { KubeObject, ListStrategy, ResourceType } from './types.js';
import { deleteKey } from './util.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const META_LISTS: Record<string, ListStrategy> = {
  'metadata.finalizers': { set: true },
  'metadata.ownerReferences': { mergeKey: 'uid' },
};

function podSpecLists(prefix: string): Record<string, ListStrategy> {
  const out: Record<string, ListStrategy> = {};
  for (const c of ['containers', 'initContainers', 'ephemeralContainers']) {
    out[`${prefix}.${c}`] = { mergeKey: 'name' };
    out[`${prefix}.${c}[].env`] = { mergeKey: 'name' };
    out[`${prefix}.${c}[].ports`] = { mergeKey: 'containerPort' };
    out[`${prefix}.${c}[].volumeMounts`] = { mergeKey: 'mountPath' };
    out[`${prefix}.${c}[].volumeDevices`] = { mergeKey: 'devicePath' };
  }
  out[`${prefix}.volumes`] = { mergeKey: 'name' };
  out[`${prefix}.imagePullSecrets`] = { mergeKey: 'name' };
  out[`${prefix}.hostAliases`] = { mergeKey: 'ip' };
  return out;
}

const CONDITIONS: Record<string, ListStrategy> = { 'status.conditions': { mergeKey: 'type' } };

/** Short definition of a resource type, for {@link makeType} / `defineResourceType`. */
export interface Def {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: string[];
  generation?: boolean;
  fields?: Record<string, string>;
  lists?: Record<string, ListStrategy>;
  nameRule?: ResourceType['nameRule'];
  verbs?: string[];
}

const DEFS: Def[] = [
  {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    subresources: ['status', 'finalize'],
    fields: { 'status.phase': 'status.phase' },
    nameRule: 'label',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    lists: { ...CONDITIONS },
  },
  {
    group: '',
    version: 'v1',
    plural: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    subresources: ['status'],
    fields: { 'spec.unschedulable': 'spec.unschedulable' },
    lists: { ...CONDITIONS, 'status.addresses': { mergeKey: 'type' } },
  },
  {
    group: '',
    version: 'v1',
    plural: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'eviction'],
    fields: {
      'spec.nodeName': 'spec.nodeName',
      'spec.restartPolicy': 'spec.restartPolicy',
      'spec.schedulerName': 'spec.schedulerName',
      'spec.serviceAccountName': 'spec.serviceAccountName',
      'spec.hostNetwork': 'spec.hostNetwork',
      'status.phase': 'status.phase',
      'status.podIP': 'status.podIP',
      'status.nominatedNodeName': 'status.nominatedNodeName',
    },
    lists: { ...podSpecLists('spec'), ...CONDITIONS },
  },
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, fields: { type: 'type' } },
  {
    group: '',
    version: 'v1',
    plural: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    lists: { 'spec.ports': { mergeKey: 'port' }, ...CONDITIONS },
  },
  {
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    lists: { secrets: { mergeKey: 'name' } },
  },
  { group: '', version: 'v1', plural: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] },
  {
    group: '',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fields: {
      'involvedObject.kind': 'involvedObject.kind',
      'involvedObject.namespace': 'involvedObject.namespace',
      'involvedObject.name': 'involvedObject.name',
      'involvedObject.uid': 'involvedObject.uid',
      'involvedObject.apiVersion': 'involvedObject.apiVersion',
      'involvedObject.resourceVersion': 'involvedObject.resourceVersion',
      'involvedObject.fieldPath': 'involvedObject.fieldPath',
      reason: 'reason',
      reportingComponent: 'reportingComponent',
      source: 'source.component',
      type: 'type',
    },
    nameRule: 'path',
  },
  {
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    fields: {
      'regarding.kind': 'involvedObject.kind',
      'regarding.namespace': 'involvedObject.namespace',
      'regarding.name': 'involvedObject.name',
      'regarding.uid': 'involvedObject.uid',
      'involvedObject.kind': 'involvedObject.kind',
      'involvedObject.namespace': 'involvedObject.namespace',
      'involvedObject.name': 'involvedObject.name',
      'involvedObject.uid': 'involvedObject.uid',
      reason: 'reason',
      type: 'type',
      reportingController: 'reportingComponent',
      reportingComponent: 'reportingComponent',
    },
    nameRule: 'path',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    generation: true,
    lists: { ...podSpecLists('spec.template.spec'), ...CONDITIONS },
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: ['status'],
    generation: true,
    lists: { ...podSpecLists('spec.template.spec'), ...CONDITIONS },
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    generation: true,
    fields: { 'status.replicas': 'status.replicas' },
    lists: { ...podSpecLists('spec.template.spec'), ...CONDITIONS },
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    generation: true,
    lists: { ...podSpecLists('spec.template.spec'), ...CONDITIONS },
  },
  { group: 'apps', version: 'v1', plural: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  {
    group: 'batch',
    version: 'v1',
    plural: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    subresources: ['status'],
    generation: true,
    fields: { 'status.successful': 'status.succeeded' },
    lists: { ...podSpecLists('spec.template.spec'), ...CONDITIONS },
  },
  {
    group: 'batch',
    version: 'v1',
    plural: 'cronjobs',
    kind: 'CronJob',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    subresources: ['status'],
    generation: true,
    lists: { ...podSpecLists('spec.jobTemplate.spec.template.spec') },
  },
  { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    plural: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
  },
  {
    group: 'policy',
    version: 'v1',
    plural: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: ['status'],
    generation: true,
    lists: { ...CONDITIONS },
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'roles',
    kind: 'Role',
    namespaced: true,
    nameRule: 'path',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
    nameRule: 'path',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    nameRule: 'path',
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    nameRule: 'path',
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    plural: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    generation: true,
    lists: { ...CONDITIONS },
  },
];

/** Builds a ResourceType from a short definition. */
export function makeType(d: Def): ResourceType {
  return {
    group: d.group,
    version: d.version,
    plural: d.plural,
    singular: d.kind.toLowerCase(),
    kind: d.kind,
    listKind: `${d.kind}List`,
    namespaced: d.namespaced,
    shortNames: d.shortNames ?? [],
    categories: d.categories ?? [],
    verbs: d.verbs ?? ALL_VERBS,
    subresources: d.subresources ?? [],
    generation: d.generation ?? false,
    fields: d.fields ?? {},
    lists: { ...META_LISTS, ...(d.lists ?? {}) },
    nameRule: d.nameRule ?? 'subdomain',
  };
}

// events.k8s.io/v1 field name ↔ core/v1 field name (the two APIs share one storage, as in the real server)
const EVENT_FIELDS: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function renameFields(o: KubeObject, pairs: [string, string][], apiVersion: string): KubeObject {
  const out: KubeObject = { ...o, apiVersion, kind: 'Event' };
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      deleteKey(out, from);
    }
  }
  return out;
}

/** All built-in resource types. */
export function builtinTypes(): ResourceType[] {
  return DEFS.map((d) => {
    const t = makeType(d);
    if (t.group === 'events.k8s.io' && t.plural === 'events') {
      t.storedAs = {
        group: '',
        plural: 'events',
        toStorage: (o) => {
          const c = renameFields(o, EVENT_FIELDS, 'v1');
          c['involvedObject'] ??= {};
          return c;
        },
        fromStorage: (o) =>
          renameFields(
            o,
            EVENT_FIELDS.map(([a, b]) => [b, a]),
            'events.k8s.io/v1',
          ),
      };
    }
    return t;
  });
}

/** The standard verb list for generic resources. */
export const STANDARD_VERBS: readonly string[] = ALL_VERBS;
export { META_LISTS };
