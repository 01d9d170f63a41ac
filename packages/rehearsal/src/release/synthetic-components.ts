/**
 * The files of one component of the synthetic release (see ./synthetic-payload.ts), by flavour: a CRD bundle, a small
 * operator, a monitoring component, a full operator; its migration Job and the bulk operand ConfigMaps.
 */
import { stringify } from 'yaml';
import {
  annotations,
  crd,
  dashboard,
  deployment,
  kebab,
  type Component,
  type Doc,
  type FileSpec,
  type Flavor,
  type Obj,
} from './synthetic-objects.js';
import { Prng, sentence, WORDS } from './synthetic-random.js';

/** What a flavour's builder works with: the component, the PRNG, the size factor, and where its files go. */
interface Build {
  comp: Component;
  rng: Prng;
  size: number;
  files: FileSpec[];
  /** Adds the file `0000_<level>_<component>_<nn><sep><rest>`. */
  f: (nn: string, rest: string, docs: Doc[]) => void;
  /** The component's name without `cluster-`. */
  short: string;
  /** The component's image pull spec. */
  image: string;
  /** The component's Namespace. */
  ns: Obj;
  /** A ClusterRole and its ClusterRoleBinding to the component's ServiceAccount. */
  rbac: (name: string) => Doc[];
}

/** A document the CVO includes. */
const inc = (obj: Obj): Doc => ({ obj, excluded: false });

/** CRDs only (some of a feature set the default excludes), now and then a file of a name without `_`. */
function crdsFiles(b: Build): void {
  const { comp, rng, size, f, files } = b;
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
}

/** Namespace, config, RBAC; half the time a HyperShift-only ConfigMap (excluded). */
function smallFiles(b: Build): void {
  const { comp, rng, f, short, ns, rbac } = b;
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
}

/** Prometheus RBAC, ServiceMonitor, PrometheusRule; often a console dashboard. */
function monitoringFiles(b: Build): void {
  const { comp, rng, size, f, short } = b;
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
}

/** A full operator: Namespace, ServiceAccount, RBAC, config, Service, CRD, Deployment, ClusterOperator. */
function operatorFiles(b: Build): void {
  const { comp, rng, size, f, short, image, ns, rbac } = b;
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
}

const FLAVOURS: Readonly<Record<Flavor, (b: Build) => void>> = {
  crds: crdsFiles,
  small: smallFiles,
  monitoring: monitoringFiles,
  operator: operatorFiles,
};

/** The files of one catalogue component, built by its flavour; its image recorded in `images`. */
export function componentFiles(comp: Component, rng: Prng, size: number, images: Map<string, string>): FileSpec[] {
  const files: FileSpec[] = [];
  const sep = comp.dash ? '-' : '_';
  const prefix = `0000_${comp.level}_${comp.name}_`;
  const f = (nn: string, rest: string, docs: Doc[]): void => {
    files.push({ name: `${prefix}${nn}${sep}${rest}`, docs });
  };
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

  FLAVOURS[comp.flavor]({ comp, rng, size, files, f, short, image, ns, rbac });
  return files;
}

/** A migration Job a few operators ship. */
export function jobFile(comp: Component, rng: Prng, nn: string, what: string): FileSpec {
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
