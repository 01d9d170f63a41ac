/** Table tests of the per-kind merges (upstream lib/resourcemerge semantics). */
import { describe, expect, it } from 'vitest';
import { builderFor, typedKinds } from '../src/resources/registry.js';
import { deepEqual, overlay } from '../src/resources/merge-core.js';
import {
  mergeConfigMap,
  mergeCrd,
  mergeDeployment,
  mergeGeneric,
  mergeObjectMeta,
  mergePodSpec,
  mergeServiceAccount,
  stripUndefined,
} from '../src/resources/merge.js';
import { deleteRequested, withOwner } from '../src/resources/apply.js';
import { defaultVolume, ensureContainer, ensurePodSpec } from '../src/resources/merge-pod.js';
import { parseQuantity, quantityEqual, semanticEqual } from '../src/resources/semantic.js';

type J = Record<string, unknown>;
const meta = (extra: J = {}): J => ({ name: 'x', namespace: 'ns', ...extra });

describe('registry', () => {
  it('has a typed builder for the 17 upstream resourcebuilder kinds plus ClusterOperator, a generic one for the rest', () => {
    expect(typedKinds()).toHaveLength(18);
    // the ClusterOperator builder is in the registry with its own procedure (upstream pkg/cvo/internal/operatorstatus.go)
    expect(builderFor('config.openshift.io', 'v1', 'ClusterOperator').run).toBeTypeOf('function');
    expect(builderFor('apps', 'v1', 'Deployment').run).toBeUndefined();
    expect(builderFor('apps', 'v1', 'Deployment').typed).toBe(true);
    expect(builderFor('', 'v1', 'Secret').typed).toBe(false);
    expect(builderFor('monitoring.coreos.com', 'v1', 'ServiceMonitor').typed).toBe(false);
  });
});

describe('metadata', () => {
  const cases: { name: string; live: J; required: J; want: J }[] = [
    {
      name: 'labels and annotations merged, keys never removed',
      live: { name: 'x', labels: { a: '1', keep: 'k' }, annotations: { z: '1' } },
      required: { name: 'x', labels: { a: '2' } },
      want: { name: 'x', labels: { a: '2', keep: 'k' }, annotations: { z: '1' } },
    },
    {
      name: 'owner references merged by UID',
      live: { name: 'x', ownerReferences: [{ uid: 'u1', kind: 'A', name: 'a' }] },
      required: {
        name: 'x',
        ownerReferences: [
          { uid: 'u2', kind: 'CV', name: 'version' },
          { uid: 'u1', kind: 'A', name: 'renamed' },
        ],
      },
      want: {
        name: 'x',
        ownerReferences: [
          { uid: 'u1', kind: 'A', name: 'renamed' },
          { uid: 'u2', kind: 'CV', name: 'version' },
        ],
      },
    },
    {
      name: 'empty namespace does not clear',
      live: { name: 'x', namespace: 'ns' },
      required: { name: 'x', namespace: '' },
      want: { name: 'x', namespace: 'ns' },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      expect(mergeObjectMeta(c.live, c.required)).toEqual(c.want);
    });
});

describe('kinds', () => {
  it('ConfigMap data merged key-wise', () => {
    const out = mergeConfigMap(
      { metadata: meta(), data: { a: '1', extra: 'x' } },
      { metadata: meta(), data: { a: '2' } },
    );
    expect(out['data']).toEqual({ a: '2', extra: 'x' });
  });
  it('Deployment replicas reset to 1 when the manifest has none', () => {
    const live = {
      metadata: meta(),
      spec: {
        replicas: 3,
        selector: { matchLabels: { a: 'b' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          spec: {
            dnsPolicy: 'ClusterFirst',
            terminationGracePeriodSeconds: 30,
            containers: [{ name: 'c', image: 'i', imagePullPolicy: 'IfNotPresent' }],
          },
        },
      },
    };
    const out = stripUndefined(
      mergeDeployment(live, {
        metadata: meta(),
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      }),
    );
    expect((out['spec'] as J)['replicas']).toBe(1);
    // the defaulted strategy and imagePullPolicy are not diffs
    expect((out['spec'] as J)['strategy']).toEqual(live.spec.strategy);
    expect(deepEqual(stripUndefined({ ...live, spec: { ...live.spec, replicas: 1 } }), out)).toBe(true);
  });
  it('Deployment strategy Recreate replaces the defaulted RollingUpdate', () => {
    const live = {
      metadata: meta(),
      spec: {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {},
      },
    };
    const out = mergeDeployment(live, { metadata: meta(), spec: { strategy: { type: 'Recreate' }, template: {} } });
    expect((out['spec'] as J)['strategy']).toEqual({ type: 'Recreate' });
  });
  it('containers matched by name: extra live ones removed, missing appended, live order kept, env replaced', () => {
    const live = {
      containers: [
        {
          name: 'b',
          image: 'old',
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
          terminationMessagePath: '/dev/termination-log',
        },
        { name: 'gone', image: 'g' },
        { name: 'a', image: 'a1' },
      ],
    };
    const out = mergePodSpec(live, {
      containers: [
        { name: 'a', image: 'a2' },
        { name: 'b', image: 'new', env: [{ name: 'X', value: '1' }] },
        { name: 'c', image: 'c' },
      ],
    });
    expect(out['containers']).toEqual([
      { name: 'b', image: 'new', env: [{ name: 'X', value: '1' }], terminationMessagePath: '/dev/termination-log' },
      { name: 'a', image: 'a2' },
      { name: 'c', image: 'c' },
    ]);
  });
  it('env compared as the server defaults it: fieldRef apiVersion v1, resourceFieldRef divisor (upstream ensureEnvVar)', () => {
    const env = [
      { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
    ];
    const served = [
      { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
      { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '0' } } },
    ];
    // as kube-apiserver stores it (the pod-spec defaults upstream's ensurePodSpec also compares after defaulting)
    const live = {
      containers: [{ name: 'c', image: 'i', env: served }],
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
    };
    expect(deepEqual(mergePodSpec(live, { containers: [{ name: 'c', image: 'i', env }] }), live)).toBe(true);
    expect(env[0]!.valueFrom.fieldRef).toEqual({ fieldPath: 'spec.nodeName' });
  });
  it('ServiceAccount keeps server-managed secrets', () => {
    const out = mergeServiceAccount(
      { metadata: meta(), secrets: [{ name: 'tok' }] },
      { metadata: meta(), automountServiceAccountToken: false },
    );
    expect(out).toMatchObject({ secrets: [{ name: 'tok' }], automountServiceAccountToken: false });
  });
  it('CRD spec set after defaulting names; a live injected caBundle is kept', () => {
    const liveSpec = {
      group: 'g',
      names: { kind: 'Foo', plural: 'foos', singular: 'foo', listKind: 'FooList' },
      scope: 'Namespaced',
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { caBundle: 'LIVE', service: { name: 's', namespace: 'n' } } },
      },
    };
    const live = {
      metadata: { name: 'foos.g', annotations: { 'service.beta.openshift.io/inject-cabundle': 'true' } },
      spec: liveSpec,
    };
    const out = mergeCrd(live, {
      metadata: { name: 'foos.g' },
      spec: {
        group: 'g',
        names: { kind: 'Foo', plural: 'foos' },
        scope: 'Namespaced',
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'n' } } } },
      },
    });
    expect(deepEqual(out, live)).toBe(true);
  });
  it('generic kinds: unchanged after server defaulting -> no diff; changed -> manifest keys and labels replace', () => {
    const live = {
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'a', labels: { l: '1' }, resourceVersion: '5' },
      spec: { a: 1, defaulted: true },
      status: { s: 1 },
    };
    expect(
      mergeGeneric(live, {
        apiVersion: 'x/v1',
        kind: 'K',
        metadata: { name: 'a', labels: { l: '1' } },
        spec: { a: 1 },
      }),
    ).toBe(live);
    const out = mergeGeneric(live, {
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'a', labels: { m: '2' } },
      spec: { a: 2 },
    });
    expect(out).toMatchObject({
      spec: { a: 2 },
      metadata: { name: 'a', labels: { m: '2' }, resourceVersion: '5' },
      status: { s: 1 },
    });
    expect((out['spec'] as J)['defaulted']).toBeUndefined();
  });
  it('overlay keeps server defaults inside list items of the same length', () => {
    expect(overlay([{ port: 80, protocol: 'TCP' }], [{ port: 80 }])).toEqual([{ port: 80, protocol: 'TCP' }]);
    expect(overlay([{ port: 80, protocol: 'TCP' }], [{ port: 80 }, { port: 81 }])).toEqual([
      { port: 80 },
      { port: 81 },
    ]);
  });
});

describe('annotations', () => {
  it('release.openshift.io/delete must be "true" or absent', () => {
    expect(deleteRequested({ 'release.openshift.io/delete': 'true' })).toBe(true);
    expect(deleteRequested({})).toBe(false);
    expect(() => deleteRequested({ 'release.openshift.io/delete': 'yes' })).toThrow(
      'invalid delete annotation "release.openshift.io/delete" value: "yes"',
    );
  });
  it('owner reference: ClusterVersion controller ref, not controller for create-only, kept foreign owners', () => {
    const owner = { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: 'version', uid: 'u' };
    expect(withOwner({ metadata: { name: 'a' } }, owner, false)).toEqual({
      metadata: { name: 'a', ownerReferences: [{ ...owner, controller: true }] },
    });
    expect(withOwner({ metadata: { name: 'a' } }, owner, true)).toEqual({
      metadata: { name: 'a', ownerReferences: [owner] },
    });
    const foreign = { metadata: { name: 'a', ownerReferences: [{ kind: 'Other', uid: 'o' }] } };
    expect(withOwner(foreign, owner, false)).toBe(foreign);
  });
});

describe('pod spec as upstream lib/resourcemerge core.go (compare after defaulting)', () => {
  const defaulted = { dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 };
  it('ensureEnvVar: fieldRef.apiVersion defaulted to v1 before comparing; a different list replaces the live one', () => {
    const live = {
      name: 'c',
      env: [{ name: 'N', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
    };
    expect(
      ensureContainer(
        live,
        { name: 'c', env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] },
        false,
      ),
    ).toEqual(live);
    expect(ensureContainer(live, { name: 'c', env: [{ name: 'X', value: '1' }] }, false)['env']).toEqual([
      { name: 'X', value: '1' },
    ]);
  });
  it('ports by name with protocol TCP and hostPort = containerPort on the host network; probes with default timings', () => {
    const live = {
      name: 'c',
      ports: [{ name: 'm', containerPort: 9001, hostPort: 9001, protocol: 'TCP' }],
      livenessProbe: {
        httpGet: { path: '/healthz', port: 9001, scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
    };
    const req = {
      name: 'c',
      ports: [{ name: 'm', containerPort: 9001 }],
      livenessProbe: { httpGet: { path: '/healthz', port: 9001 } },
    };
    expect(ensureContainer(live, req, true)).toEqual(live);
    expect(
      ensureContainer(live, { ...req, livenessProbe: { httpGet: { path: '/readyz', port: 9001 } } }, true)[
        'livenessProbe'
      ],
    ).toMatchObject({ httpGet: { path: '/readyz', scheme: 'HTTP' }, timeoutSeconds: 1 });
  });
  it('fields upstream does not compare (imagePullPolicy, terminationMessagePath, schedulerName) are left as the server set them', () => {
    const live = {
      ...defaulted,
      schedulerName: 'default-scheduler',
      containers: [
        { name: 'c', image: 'i', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' },
      ],
    };
    expect(ensurePodSpec(live, { containers: [{ name: 'c', image: 'i' }] })).toEqual(live);
  });
  it('dnsPolicy ClusterFirst and terminationGracePeriodSeconds 30 are the defaults compared against', () => {
    expect(ensurePodSpec({ containers: [] }, {})).toMatchObject(defaulted);
    expect(ensurePodSpec({ ...defaulted, dnsPolicy: 'Default' }, {})).toMatchObject({ dnsPolicy: 'ClusterFirst' });
  });
  it('tolerations: required ones appended when missing, extra live ones kept, duplicates dropped', () => {
    const t = { key: 'a', operator: 'Exists' };
    expect(
      ensurePodSpec(
        { ...defaulted, tolerations: [{ key: 'x', operator: 'Exists' }, t, t] },
        { tolerations: [t, { key: 'b', operator: 'Exists' }] },
      )['tolerations'],
    ).toEqual([{ key: 'x', operator: 'Exists' }, t, { key: 'b', operator: 'Exists' }]);
  });
  it('volumes: defaultMode 420, hostPath type "", emptyDir when no source; volumeMounts by mountPath', () => {
    expect(defaultVolume({ name: 's', secret: { secretName: 'x' } })).toEqual({
      name: 's',
      secret: { secretName: 'x', defaultMode: 420 },
    });
    expect(defaultVolume({ name: 'h', hostPath: { path: '/' } })).toEqual({
      name: 'h',
      hostPath: { path: '/', type: '' },
    });
    expect(defaultVolume({ name: 'e' })).toEqual({ name: 'e', emptyDir: {} });
    const live = {
      ...defaulted,
      volumes: [{ name: 'h', hostPath: { path: '/', type: '' } }],
      containers: [
        {
          name: 'c',
          volumeMounts: [
            { name: 'h', mountPath: '/rootfs' },
            { name: 'h', mountPath: '/extra' },
          ],
        },
      ],
    };
    const out = ensurePodSpec(live, {
      volumes: [{ name: 'h', hostPath: { path: '/' } }],
      containers: [{ name: 'c', volumeMounts: [{ name: 'h', mountPath: '/rootfs' }] }],
    });
    expect(out['volumes']).toEqual(live.volumes);
    expect(out['containers']).toEqual([{ name: 'c', volumeMounts: [{ name: 'h', mountPath: '/rootfs' }] }]);
  });
  it('resource quantities compare by value; Semantic equality treats absent and empty alike', () => {
    expect(quantityEqual('1000m', '1')).toBe(true);
    expect(quantityEqual('1Gi', '1073741824')).toBe(true);
    expect(quantityEqual('0.02', '20m')).toBe(true);
    expect(quantityEqual('50Mi', '50M')).toBe(false);
    expect(parseQuantity('1e3')).toEqual({ num: 1000n, den: 1n });
    expect(parseQuantity('12x')).toBeUndefined();
    expect(semanticEqual({ a: [] }, {})).toBe(true);
    expect(semanticEqual({ a: [1] }, {})).toBe(false);
  });
});
