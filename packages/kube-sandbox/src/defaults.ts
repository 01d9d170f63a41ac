/**
 * Defaulting of built-in kinds, as kube-apiserver 1.32 applies it on every create and update (the generated
 * defaulters of kubernetes `pkg/apis/core/v1/defaults.go`, `pkg/apis/apps/v1/defaults.go`,
 * `pkg/apis/batch/v1/defaults.go`): what clients read back differs from what they wrote by exactly these fields,
 * so a client comparing its manifest with the server's object must expect them.
 */
import type { JsonObject, KubeObject } from './types.js';
import { isObject } from './util.js';

function obj(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isObject(v)) return v;
  const o: JsonObject = {};
  parent[key] = o;
  return o;
}

function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function unset(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** The tag of an image reference as docker's `ParseNormalizedNamed` + `TagNameOnly` see it ("latest" when none). */
export function imageTag(image: string): string {
  if (image === '') return '';
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const last = name.slice(name.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  if (colon >= 0) return last.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

/** `SetDefaults_ObjectFieldSelector` and the `divisor` a `ResourceFieldSelector` always carries. */
function defaultSelectors(holder: JsonObject): void {
  const fieldRef = holder['fieldRef'];
  if (isObject(fieldRef) && unset(fieldRef['apiVersion'])) fieldRef['apiVersion'] = 'v1';
  const resRef = holder['resourceFieldRef'];
  if (isObject(resRef) && resRef['divisor'] === undefined) resRef['divisor'] = '0';
}

/** `SetDefaults_HTTPGetAction`. */
function defaultHandler(h: unknown): void {
  if (!isObject(h)) return;
  const get = h['httpGet'];
  if (isObject(get)) {
    if (unset(get['path'])) get['path'] = '/';
    if (unset(get['scheme'])) get['scheme'] = 'HTTP';
  }
}

/** `SetDefaults_Probe`. */
function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  p['timeoutSeconds'] ??= 1;
  p['periodSeconds'] ??= 10;
  p['successThreshold'] ??= 1;
  p['failureThreshold'] ??= 3;
  defaultHandler(p);
}

/** `SetDefaults_Container` and the defaulters of its parts (ports, env, probes, lifecycle handlers). */
export function defaultContainer(c: JsonObject): void {
  if (unset(c['imagePullPolicy']))
    c['imagePullPolicy'] =
      imageTag(typeof c['image'] === 'string' ? c['image'] : '') === 'latest' ? 'Always' : 'IfNotPresent';
  if (unset(c['terminationMessagePath'])) c['terminationMessagePath'] = '/dev/termination-log';
  if (unset(c['terminationMessagePolicy'])) c['terminationMessagePolicy'] = 'File';
  // ResourceRequirements is a struct field: always serialized
  if (!isObject(c['resources'])) c['resources'] = {};
  for (const p of objects(c['ports'])) if (unset(p['protocol'])) p['protocol'] = 'TCP';
  for (const e of objects(c['env'])) if (isObject(e['valueFrom'])) defaultSelectors(e['valueFrom']);
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[k]);
  const lc = c['lifecycle'];
  if (isObject(lc)) for (const k of ['postStart', 'preStop']) defaultHandler(lc[k]);
}

const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
];

/** `SetDefaults_Volume` and the volume-source defaulters (modes 0644, hostPath type ""). */
export function defaultVolume(v: JsonObject): void {
  if (!VOLUME_SOURCES.some((k) => v[k] !== undefined && v[k] !== null)) v['emptyDir'] = {};
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = v[k];
    if (isObject(src)) src['defaultMode'] ??= 420;
  }
  const hostPath = v['hostPath'];
  if (isObject(hostPath)) hostPath['type'] ??= '';
  const dapi = v['downwardAPI'];
  if (isObject(dapi)) for (const item of objects(dapi['items'])) defaultSelectors(item);
  const projected = v['projected'];
  if (isObject(projected))
    for (const src of objects(projected['sources'])) {
      const d = src['downwardAPI'];
      if (isObject(d)) for (const item of objects(d['items'])) defaultSelectors(item);
      const sat = src['serviceAccountToken'];
      if (isObject(sat)) sat['expirationSeconds'] ??= 3600;
    }
}

/** `SetDefaults_PodSpec` (pods and pod templates) with the containers' and volumes' defaulters. */
export function defaultPodSpec(spec: JsonObject): void {
  if (unset(spec['dnsPolicy'])) spec['dnsPolicy'] = 'ClusterFirst';
  if (unset(spec['restartPolicy'])) spec['restartPolicy'] = 'Always';
  if (!isObject(spec['securityContext'])) spec['securityContext'] = {};
  spec['terminationGracePeriodSeconds'] ??= 30;
  if (unset(spec['schedulerName'])) spec['schedulerName'] = 'default-scheduler';
  for (const k of ['containers', 'initContainers', 'ephemeralContainers'])
    for (const c of objects(spec[k])) defaultContainer(c);
  for (const v of objects(spec['volumes'])) defaultVolume(v);
}

/** `SetDefaults_Pod`: requests default to limits, service links, host-network ports; then the pod spec. */
export function defaultPod(pod: KubeObject): void {
  const spec = obj(pod, 'spec');
  for (const k of ['containers', 'initContainers'])
    for (const c of objects(spec[k])) {
      const res = isObject(c['resources']) ? c['resources'] : {};
      const limits = res['limits'];
      if (isObject(limits) && Object.keys(limits).length > 0) {
        const requests = obj(res, 'requests');
        for (const [r, q] of Object.entries(limits)) requests[r] ??= q;
        c['resources'] = res;
      }
      if (spec['hostNetwork'] === true)
        for (const p of objects(c['ports'])) if (!p['hostPort']) p['hostPort'] = p['containerPort'];
    }
  spec['enableServiceLinks'] ??= true;
  defaultPodSpec(spec);
}

function defaultTemplate(spec: JsonObject): void {
  const template = spec['template'];
  if (isObject(template)) defaultPodSpec(obj(template, 'spec'));
}

/** `SetDefaults_Deployment`. */
export function defaultDeployment(d: KubeObject): void {
  const spec = obj(d, 'spec');
  spec['replicas'] ??= 1;
  const strategy = obj(spec, 'strategy');
  if (unset(strategy['type'])) strategy['type'] = 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const ru = obj(strategy, 'rollingUpdate');
    ru['maxUnavailable'] ??= '25%';
    ru['maxSurge'] ??= '25%';
  }
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
  defaultTemplate(spec);
}

/** `SetDefaults_DaemonSet`. */
export function defaultDaemonSet(ds: KubeObject): void {
  const spec = obj(ds, 'spec');
  const strategy = obj(spec, 'updateStrategy');
  if (unset(strategy['type'])) strategy['type'] = 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const ru = obj(strategy, 'rollingUpdate');
    ru['maxUnavailable'] ??= 1;
    ru['maxSurge'] ??= 0;
  }
  spec['revisionHistoryLimit'] ??= 10;
  defaultTemplate(spec);
}

/** `SetDefaults_StatefulSet`. */
export function defaultStatefulSet(ss: KubeObject): void {
  const spec = obj(ss, 'spec');
  if (unset(spec['podManagementPolicy'])) spec['podManagementPolicy'] = 'OrderedReady';
  const strategy = obj(spec, 'updateStrategy');
  if (unset(strategy['type'])) {
    strategy['type'] = 'RollingUpdate';
    strategy['rollingUpdate'] ??= { partition: 0 };
  }
  if (strategy['type'] === 'RollingUpdate' && isObject(strategy['rollingUpdate']))
    strategy['rollingUpdate']['partition'] ??= 0;
  const retention = obj(spec, 'persistentVolumeClaimRetentionPolicy');
  if (unset(retention['whenDeleted'])) retention['whenDeleted'] = 'Retain';
  if (unset(retention['whenScaled'])) retention['whenScaled'] = 'Retain';
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  defaultTemplate(spec);
}

/** `SetDefaults_ReplicaSet`. */
export function defaultReplicaSet(rs: KubeObject): void {
  const spec = obj(rs, 'spec');
  spec['replicas'] ??= 1;
  defaultTemplate(spec);
}

/** `SetDefaults_Job` (the fields every Job gets). */
export function defaultJobSpec(spec: JsonObject): void {
  if (spec['completions'] === undefined && spec['parallelism'] === undefined) {
    spec['completions'] = 1;
    spec['parallelism'] = 1;
  }
  spec['parallelism'] ??= 1;
  spec['backoffLimit'] ??= 6;
  if (unset(spec['completionMode'])) spec['completionMode'] = 'NonIndexed';
  spec['suspend'] ??= false;
  if (spec['podFailurePolicy'] === undefined && unset(spec['podReplacementPolicy']))
    spec['podReplacementPolicy'] = 'TerminatingOrFailed';
  defaultTemplate(spec);
}

/** `SetDefaults_CronJob`. */
export function defaultCronJob(cj: KubeObject): void {
  const spec = obj(cj, 'spec');
  if (unset(spec['concurrencyPolicy'])) spec['concurrencyPolicy'] = 'Allow';
  spec['suspend'] ??= false;
  spec['successfulJobsHistoryLimit'] ??= 3;
  spec['failedJobsHistoryLimit'] ??= 1;
  const jt = spec['jobTemplate'];
  if (isObject(jt)) defaultJobSpec(obj(jt, 'spec'));
}

/** `SetDefaults_Service` (cluster IP allocation is the registry's, not a default). */
export function defaultService(svc: KubeObject): void {
  const spec = obj(svc, 'spec');
  if (unset(spec['sessionAffinity'])) spec['sessionAffinity'] = 'None';
  if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
  if (spec['sessionAffinity'] === 'ClientIP') {
    const ip = obj(obj(spec, 'sessionAffinityConfig'), 'clientIP');
    ip['timeoutSeconds'] ??= 10800;
  }
  if (unset(spec['type'])) spec['type'] = 'ClusterIP';
  for (const p of objects(spec['ports'])) {
    if (unset(p['protocol'])) p['protocol'] = 'TCP';
    if (p['targetPort'] === undefined || p['targetPort'] === 0 || p['targetPort'] === '') p['targetPort'] = p['port'];
  }
  const type = spec['type'];
  if ((type === 'NodePort' || type === 'LoadBalancer') && unset(spec['externalTrafficPolicy']))
    spec['externalTrafficPolicy'] = 'Cluster';
  if ((type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') && unset(spec['internalTrafficPolicy']))
    spec['internalTrafficPolicy'] = 'Cluster';
  if (type === 'LoadBalancer') spec['allocateLoadBalancerNodePorts'] ??= true;
}

/** The defaulter of each built-in `group/plural` the sandbox defaults. */
export const DEFAULTERS: Readonly<Record<string, (o: KubeObject) => void>> = {
  '/pods': defaultPod,
  '/services': defaultService,
  'apps/deployments': defaultDeployment,
  'apps/daemonsets': defaultDaemonSet,
  'apps/statefulsets': defaultStatefulSet,
  'apps/replicasets': defaultReplicaSet,
  'batch/jobs': (j) => {
    defaultJobSpec(obj(j, 'spec'));
  },
  'batch/cronjobs': defaultCronJob,
};
