import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatCheck, isDateTime, isDuration } from '../src/formats.js';
import { installOpenShiftCrds } from '../src/index.js';
import { sandbox, type Client } from './helpers.js';

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });

let c: Client;
beforeAll(async () => {
  c = await sandbox();
  await installOpenShiftCrds(c.sb, ['ClusterVersion', 'ControllerConfig']);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    data: { type: 'string', format: 'byte' },
                    when: { type: 'string', format: 'date-time' },
                    day: { type: 'string', format: 'date' },
                    id: { type: 'string', format: 'uuid' },
                    count: { type: 'integer', format: 'int32' },
                    odd: { type: 'string', format: 'no-such-format' },
                    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['port', 'protocol'],
                      items: {
                        type: 'object',
                        properties: { port: { type: 'integer' }, protocol: { type: 'string' } },
                      },
                    },
                    owners: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: { type: 'object', properties: { name: { type: 'string' } } },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  expect((await c.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
});
afterAll(async () => {
  await c.sb.stop();
});

const widget = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec,
});
const W = '/apis/example.com/v1/namespaces/default/widgets';

describe('OpenAPI formats (kube-openapi strfmt, as apiextensions-apiserver validates them)', () => {
  it('checks each supported string format like the Go registry', () => {
    const ok: [string, string][] = [
      ['byte', 'aGVsbG8='],
      ['date-time', '2026-11-26T18:33:52Z'],
      ['date-time', '2026-11-26t18:33:52.123+01:00'],
      ['date', '2024-02-29'],
      ['uuid', '9B2B4E3C-0B1A-4F9A-8D5E-2A1C3B4D5E6F'],
      ['uuid4', '9b2b4e3c-0b1a-4f9a-8d5e-2a1c3b4d5e6f'],
      ['ipv4', '10.0.0.1'],
      ['ipv6', 'fe80::1'],
      ['cidr', '10.0.0.0/16'],
      ['mac', '00:1a:2b:3c:4d:5e'],
      ['hostname', 'api.example.com'],
      ['uri', 'https://example.com/x'],
      ['email', 'a@example.com'],
      ['duration', '1h30m'],
      ['duration', '3 days'],
      ['isbn10', '0321751043'],
      ['isbn13', '978-0321751041'],
      ['hexcolor', '#ffF'],
      ['rgbcolor', 'rgb(255, 0, 10)'],
      ['ssn', '123-45-6789'],
      ['creditcard', '4111 1111 1111 1111'],
      ['bsonobjectid', '507f1f77bcf86cd799439011'],
      ['quantity', '100Mi'],
      ['password', ''],
    ];
    for (const [f, v] of ok) expect(formatCheck(f)?.(v), `${f} ${v}`).toBe(true);
    const bad: [string, string][] = [
      ['byte', ''],
      ['byte', 'not base64!'],
      ['date-time', '2026-11-26 18:33:52Z'],
      ['date-time', '2026-11-26T24:00:00Z'],
      ['date', '2023-02-29'],
      ['uuid', 'xyz'],
      ['ipv4', '10.0.0.256'],
      ['ipv4', 'fe80::1'],
      ['ipv6', '10.0.0.1'],
      ['cidr', '10.0.0.0/33'],
      ['mac', '00:1a:2b:3c:4d'],
      ['hostname', '-bad-.example.com'],
      ['uri', 'relative/path'],
      ['email', 'no-at-sign'],
      ['duration', '1 fortnight'],
      ['isbn10', '0321751044'],
      ['hexcolor', '#ffff'],
      ['creditcard', '4111 1111 1111 1112'],
    ];
    for (const [f, v] of bad) expect(formatCheck(f)?.(v), `${f} ${v}`).toBe(false);
    expect(isDateTime('2026-11-26T18:33:52')).toBe(false);
    expect(isDuration('-1.5h')).toBe(true);
    // formats apiextensions strips (or that validate nothing) have no checker
    for (const f of ['int32', 'int64', 'double', 'no-such-format', 'k8s-short-name'])
      expect(formatCheck(f)).toBeUndefined();
  });

  it('refuses a ControllerConfig with an empty byte field, with the upstream message', async () => {
    const r = await c.req('POST', '/apis/machineconfiguration.openshift.io/v1/controllerconfigs', {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: { name: 'machine-config-controller' },
      spec: { rootCAData: '', kubeAPIServerServingCAData: '' },
    });
    expect(r.status).toBe(422);
    const causes = r.body.details.causes as { field: string; message: string; reason: string }[];
    expect(causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.rootCAData',
          message: 'Invalid value: "": spec.rootCAData in body must be of type byte: ""',
        },
        {
          reason: 'FieldValueTypeInvalid',
          field: 'spec.kubeAPIServerServingCAData',
          message: 'Invalid value: "": spec.kubeAPIServerServingCAData in body must be of type byte: ""',
        },
      ]),
    );
    expect(r.body.message).toContain(
      'spec.rootCAData: Invalid value: "": spec.rootCAData in body must be of type byte: ""',
    );
  });

  it('validates formats of custom objects and ignores the ones apiextensions strips', async () => {
    const bad = await c.req(
      'POST',
      W,
      widget('bad', { data: 'x', when: 'yesterday', day: '2023-02-30', id: 'nope', count: 1, odd: 'anything' }),
    );
    expect(bad.status).toBe(422);
    expect((bad.body.details.causes as { message: string }[]).map((x) => x.message).sort()).toEqual([
      'Invalid value: "2023-02-30": spec.day in body must be of type date: "2023-02-30"',
      'Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
      'Invalid value: "x": spec.data in body must be of type byte: "x"',
      'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]);
    const ok = await c.req(
      'POST',
      W,
      widget('ok', {
        data: 'aGk=',
        when: '2026-01-02T03:04:05Z',
        day: '2024-02-29',
        id: '9b2b4e3c-0b1a-4f9a-8d5e-2a1c3b4d5e6f',
        count: 3000000000,
        odd: '???',
      }),
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });
});

describe('x-kubernetes-list-type', () => {
  it('refuses duplicates in a set, naming the second appearance', async () => {
    const r = await c.req('POST', W, widget('dup', { tags: ['a', 'b', 'a', 'a', 'b'] }));
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Widget.example.com "dup" is invalid: [spec.tags[2]: Duplicate value: "a", spec.tags[4]: Duplicate value: "b"]',
    );
    expect(r.body.details.causes[0]).toEqual({
      reason: 'FieldValueDuplicate',
      message: 'Duplicate value: "a"',
      field: 'spec.tags[2]',
    });
  });

  it('refuses repeated map keys, printing the key as Go does', async () => {
    const one = await c.req('POST', W, widget('m1', { owners: [{ name: 'x' }, { name: 'y' }, { name: 'x' }] }));
    expect(one.status).toBe(422);
    expect(one.body.message).toBe(
      'Widget.example.com "m1" is invalid: spec.owners[2]: Duplicate value: map[string]interface {}{"name":"x"}',
    );
    const two = await c.req(
      'POST',
      W,
      widget('m2', {
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 80, protocol: 'UDP' },
          { port: 80, protocol: 'TCP' },
        ],
      }),
    );
    expect(two.status).toBe(422);
    expect(two.body.message).toBe(
      'Widget.example.com "m2" is invalid: spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    );
    expect(
      (
        await c.req(
          'POST',
          W,
          widget('m3', {
            ports: [
              { port: 80, protocol: 'TCP' },
              { port: 80, protocol: 'UDP' },
            ],
            owners: [{ name: 'x' }],
          }),
        )
      ).status,
    ).toBe(201);
  });

  it('refuses a ClusterVersion status with a channel listed twice (issue 18 defect 1)', async () => {
    const cv = await c.req('POST', '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID: '9b2b4e3c-0b1a-4f9a-8d5e-2a1c3b4d5e6f', channel: 'stable-4.18' },
    });
    expect(cv.status).toBe(201);
    const status = {
      desired: { version: '4.18.7', image: 'quay.io/x@sha256:aa' },
      observedGeneration: 1,
      versionHash: 'h',
      availableUpdates: [
        { version: '4.18.8', image: 'quay.io/x@sha256:bb', channels: ['fast-4.18', 'stable-4.18', 'stable-4.18'] },
      ],
    };
    const r = await c.req('PUT', '/apis/config.openshift.io/v1/clusterversions/version/status', { ...cv.body, status });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('status.availableUpdates[0].channels[2]: Duplicate value: "stable-4.18"');
  });
});

describe('Event and Lease validation', () => {
  const event = (ns: string, involvedNs: string | undefined): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `e.${Math.random().toString(36).slice(2)}`, namespace: ns },
    involvedObject: {
      kind: 'ClusterOperator',
      name: 'machine-config',
      apiVersion: 'config.openshift.io/v1',
      ...(involvedNs === undefined ? {} : { namespace: involvedNs }),
    },
    reason: 'Test',
    message: 'm',
    type: 'Normal',
  });

  it('refuses an Event whose involvedObject namespace differs from its own', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/kube-system/events', event('kube-system', undefined));
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(
      /^Event "e\.[a-z0-9]+" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace$/,
    );
    expect((await c.req('POST', '/api/v1/namespaces/kube-system/events', event('kube-system', 'default'))).status).toBe(
      422,
    );
    expect(
      (await c.req('POST', '/api/v1/namespaces/kube-system/events', event('kube-system', 'kube-system'))).status,
    ).toBe(201);
    // cluster-scoped involved object: only the default namespace may hold the event
    expect((await c.req('POST', '/api/v1/namespaces/default/events', event('default', undefined))).status).toBe(201);
  });

  it('needs the reporting fields on an Event with eventTime', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/events', {
      ...event('default', 'default'),
      eventTime: '2026-11-26T18:00:00.000000Z',
      reason: '',
    });
    expect(r.status).toBe(422);
    // an empty reportingController is Required and also fails IsQualifiedName (empty, then the regex), as upstream
    expect((r.body.details.causes as { field: string }[]).map((x) => x.field)).toEqual([
      'reportingController',
      'reportingController',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
    ]);
  });

  it('refuses a Lease with a zero duration or negative transitions', async () => {
    const lease = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name },
      spec,
    });
    const L = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const r = await c.req(
      'POST',
      L,
      lease('zero', { holderIdentity: 'a', leaseDurationSeconds: 0, leaseTransitions: -1 }),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Lease.coordination.k8s.io "zero" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
    );
    const ok = await c.req(
      'POST',
      L,
      lease('ok', { holderIdentity: 'a', leaseDurationSeconds: 137, leaseTransitions: 0 }),
    );
    expect(ok.status).toBe(201);
    const upd = await c.req('PUT', `${L}/ok`, { ...ok.body, spec: { ...ok.body.spec, leaseDurationSeconds: -5 } });
    expect(upd.status).toBe(422);
  });
});

describe('core/v1 and apps/v1 defaulting', () => {
  const template = {
    metadata: { labels: { app: 'd' } },
    spec: {
      hostNetwork: true,
      containers: [
        {
          name: 'c',
          image: 'quay.io/openshift/daemon:latest',
          ports: [{ containerPort: 9001 }],
          env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
          livenessProbe: { httpGet: { port: 8798 } },
        },
        { name: 'd', image: 'quay.io/x@sha256:0123' },
        { name: 'e', image: 'localhost:5000/y' },
      ],
      volumes: [
        { name: 'root', hostPath: { path: '/' } },
        { name: 'cm', configMap: { name: 'x' } },
        { name: 'scratch' },
      ],
    },
  };

  it('defaults a DaemonSet and its pod template as kube-apiserver does', async () => {
    const r = await c.req('POST', '/apis/apps/v1/namespaces/default/daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const spec = r.body.spec;
    expect(spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(spec.revisionHistoryLimit).toBe(10);
    const pod = spec.template.spec;
    expect(pod).toMatchObject({
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    });
    expect(pod.enableServiceLinks).toBeUndefined();
    const [c0, c1, c2] = pod.containers;
    expect(c0).toEqual({
      name: 'c',
      image: 'quay.io/openshift/daemon:latest',
      ports: [{ containerPort: 9001, protocol: 'TCP' }],
      env: [{ name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
      livenessProbe: {
        httpGet: { port: 8798, path: '/', scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      imagePullPolicy: 'Always',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(c1.imagePullPolicy).toBe('IfNotPresent');
    expect(c2.imagePullPolicy).toBe('Always');
    expect(pod.volumes).toEqual([
      { name: 'root', hostPath: { path: '/', type: '' } },
      { name: 'cm', configMap: { name: 'x', defaultMode: 420 } },
      { name: 'scratch', emptyDir: {} },
    ]);
    // the same defaults on update: a client writing its manifest back changes nothing
    const again = await c.req('PUT', '/apis/apps/v1/namespaces/default/daemonsets/d', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template },
    });
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(r.body.metadata.resourceVersion);
    expect(again.body.metadata.generation).toBe(1);
  });

  it('defaults a Deployment, a Pod and a Service', async () => {
    const d = await c.req('POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'dep' },
      spec: {
        selector: { matchLabels: { app: 'd' } },
        template,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } },
      },
    });
    expect(d.status).toBe(201);
    expect(d.body.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '25%' } },
    });
    const p = await c.req('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        ...template.spec,
        containers: [
          { name: 'c', image: 'busybox', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } },
        ],
      },
    });
    expect(p.status).toBe(201);
    expect(p.body.spec.enableServiceLinks).toBe(true);
    expect(p.body.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      ports: [{ containerPort: 80, hostPort: 80, protocol: 'TCP' }],
      resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
    });
    const s = await c.req('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'NodePort', ports: [{ port: 443, targetPort: 8443 }, { port: 80 }] },
    });
    expect(s.status).toBe(201);
    expect(s.body.spec).toMatchObject({
      sessionAffinity: 'None',
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      ports: [
        { port: 443, targetPort: 8443, protocol: 'TCP' },
        { port: 80, targetPort: 80, protocol: 'TCP' },
      ],
    });
  });
});

describe('custom resource DELETE', () => {
  it('answers a Success Status when the object is gone, the object while finalizers hold it', async () => {
    const w = await c.req('POST', W, widget('gone', {}));
    const r = await c.req('DELETE', `${W}/gone`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', group: 'example.com', kind: 'widgets', uid: w.body.metadata.uid },
    });
    await c.req('POST', W, { ...widget('held', {}), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const h = await c.req('DELETE', `${W}/held`);
    expect(h.body.kind).toBe('Widget');
    expect(h.body.metadata.deletionTimestamp).toBeTruthy();
  });
});
