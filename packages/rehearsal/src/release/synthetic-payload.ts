import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** Options of {@link generatePayload}. */
export interface GeneratePayloadOptions {
  /** Directory to write (created; an existing `release-manifests/` and `manifests/` in it are replaced). */
  out: string;
  /** PRNG seed; the same seed always writes the same bytes. Default 1. */
  seed?: number;
  /** Release version written to `release-metadata` and `image-references`. Default `4.18.7`. */
  version?: string;
  /** Number of components (default 82, at most the built-in catalogue of 82). */
  components?: number;
  /** Scale of large documents (CRD schemas, dashboards); 1 gives about 17 MB in total. */
  sizeFactor?: number;
  /**
   * Only these catalogue components (by name, every run level they appear at); overrides `components`.
   * Default: the first `components` of the catalogue.
   */
  componentNames?: readonly string[];
  /** Pad with per-component operand ConfigMaps up to this many manifests (default 900, a real payload's size). */
  minManifests?: number;
  /** Include the `batch/v1` migration Jobs a few operators ship (default true). */
  jobs?: boolean;
}

/** What {@link generatePayload} wrote. */
export interface GeneratePayloadResult {
  /** Files written under `release-manifests/` (without `image-references` / `release-metadata`). */
  files: number;
  /** YAML documents (manifests) written under `release-manifests/`. */
  manifests: number;
  /** Batch/v1 Jobs among them. */
  jobs: number;
  /** Files holding more than one document. */
  multiDocumentFiles: number;
  /** Manifests the CVO would exclude with the default profile and feature set. */
  excluded: number;
  /** Components used. */
  components: number;
  /** Total bytes written (all files). */
  bytes: number;
  /** Files written under `manifests/` (the CVO's own manifests). */
  cvoManifests: number;
}

/** Small deterministic PRNG (mulberry32). */
class Prng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(arr: readonly T[]): T {
    const v = arr[this.int(arr.length)];
    if (v === undefined) throw new Error('pick from empty list');
    return v;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(len: number): string {
    let s = '';
    while (s.length < len) s += this.int(0x10000).toString(16).padStart(4, '0');
    return s.slice(0, len);
  }
}

type Flavor = 'operator' | 'crds' | 'small' | 'monitoring';
interface Component {
  level: string;
  name: string;
  namespace: string;
  flavor: Flavor;
  capability?: string;
  /** Use `NN-name` file suffixes (as several real operators do) instead of `NN_name`. */
  dash: boolean;
}

const CATALOGUE: readonly [string, string, string, Flavor, string?][] = [
  ['00', 'cluster-version-operator', 'openshift-cluster-version', 'small'],
  ['01', 'config-operator', 'openshift-config-operator', 'crds'],
  ['03', 'cloud-credential-operator', 'openshift-cloud-credential-operator', 'operator', 'CloudCredential'],
  ['03', 'config', 'openshift-config', 'crds'],
  ['03', 'marketplace', 'openshift-marketplace', 'crds', 'marketplace'],
  ['03', 'quota-openshift', 'openshift-config', 'crds'],
  ['03', 'security-openshift', 'openshift-config', 'crds'],
  ['05', 'config-operator', 'openshift-config-operator', 'small'],
  ['10', 'config-operator', 'openshift-config-operator', 'operator'],
  ['10', 'openshift-controller-manager', 'openshift-controller-manager', 'crds'],
  ['12', 'etcd-operator', 'openshift-etcd-operator', 'operator'],
  ['20', 'etcd-operator', 'openshift-etcd-operator', 'operator'],
  ['20', 'kube-apiserver-operator', 'openshift-kube-apiserver-operator', 'operator'],
  ['25', 'kube-controller-manager-operator', 'openshift-kube-controller-manager-operator', 'operator'],
  ['25', 'kube-scheduler-operator', 'openshift-kube-scheduler-operator', 'operator'],
  ['26', 'cloud-controller-manager-operator', 'openshift-cloud-controller-manager-operator', 'operator'],
  ['30', 'machine-api-operator', 'openshift-machine-api', 'operator', 'MachineAPI'],
  ['30', 'openshift-apiserver-operator', 'openshift-apiserver-operator', 'operator'],
  ['30', 'cluster-autoscaler-operator', 'openshift-machine-api', 'crds', 'MachineAPI'],
  ['31', 'cluster-baremetal-operator', 'openshift-machine-api', 'operator', 'baremetal'],
  ['40', 'kube-storage-version-migrator-operator', 'openshift-kube-storage-version-migrator-operator', 'operator'],
  ['49', 'cluster-samples-operator', 'openshift-cluster-samples-operator', 'small', 'openshift-samples'],
  ['50', 'cluster-authentication-operator', 'openshift-authentication-operator', 'operator'],
  ['50', 'cluster-autoscaler-operator', 'openshift-machine-api', 'operator', 'MachineAPI'],
  ['50', 'cluster-config-api', 'openshift-config', 'crds'],
  ['50', 'cluster-csi-snapshot-controller-operator', 'openshift-cluster-storage-operator', 'operator', 'CSISnapshot'],
  ['50', 'cluster-image-registry-operator', 'openshift-image-registry', 'operator', 'ImageRegistry'],
  ['50', 'cluster-ingress-operator', 'openshift-ingress-operator', 'operator', 'Ingress'],
  ['50', 'cluster-machine-approver', 'openshift-cluster-machine-approver', 'operator'],
  ['50', 'cluster-monitoring-operator', 'openshift-monitoring', 'monitoring'],
  ['50', 'cluster-node-tuning-operator', 'openshift-cluster-node-tuning-operator', 'operator', 'NodeTuning'],
  ['50', 'cluster-olm-operator', 'openshift-cluster-olm-operator', 'operator', 'OperatorLifecycleManagerV1'],
  ['50', 'cluster-openshift-controller-manager-operator', 'openshift-controller-manager-operator', 'operator'],
  ['50', 'cluster-storage-operator', 'openshift-cluster-storage-operator', 'operator', 'Storage'],
  ['50', 'console-operator', 'openshift-console-operator', 'operator', 'Console'],
  ['50', 'csi-driver-manila-operator', 'openshift-manila-csi-driver', 'small', 'Storage'],
  ['50', 'dns-operator', 'openshift-dns-operator', 'operator'],
  ['50', 'insights-operator', 'openshift-insights', 'operator', 'Insights'],
  ['50', 'olm', 'openshift-operator-lifecycle-manager', 'crds', 'OperatorLifecycleManager'],
  ['50', 'operator-marketplace', 'openshift-marketplace', 'operator', 'marketplace'],
  ['50', 'service-ca-operator', 'openshift-service-ca-operator', 'operator'],
  ['50', 'cluster-kube-descheduler-operator', 'openshift-kube-descheduler-operator', 'small'],
  ['51', 'olm', 'openshift-operator-lifecycle-manager', 'small', 'OperatorLifecycleManager'],
  ['55', 'cluster-api', 'openshift-cluster-api', 'crds'],
  ['60', 'cluster-network-operator', 'openshift-network-operator', 'small'],
  ['70', 'cluster-network-operator', 'openshift-network-operator', 'operator'],
  ['70', 'dns-operator', 'openshift-dns-operator', 'small'],
  ['75', 'cloud-network-config-controller', 'openshift-cloud-network-config-controller', 'small'],
  ['80', 'machine-config', 'openshift-machine-config-operator', 'operator'],
  ['80', 'machine-config-operator', 'openshift-machine-config-operator', 'crds'],
  ['50', 'aws-ebs-csi-driver-operator', 'openshift-cluster-csi-drivers', 'small', 'Storage'],
  ['50', 'azure-disk-csi-driver-operator', 'openshift-cluster-csi-drivers', 'small', 'Storage'],
  ['50', 'gcp-pd-csi-driver-operator', 'openshift-cluster-csi-drivers', 'small', 'Storage'],
  ['50', 'vsphere-problem-detector', 'openshift-cluster-storage-operator', 'small', 'Storage'],
  ['50', 'cluster-platform-operators-manager', 'openshift-platform-operators', 'small'],
  ['50', 'openshift-state-metrics', 'openshift-monitoring', 'small'],
  ['50', 'kube-state-metrics', 'openshift-monitoring', 'small'],
  ['50', 'node-exporter', 'openshift-monitoring', 'small'],
  ['50', 'prometheus-operator', 'openshift-monitoring', 'operator'],
  ['50', 'thanos-querier', 'openshift-monitoring', 'small'],
  ['50', 'helm', 'openshift-config', 'small', 'Console'],
  ['50', 'downloads', 'openshift-console', 'small', 'Console'],
  ['55', 'machine-os-images', 'openshift-machine-config-operator', 'small'],
  ['60', 'multus', 'openshift-multus', 'small'],
  ['60', 'network-node-identity', 'openshift-network-node-identity', 'small'],
  ['70', 'ovn-kubernetes', 'openshift-ovn-kubernetes', 'small'],
  ['70', 'cluster-dns', 'openshift-dns', 'small'],
  ['80', 'image-customization-controller', 'openshift-machine-api', 'small', 'baremetal'],
  ['90', 'cluster-authentication-operator', 'openshift-authentication-operator', 'monitoring'],
  ['90', 'cluster-image-registry-operator', 'openshift-image-registry', 'monitoring', 'ImageRegistry'],
  ['90', 'cluster-ingress-operator', 'openshift-ingress-operator', 'monitoring', 'Ingress'],
  ['90', 'cluster-monitoring-operator', 'openshift-monitoring', 'monitoring'],
  ['90', 'cluster-storage-operator', 'openshift-cluster-storage-operator', 'monitoring', 'Storage'],
  ['90', 'console-operator', 'openshift-console-operator', 'monitoring', 'Console'],
  ['90', 'dns-operator', 'openshift-dns-operator', 'monitoring'],
  ['90', 'etcd-operator', 'openshift-etcd-operator', 'monitoring'],
  ['90', 'kube-apiserver-operator', 'openshift-kube-apiserver-operator', 'monitoring'],
  ['90', 'machine-api-operator', 'openshift-machine-api', 'monitoring', 'MachineAPI'],
  ['90', 'machine-config', 'openshift-machine-config-operator', 'monitoring'],
  ['90', 'olm', 'openshift-operator-lifecycle-manager', 'monitoring', 'OperatorLifecycleManager'],
  ['90', 'service-ca-operator', 'openshift-service-ca-operator', 'monitoring'],
  ['90', 'insights-operator', 'openshift-insights', 'monitoring', 'Insights'],
];

const WORDS =
  'spec status condition observed generation replicas selector template container image pull policy resources limits requests cpu memory node affinity toleration taint volume mount secret config map service account role binding endpoint port protocol target ingress egress route domain certificate authority rotation expiry lease leader election controller reconcile degraded progressing available upgradeable version operator cluster infrastructure platform network proxy trusted bundle feature gate profile capability manifest payload release channel'.split(
    ' ',
  );

function sentence(rng: Prng, n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(rng.pick(WORDS));
  const s = parts.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}

type Obj = Record<string, unknown>;

const PROFILE_ANNOTATIONS: Obj = {
  'include.release.openshift.io/self-managed-high-availability': 'true',
  'include.release.openshift.io/single-node-developer': 'true',
};

function annotations(comp: Component, rng: Prng, extra: Obj = {}): Obj {
  const a: Obj = { ...PROFILE_ANNOTATIONS };
  if (rng.chance(0.6)) a['include.release.openshift.io/ibm-cloud-managed'] = 'true';
  if (comp.capability !== undefined) a['capability.openshift.io/name'] = comp.capability;
  return { ...a, ...extra };
}

function schemaProps(rng: Prng, depth: number, width: number): Obj {
  const props: Obj = {};
  for (let i = 0; i < width; i++) {
    const name = `${rng.pick(WORDS)}${rng.pick(WORDS).replace(/^./, (c) => c.toUpperCase())}${i}`;
    const description = `${sentence(rng, 12 + rng.int(30))} ${sentence(rng, 10 + rng.int(20))}`;
    if (depth > 0 && rng.chance(0.35)) {
      props[name] = {
        description,
        type: 'object',
        properties: schemaProps(rng, depth - 1, Math.max(2, Math.floor(width / 2))),
      };
    } else if (rng.chance(0.2)) {
      props[name] = {
        description,
        type: 'array',
        items: { type: 'string', maxLength: 253 },
        'x-kubernetes-list-type': 'atomic',
      };
    } else {
      props[name] = rng.chance(0.5)
        ? { description, type: 'string' }
        : { description, type: 'integer', format: 'int32', minimum: 0 };
    }
  }
  return props;
}

function crd(comp: Component, rng: Prng, kind: string, group: string, size: number): Obj {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${group}`,
      annotations: annotations(comp, rng, {
        'api-approved.openshift.io': 'https://github.com/openshift/api/pull/470',
        'api.openshift.io/merged-by-featuregates': 'true',
      }),
    },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope: rng.chance(0.6) ? 'Cluster' : 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              description: sentence(rng, 25),
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: {
                  type: 'string',
                  description: 'APIVersion defines the versioned schema of this representation of an object.',
                },
                kind: {
                  type: 'string',
                  description: 'Kind is a string value representing the REST resource this object represents.',
                },
                metadata: { type: 'object' },
                spec: { type: 'object', properties: schemaProps(rng, 3, size) },
                status: { type: 'object', properties: schemaProps(rng, 2, Math.max(3, Math.floor(size / 2))) },
              },
            },
          },
        },
      ],
    },
  };
}

function deployment(comp: Component, rng: Prng, name: string, image: string): Obj {
  const env = Array.from({ length: 3 + rng.int(6) }, (_, i) => ({
    name: `${rng.pick(WORDS).toUpperCase()}_${i}`,
    value: rng.pick(WORDS),
  }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: comp.namespace,
      annotations: annotations(comp, rng, { 'config.openshift.io/inject-proxy': name }),
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name } },
      strategy: { type: 'Recreate' },
      template: {
        metadata: {
          annotations: { 'target.workload.openshift.io/management': '{"effect": "PreferredDuringScheduling"}' },
          labels: { name },
        },
        spec: {
          serviceAccountName: name,
          priorityClassName: 'system-cluster-critical',
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          tolerations: [
            { key: 'node-role.kubernetes.io/master', operator: 'Exists', effect: 'NoSchedule' },
            { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
          ],
          containers: [
            {
              name,
              image,
              imagePullPolicy: 'IfNotPresent',
              command: [`/usr/bin/${name}`],
              args: ['start', '--config=/var/run/configmaps/config/config.yaml', `-v=${2 + rng.int(3)}`],
              env: [...env, { name: 'RELEASE_VERSION', value: '0.0.1-snapshot' }],
              resources: { requests: { cpu: `${10 + rng.int(40)}m`, memory: `${50 + rng.int(200)}Mi` } },
              terminationMessagePolicy: 'FallbackToLogsOnError',
              volumeMounts: [{ mountPath: '/var/run/configmaps/config', name: 'config' }],
            },
          ],
          volumes: [{ name: 'config', configMap: { name: `${name}-config` } }],
        },
      },
    },
  };
}

function dashboard(rng: Prng, panels: number): string {
  const rows = Array.from({ length: panels }, (_, i) => ({
    id: i + 1,
    title: sentence(rng, 4),
    type: 'timeseries',
    datasource: { type: 'prometheus', uid: '$datasource' },
    targets: [
      {
        expr: `sum by (namespace) (rate(container_cpu_usage_seconds_total{job="${rng.pick(WORDS)}"}[5m]))`,
        legendFormat: '{{namespace}}',
      },
    ],
    description: sentence(rng, 20 + rng.int(20)),
    gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
  }));
  return JSON.stringify({ title: sentence(rng, 3), uid: rng.hex(12), panels: rows, schemaVersion: 39 }, null, 2);
}

interface Doc {
  obj: Obj;
  excluded: boolean;
}
interface FileSpec {
  name: string;
  docs: Doc[];
}

function kebab(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function componentFiles(comp: Component, rng: Prng, size: number, images: Map<string, string>): FileSpec[] {
  const files: FileSpec[] = [];
  const sep = comp.dash ? '-' : '_';
  const prefix = `0000_${comp.level}_${comp.name}_`;
  const f = (nn: string, rest: string, docs: Doc[]): void => {
    files.push({ name: `${prefix}${nn}${sep}${rest}`, docs });
  };
  const inc = (obj: Obj): Doc => ({ obj, excluded: false });
  const short = comp.name.replace(/^cluster-/, '');
  const image = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${rng.hex(64)}`;
  images.set(short, image);

  const ns: Obj = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: comp.namespace,
      annotations: annotations(comp, rng, {
        'openshift.io/node-selector': '',
        'workload.openshift.io/allowed': 'management',
      }),
      labels: { 'openshift.io/cluster-monitoring': 'true', 'pod-security.kubernetes.io/enforce': 'privileged' },
    },
  };
  const rbac = (name: string): Doc[] => [
    inc({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, annotations: annotations(comp, rng) },
      rules: Array.from({ length: 3 + rng.int(8) }, () => ({
        apiGroups: [rng.pick(['', 'apps', 'config.openshift.io', 'operator.openshift.io', 'monitoring.coreos.com'])],
        resources: [rng.pick(WORDS) + 's'],
        verbs: ['get', 'list', 'watch', ...(rng.chance(0.5) ? ['create', 'update', 'patch', 'delete'] : [])],
      })),
    }),
    inc({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, annotations: annotations(comp, rng) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: comp.name, namespace: comp.namespace }],
    }),
  ];

  switch (comp.flavor) {
    case 'crds': {
      const n = 3 + rng.int(6);
      for (let i = 0; i < n; i++) {
        const kind = `${rng.pick(WORDS).replace(/^./, (c) => c.toUpperCase())}${rng.pick(WORDS).replace(/^./, (c) => c.toUpperCase())}${i}`;
        const group = rng.pick([
          'config.openshift.io',
          'operator.openshift.io',
          'machine.openshift.io',
          'operators.coreos.com',
          'quota.openshift.io',
        ]);
        const extra: Obj = {};
        let excluded = false;
        const roll = rng.next();
        if (roll < 0.12) {
          extra['release.openshift.io/feature-set'] = 'TechPreviewNoUpgrade';
          excluded = true;
        } else if (roll < 0.2) {
          extra['release.openshift.io/feature-set'] = 'Default,OKD';
        } else if (roll < 0.24) {
          extra['release.openshift.io/feature-set'] = 'CustomNoUpgrade,DevPreviewNoUpgrade,TechPreviewNoUpgrade';
          excluded = true;
        }
        const doc = crd(comp, rng, kind, group, Math.max(2, Math.round(size * (8 + rng.int(16)))));
        const meta = doc['metadata'] as Obj;
        meta['annotations'] = { ...(meta['annotations'] as Obj), ...extra };
        const fsSuffix = excluded ? '-TechPreviewNoUpgrade' : '';
        f(`0${i % 10}`, `${kebab(kind)}s${fsSuffix}.crd.yaml`, [{ obj: doc, excluded }]);
      }
      if (rng.chance(0.3)) {
        // a real-looking non-matching name: no "_" after the component
        files.push({
          name: `0000_${comp.level}_${comp.name}.crd-manifests.yaml`,
          docs: [inc(crd(comp, rng, `Extra${comp.level}`, 'config.openshift.io', size * 4))],
        });
      }
      break;
    }
    case 'small': {
      f('00', 'namespace.yaml', [inc(ns)]);
      f('01', 'configmap.yaml', [
        inc({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${short}-config`, namespace: comp.namespace, annotations: annotations(comp, rng) },
          data: {
            'config.yaml': stringify({
              apiVersion: 'operator.openshift.io/v1alpha1',
              kind: 'GenericOperatorConfig',
              servingInfo: { bindAddress: '0.0.0.0:8443' },
            }),
          },
        }),
      ]);
      f('02', 'rbac.yaml', rbac(`system:openshift:operator:${short}`));
      if (rng.chance(0.5)) {
        f('03', 'hypershift-only.yaml', [
          {
            obj: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: `${short}-hypershift`,
                namespace: comp.namespace,
                annotations: { 'include.release.openshift.io/hypershift': 'true' },
              },
              data: { mode: 'hosted' },
            },
            excluded: true,
          },
        ]);
      }
      break;
    }
    case 'monitoring': {
      f('01', 'prometheusrbac.yaml', [
        inc({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'prometheus-k8s', namespace: comp.namespace, annotations: annotations(comp, rng) },
          rules: [{ apiGroups: [''], resources: ['services', 'endpoints', 'pods'], verbs: ['get', 'list', 'watch'] }],
        }),
        inc({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'prometheus-k8s', namespace: comp.namespace, annotations: annotations(comp, rng) },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'prometheus-k8s' },
          subjects: [{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'openshift-monitoring' }],
        }),
      ]);
      f('02', 'servicemonitor.yaml', [
        inc({
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'ServiceMonitor',
          metadata: { name: short, namespace: comp.namespace, annotations: annotations(comp, rng) },
          spec: {
            endpoints: [
              {
                interval: '30s',
                port: 'https',
                scheme: 'https',
                tlsConfig: { serverName: `metrics.${comp.namespace}.svc` },
              },
            ],
            selector: { matchLabels: { app: short } },
          },
        }),
      ]);
      f('03', 'prometheusrule.yaml', [
        inc({
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'PrometheusRule',
          metadata: { name: `${short}-rules`, namespace: comp.namespace, annotations: annotations(comp, rng) },
          spec: {
            groups: Array.from({ length: 2 + rng.int(4) }, (_, g) => ({
              name: `${short}.rules.${g}`,
              rules: Array.from({ length: 3 + rng.int(8) }, (_, r) => ({
                alert: `${short.replace(/-./g, (m) => m.charAt(1).toUpperCase())}Alert${g}${r}`,
                expr: `sum(rate(${rng.pick(WORDS)}_total{namespace="${comp.namespace}"}[5m])) > ${rng.int(100)}`,
                for: '10m',
                labels: { severity: rng.pick(['warning', 'critical', 'info']) },
                annotations: { summary: sentence(rng, 8), description: sentence(rng, 30 + rng.int(30)) },
              })),
            })),
          },
        }),
      ]);
      if (rng.chance(0.6)) {
        f('04', 'dashboard.yaml', [
          inc({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: `grafana-dashboard-${short}`,
              namespace: 'openshift-config-managed',
              annotations: annotations(comp, rng),
              labels: { 'console.openshift.io/dashboard': 'true' },
            },
            data: { [`${short}.json`]: dashboard(rng, Math.max(2, Math.round(size * (10 + rng.int(30))))) },
          }),
        ]);
      }
      break;
    }
    case 'operator': {
      f('00', 'namespace.yaml', [inc(ns)]);
      f('01', 'serviceaccount.yaml', [
        inc({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: comp.name, namespace: comp.namespace, annotations: annotations(comp, rng) },
        }),
      ]);
      f('02', 'rbac.yaml', rbac(`system:openshift:operator:${short}`));
      f('03', 'config.yaml', [
        inc({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${comp.name}-config`, namespace: comp.namespace, annotations: annotations(comp, rng) },
          data: {
            'config.yaml': stringify({
              apiVersion: 'operator.openshift.io/v1alpha1',
              kind: 'GenericOperatorConfig',
              leaderElection: { namespace: comp.namespace },
            }),
          },
        }),
        inc({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'trusted-ca',
            namespace: comp.namespace,
            annotations: annotations(comp, rng, { 'release.openshift.io/create-only': 'true' }),
            labels: { 'config.openshift.io/inject-trusted-cabundle': 'true' },
          },
        }),
      ]);
      f('04', 'service.yaml', [
        inc({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: 'metrics',
            namespace: comp.namespace,
            annotations: annotations(comp, rng, {
              'service.beta.openshift.io/serving-cert-secret-name': `${short}-serving-cert`,
            }),
          },
          spec: { ports: [{ name: 'https', port: 8443, targetPort: 8443 }], selector: { name: comp.name } },
        }),
      ]);
      if (rng.chance(0.5)) {
        const kind = short.replace(/-operator$/, '').replace(/(^|-)(.)/g, (_m, _d, c: string) => c.toUpperCase());
        f('05', `${kind.toLowerCase()}.crd.yaml`, [
          inc(crd(comp, rng, kind, 'operator.openshift.io', Math.max(2, Math.round(size * (8 + rng.int(16)))))),
        ]);
      }
      f('06', 'deployment.yaml', [inc(deployment(comp, rng, comp.name, image))]);
      f('07', 'clusteroperator.yaml', [
        inc({
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterOperator',
          metadata: { name: short.replace(/-operator$/, ''), annotations: annotations(comp, rng) },
          spec: {},
          status: {
            versions: [{ name: 'operator', version: '0.0.1-snapshot' }],
            relatedObjects: [{ group: '', resource: 'namespaces', name: comp.namespace }],
          },
        }),
      ]);
      if (rng.chance(0.25)) {
        f('08', 'techpreview-configmap.yaml', [
          {
            obj: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: `${short}-techpreview`,
                namespace: comp.namespace,
                annotations: annotations(comp, rng, { 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade' }),
              },
              data: { enabled: 'true' },
            },
            excluded: true,
          },
        ]);
      }
      break;
    }
  }
  return files;
}

function jobFile(comp: Component, rng: Prng, nn: string, what: string): FileSpec {
  const name = `${comp.name}-${what}`;
  return {
    name: `0000_${comp.level}_${comp.name}_${nn}_${what}-job.yaml`,
    docs: [
      {
        excluded: false,
        obj: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name, namespace: comp.namespace, annotations: annotations(comp, rng) },
          spec: {
            backoffLimit: 6,
            template: {
              metadata: { name },
              spec: {
                restartPolicy: 'OnFailure',
                serviceAccountName: comp.name,
                containers: [
                  {
                    name: what,
                    image: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${rng.hex(64)}`,
                    command: ['/usr/bin/migrate', `--${what}`],
                  },
                ],
              },
            },
          },
        },
      },
    ],
  };
}

function cvoManifests(version: string): Record<string, string> {
  const ann =
    'include.release.openshift.io/self-managed-high-availability: "true"\n    include.release.openshift.io/single-node-developer: "true"';
  return {
    '0000_00_cluster-version-operator_00_namespace.yaml': `apiVersion: v1
kind: Namespace
metadata:
  name: openshift-cluster-version
  annotations:
    ${ann}
    openshift.io/node-selector: ""
  labels:
    openshift.io/cluster-monitoring: "true"
`,
    '0000_00_cluster-version-operator_01_clusterversion.crd.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterversions.config.openshift.io
  annotations:
    ${ann}
spec:
  group: config.openshift.io
  names:
    kind: ClusterVersion
    plural: clusterversions
    singular: clusterversion
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`,
    '0000_00_cluster-version-operator_02_roles.yaml': `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-version-operator
  annotations:
    ${ann}
roleRef:
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  namespace: openshift-cluster-version
  name: default
`,
    '0000_00_cluster-version-operator_03_deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
  annotations:
    ${ann}
    kubernetes.io/description: The cluster-version operator manages OpenShift updates and reconciles core CVO-managed resources.
spec:
  selector:
    matchLabels:
      k8s-app: cluster-version-operator
  strategy:
    type: Recreate
  template:
    metadata:
      labels:
        k8s-app: cluster-version-operator
    spec:
      containers:
      - name: cluster-version-operator
        image: '{{.ReleaseImage}}'
        imagePullPolicy: IfNotPresent
        args:
        - start
        - --release-image={{.ReleaseImage}}
        - --listen=0.0.0.0:9099
        - --v=2
        env:
        - name: CLUSTER_PROFILE
          value: {{.ClusterProfile}}
        - name: RELEASE_VERSION
          value: "${version}"
      hostNetwork: true
      nodeSelector:
        node-role.kubernetes.io/master: ""
      priorityClassName: system-cluster-critical
`,
  };
}

/**
 * Writes a deterministic, realistic synthetic OpenShift release directory to `out`:
 * `release-manifests/` (about 900 manifests over about 60 components, run levels 00–90, real-style file
 * names plus a few that do not match the CVO's `0000_NN_component_` pattern, Jobs, multi-document
 * files, CRDs, ClusterOperators, Deployments, ConfigMaps; about 17 MB), `release-manifests/image-references`
 * (ImageStream JSON), `release-manifests/release-metadata` (cincinnati-metadata-v0) and `manifests/`
 * (the CVO's own, templated manifests).
 */
export async function generatePayload(options: GeneratePayloadOptions): Promise<GeneratePayloadResult> {
  const seed = options.seed ?? 1;
  const version = options.version ?? '4.18.7';
  const count = Math.min(CATALOGUE.length, Math.max(1, options.components ?? CATALOGUE.length));
  const size = options.sizeFactor ?? 1;
  if (!Number.isInteger(seed)) throw new TypeError(`generatePayload: seed must be an integer, got ${seed}`);
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    throw new TypeError(`generatePayload: version ${version} is not a semantic version`);
  if (!(size > 0)) throw new TypeError(`generatePayload: sizeFactor must be > 0, got ${size}`);
  const rng = new Prng(seed);

  const releaseDir = join(options.out, 'release-manifests');
  const cvoDir = join(options.out, 'manifests');
  await rm(releaseDir, { recursive: true, force: true });
  await rm(cvoDir, { recursive: true, force: true });
  await mkdir(releaseDir, { recursive: true });
  await mkdir(cvoDir, { recursive: true });

  const images = new Map<string, string>();
  const files: FileSpec[] = [];
  // Components beyond the first `count` are dropped from the end of the catalogue, keeping level 00.
  const names = options.componentNames;
  if (names !== undefined) {
    const unknown = names.filter((n) => !CATALOGUE.some((c) => c[1] === n));
    if (unknown.length > 0) throw new TypeError(`generatePayload: unknown component(s) ${unknown.join(', ')}`);
  }
  const chosen = names !== undefined ? CATALOGUE.filter((c) => names.includes(c[1])) : CATALOGUE.slice(0, count);
  const minManifests = options.minManifests ?? 900;
  const withJobs = options.jobs ?? true;
  chosen.forEach(([level, name, namespace, flavor, capability], i) => {
    const comp: Component = {
      level,
      name,
      namespace,
      flavor,
      dash: i % 3 === 1,
      ...(capability !== undefined ? { capability } : {}),
    };
    files.push(...componentFiles(comp, rng, size, images));
    if (
      withJobs &&
      flavor === 'operator' &&
      (name === 'machine-api-operator' ||
        name === 'cluster-image-registry-operator' ||
        name === 'insights-operator' ||
        name === 'etcd-operator')
    ) {
      files.push(jobFile(comp, rng, '09', 'migrate'));
    }
  });
  // Bulk per-component "operand" manifests, to reach the size of a real payload.
  let docs = files.reduce((n, f) => n + f.docs.length, 0);
  let k = 0;
  while (docs < minManifests) {
    const [level, name, namespace, flavor, capability] = chosen[k % chosen.length] ?? [
      '00',
      'cluster-version-operator',
      'openshift-cluster-version',
      'small',
    ];
    k++;
    if (flavor === 'crds') continue;
    const comp: Component = {
      level,
      name,
      namespace,
      flavor,
      dash: false,
      ...(capability !== undefined ? { capability } : {}),
    };
    const n = 2 + rng.int(3);
    const nn = String(10 + Math.floor(k / chosen.length)).padStart(2, '0');
    const docsHere: Doc[] = Array.from({ length: n }, (_, d) => ({
      excluded: false,
      obj: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-operand-${nn}-${d}`, namespace, annotations: annotations(comp, rng) },
        data: {
          'operand.yaml': stringify({
            description: sentence(rng, 40),
            settings: schemaProps(rng, 1, Math.max(2, Math.round(size * 13))),
          }),
        },
      },
    }));
    files.push({ name: `0000_${level}_${name}_${nn}_operands.yaml`, docs: docsHere });
    docs += n;
  }
  // A couple of files that carry no run level at all.
  files.push({
    name: 'zz_openshift-install-extra-manifests.yaml',
    docs: [
      {
        excluded: false,
        obj: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'install-extras', namespace: 'openshift-config', annotations: { ...PROFILE_ANNOTATIONS } },
          data: { note: sentence(rng, 10) },
        },
      },
    ],
  });

  const byName = new Map<string, FileSpec>();
  for (const file of files) {
    const existing = byName.get(file.name);
    if (existing === undefined) byName.set(file.name, file);
    else existing.docs.push(...file.docs);
  }

  let bytes = 0;
  let manifests = 0;
  let jobs = 0;
  let multi = 0;
  let excluded = 0;
  for (const file of byName.values()) {
    const text = file.docs.map((d) => stringify(d.obj, { lineWidth: 0 })).join('---\n');
    const content = file.docs.length > 1 && rng.chance(0.2) ? `---\n${text}` : text;
    await writeFile(join(releaseDir, file.name), content);
    bytes += Buffer.byteLength(content);
    manifests += file.docs.length;
    if (file.docs.length > 1) multi++;
    for (const d of file.docs) {
      if (d.obj['kind'] === 'Job') jobs++;
      if (d.excluded) excluded++;
    }
  }

  const imageStream = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version, creationTimestamp: null },
    spec: {
      lookupPolicy: { local: false },
      tags: [...images.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, image]) => ({
          name,
          annotations: {
            'io.openshift.build.commit.id': rng.hex(40),
            'io.openshift.build.source-location': `https://github.com/openshift/${name}`,
          },
          from: { kind: 'DockerImage', name: image },
          generation: null,
          importPolicy: {},
          referencePolicy: { type: '' },
        })),
    },
    status: { dockerImageRepository: '' },
  };
  const imageRefs = JSON.stringify(imageStream, null, 2) + '\n';
  const [major, minor] = version.split('.').map(Number);
  const metadata = {
    kind: 'cincinnati-metadata-v0',
    version,
    previous: Array.from({ length: 6 }, (_, i) => `${major}.${(minor ?? 1) - 1}.${i * 3 + 2}`),
    metadata: {
      url: `https://access.redhat.com/errata/RHSA-2026:${1000 + rng.int(9000)}`,
      // no release.openshift.io/architecture: a single-arch release leaves it out (only "multi" is valid there)
      'io.openshift.upgrades.graph.release.channels': `candidate-${major}.${minor},fast-${major}.${minor},stable-${major}.${minor}`,
    },
  };
  const metaText = JSON.stringify(metadata, null, 2) + '\n';
  await writeFile(join(releaseDir, 'image-references'), imageRefs);
  await writeFile(join(releaseDir, 'release-metadata'), metaText);
  bytes += Buffer.byteLength(imageRefs) + Buffer.byteLength(metaText);

  const cvo = cvoManifests(version);
  for (const [name, text] of Object.entries(cvo)) {
    await writeFile(join(cvoDir, name), text);
    bytes += Buffer.byteLength(text);
  }

  return {
    files: byName.size,
    manifests,
    jobs,
    multiDocumentFiles: multi,
    excluded,
    components: new Set(chosen.map((c) => c[1])).size,
    bytes,
    cvoManifests: Object.keys(cvo).length,
  };
}
