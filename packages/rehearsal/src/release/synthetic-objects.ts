/** The objects of the synthetic release (see ./synthetic-payload.ts): CRDs, Deployments, dashboards, annotations. */
import { Prng, sentence, WORDS } from './synthetic-random.js';

export type Flavor = 'operator' | 'crds' | 'small' | 'monitoring';
export interface Component {
  level: string;
  name: string;
  namespace: string;
  flavor: Flavor;
  capability?: string;
  /** Use `NN-name` file suffixes (as several real operators do) instead of `NN_name`. */
  dash: boolean;
}

export type Obj = Record<string, unknown>;

export const PROFILE_ANNOTATIONS: Obj = {
  'include.release.openshift.io/self-managed-high-availability': 'true',
  'include.release.openshift.io/single-node-developer': 'true',
};

export function annotations(comp: Component, rng: Prng, extra: Obj = {}): Obj {
  const a: Obj = { ...PROFILE_ANNOTATIONS };
  if (rng.chance(0.6)) a['include.release.openshift.io/ibm-cloud-managed'] = 'true';
  if (comp.capability !== undefined) a['capability.openshift.io/name'] = comp.capability;
  return { ...a, ...extra };
}

export function schemaProps(rng: Prng, depth: number, width: number): Obj {
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

export function crd(comp: Component, rng: Prng, kind: string, group: string, size: number): Obj {
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

export function deployment(comp: Component, rng: Prng, name: string, image: string): Obj {
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

export function dashboard(rng: Prng, panels: number): string {
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

export interface Doc {
  obj: Obj;
  excluded: boolean;
}
export interface FileSpec {
  name: string;
  docs: Doc[];
}

export function kebab(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
