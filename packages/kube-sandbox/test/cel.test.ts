/**
 * CRD `x-kubernetes-validations` evaluated as kube-apiserver does, against the real OpenShift CRDs shipped in
 * @keelson/api (plus one small CRD for the rule features those CRDs do not use: messageExpression, reason, fieldPath).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { celEnvironment, validateCelRules } from '../src/cel/index.js';
import { sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox({
    openshiftCrds: ['MachineConfigPool', 'MachineConfigNode', 'ClusterVersion', 'MachineConfiguration'],
  });
});
afterAll(async () => {
  await c.sb.stop();
});

const MCP = '/apis/machineconfiguration.openshift.io/v1/machineconfigpools';
const sync = (o: Record<string, number | string>): Record<string, number | string> => ({
  poolSynchronizerType: 'PinnedImageSets',
  machineCount: 3,
  updatedMachineCount: 3,
  readyMachineCount: 3,
  availableMachineCount: 3,
  unavailableMachineCount: 0,
  ...o,
});

describe('CEL rules of the OpenShift CRDs', () => {
  it('MachineConfigPool status: machineCount >= updatedMachineCount, with the upstream 422 body', async () => {
    const pool = await c.req('POST', MCP, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: {},
    });
    expect(pool.status).toBe(201);
    const bad = await c.req('PUT', `${MCP}/worker/status`, {
      ...pool.body,
      status: { poolSynchronizersStatus: [sync({ machineCount: 2, readyMachineCount: 2, availableMachineCount: 2 })] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'MachineConfigPool.machineconfiguration.openshift.io "worker" is invalid: status.poolSynchronizersStatus[0]: Invalid value: "object": machineCount must be greater than or equal to updatedMachineCount',
      reason: 'Invalid',
      details: {
        name: 'worker',
        group: 'machineconfiguration.openshift.io',
        kind: 'MachineConfigPool',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "object": machineCount must be greater than or equal to updatedMachineCount',
            field: 'status.poolSynchronizersStatus[0]',
          },
        ],
      },
      code: 422,
    });
    const ok = await c.req('PUT', `${MCP}/worker/status`, {
      ...pool.body,
      status: { poolSynchronizersStatus: [sync({ observedGeneration: 5 })] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('transition rules compare with the old object (map-list items correlated by key)', async () => {
    const cur = (await c.req('GET', `${MCP}/worker`)).body;
    const back = await c.req('PUT', `${MCP}/worker/status`, {
      ...cur,
      status: { poolSynchronizersStatus: [sync({ observedGeneration: 3 })] },
    });
    expect(back.status).toBe(422);
    expect(back.body.message).toBe(
      'MachineConfigPool.machineconfiguration.openshift.io "worker" is invalid: status.poolSynchronizersStatus[0].observedGeneration: Invalid value: "integer": observedGeneration must not move backwards except to zero',
    );
    // back to zero is allowed, forwards too
    expect(
      (
        await c.req('PUT', `${MCP}/worker/status`, {
          ...cur,
          status: { poolSynchronizersStatus: [sync({ observedGeneration: 0 })] },
        })
      ).status,
    ).toBe(200);
    // a new pool has no old value: the transition rule does not run on create
    const fresh = await c.req('POST', MCP, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'infra' },
      spec: {},
      status: { poolSynchronizersStatus: [sync({ observedGeneration: 1 })] },
    });
    expect(fresh.status).toBe(201);
  });

  it('a root rule reports the field <nil>; format.dns1123Subdomain().validate() checks names', async () => {
    const mcn = (name: string, node: string, desired: string): unknown => ({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigNode',
      metadata: { name },
      spec: { node: { name: node }, pool: { name: 'worker' }, configVersion: { desired } },
    });
    const r = await c.req(
      'POST',
      '/apis/machineconfiguration.openshift.io/v1/machineconfignodes',
      mcn('node-a', 'node-b', 'rendered-worker-1'),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'MachineConfigNode.machineconfiguration.openshift.io "node-a" is invalid: <nil>: Invalid value: "object": spec.node.name should match metadata.name',
    );
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": spec.node.name should match metadata.name',
        field: '<nil>',
      },
    ]);
    const bad = await c.req(
      'POST',
      '/apis/machineconfiguration.openshift.io/v1/machineconfignodes',
      mcn('node-a', 'node-a', 'Rendered_Worker'),
    );
    expect(bad.body.message).toBe(
      'MachineConfigNode.machineconfiguration.openshift.io "node-a" is invalid: spec.configVersion.desired: Invalid value: "string": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character.',
    );
    expect(
      (
        await c.req(
          'POST',
          '/apis/machineconfiguration.openshift.io/v1/machineconfignodes',
          mcn('node-a', 'node-a', 'rendered-worker-1'),
        )
      ).status,
    ).toBe(201);
  });

  it('ClusterVersion desiredUpdate rules and the blocking-error short cut', async () => {
    const cv = (desiredUpdate: unknown, clusterID: unknown = '9b2b4e3c-0b1a-4f9a-8d5e-2a1c3b4d5e6f'): unknown => ({
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: { clusterID, desiredUpdate },
    });
    const both = await c.req(
      'POST',
      '/apis/config.openshift.io/v1/clusterversions',
      cv({ architecture: 'Multi', image: 'quay.io/x@sha256:1', version: '4.18.1' }),
    );
    expect(both.body.message).toBe(
      'ClusterVersion.config.openshift.io "version" is invalid: spec.desiredUpdate: Invalid value: "object": cannot set both Architecture and Image',
    );
    const noVersion = await c.req(
      'POST',
      '/apis/config.openshift.io/v1/clusterversions',
      cv({ architecture: 'Multi', version: '' }),
    );
    expect(noVersion.body.message).toBe(
      'ClusterVersion.config.openshift.io "version" is invalid: spec.desiredUpdate: Invalid value: "object": Version must be set if Architecture is set',
    );
    // a type error blocks the rules: they are reported as not checked
    const blocked = await c.req(
      'POST',
      '/apis/config.openshift.io/v1/clusterversions',
      cv({ architecture: 'Multi', image: 'x' }, 5),
    );
    expect(blocked.body.message).toBe(
      'ClusterVersion.config.openshift.io "version" is invalid: [spec.clusterID: Invalid value: "integer": spec.clusterID in body must be of type string: "integer", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
  });

  it('MachineConfiguration rules with optional field selection (self.?a.b.orValue)', async () => {
    const body = (status: unknown): unknown => ({
      apiVersion: 'operator.openshift.io/v1',
      kind: 'MachineConfiguration',
      metadata: { name: 'cluster' },
      spec: { managementState: 'Managed' },
      status,
    });
    const created = await c.req('POST', '/apis/operator.openshift.io/v1/machineconfigurations', body(undefined));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const st = await c.req('PUT', '/apis/operator.openshift.io/v1/machineconfigurations/cluster/status', {
      ...created.body,
      status: { bootImageSkewEnforcementStatus: { mode: 'Automatic', automatic: { ocpVersion: '4.18.0' } } },
    });
    expect(st.status).toBe(422);
    expect(st.body.message).toBe(
      'MachineConfiguration.operator.openshift.io "cluster" is invalid: <nil>: Invalid value: "object": when skew enforcement is in Automatic mode, a boot image configuration is required',
    );
  });
});

describe('rule features (a small CRD)', () => {
  it('messageExpression, reason and fieldPath shape the error; runtime errors are phrased as upstream', async () => {
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
                      min: { type: 'integer' },
                      max: { type: 'integer' },
                      ips: { type: 'array', items: { type: 'string' } },
                      extra: { type: 'object', additionalProperties: { type: 'string' } },
                    },
                    'x-kubernetes-validations': [
                      {
                        rule: 'self.min <= self.max',
                        messageExpression: "'min (' + string(self.min) + ') is above max (' + string(self.max) + ')'",
                        fieldPath: '.min',
                      },
                      {
                        rule: '!has(self.extra) || !("forbidden" in self.extra)',
                        message: 'must not set extra.forbidden',
                        reason: 'FieldValueForbidden',
                        fieldPath: ".extra['forbidden']",
                      },
                      { rule: '!has(self.ips) || self.ips.all(i, isIP(i))' },
                      { rule: 'self.extra.size() >= 0' },
                    ],
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect((await c.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const w = (spec: unknown): unknown => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec,
    });
    const r = await c.req(
      'POST',
      '/apis/example.com/v1/namespaces/default/widgets',
      w({ min: 5, max: 2, ips: ['1.2.3.4', 'nope'], extra: { forbidden: 'x' } }),
    );
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toEqual([
      // the value is the type of the schema node that holds the rule, also when fieldPath moves the error
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": min (5) is above max (2)', field: 'spec.min' },
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: must not set extra.forbidden',
        field: 'spec.extra[forbidden]',
      },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": failed rule: !has(self.ips) || self.ips.all(i, isIP(i))',
        field: 'spec',
      },
    ]);
    const missing = await c.req('POST', '/apis/example.com/v1/namespaces/default/widgets', w({ min: 1, max: 2 }));
    expect(missing.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": no such key: extra evaluating rule: self.extra.size() >= 0',
        field: 'spec',
      },
    ]);
    expect(
      (
        await c.req(
          'POST',
          '/apis/example.com/v1/namespaces/default/widgets',
          w({ min: 1, max: 2, ips: ['::1'], extra: {} }),
        )
      ).status,
    ).toBe(201);
  });

  it('a rule that does not compile makes the CRD invalid', async () => {
    const r = await c.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a +' }] } },
          },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0].field).toBe(
      'spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule',
    );
    expect(r.body.details.causes[0].message).toMatch(/^Invalid value: "self\.a \+": compilation failed: /);
  });
});

describe('Kubernetes CEL library functions', () => {
  const ev = (e: string, self: unknown): unknown => celEnvironment().evaluate(e, { self });
  it('ip, cidr, url, formats, lists', () => {
    expect(
      ev('isIP(self[0]) && isIP(self[1]) && ip(self[0]).family() != ip(self[1]).family()', ['10.0.0.1', 'fd00::1']),
    ).toBe(true);
    expect(ev('isIP(self)', '010.0.0.1')).toBe(false);
    expect(ev('isIP(self)', '::ffff:1.2.3.4')).toBe(false);
    expect(ev('isIP(self)', 'fe80::1%eth0')).toBe(false);
    expect(ev('isCIDR(self)', '10.0.0.0/8')).toBe(true);
    expect(ev('isCIDR(self)', '10.0.0.0/33')).toBe(false);
    expect(ev('cidr(self).prefixLength()', 'fd00::/64')).toBe(64n);
    expect(ev('isURL(self)', 'https://example.com/x')).toBe(true);
    expect(ev('isURL(self)', 'example.com')).toBe(false);
    expect(ev('format.dns1123Label().validate(self).hasValue()', 'a.b')).toBe(true);
    expect(ev('format.qualifiedName().validate(self).hasValue()', 'example.com/Name')).toBe(false);
    expect(
      ev('self.isSorted() && self.sum() == 6 && self.min() == 1 && self.max() == 3 && self.indexOf(2) == 1', [
        1n,
        2n,
        3n,
      ]),
    ).toBe(true);
    expect(
      ev("matches(self, '^arn:(aws|aws-cn|aws-us-gov):iam::[0-9]{12}:role/.*$')", 'arn:aws:iam::123456789012:role/x'),
    ).toBe(true);
  });
  it('validateCelRules skips null and absent values', () => {
    const schema = {
      type: 'object',
      properties: {
        a: {
          type: 'string',
          nullable: true,
          'x-kubernetes-validations': [{ rule: 'self.size() > 3', message: 'short' }],
        },
      },
    };
    expect(validateCelRules(schema, { a: null }, undefined)).toEqual([]);
    expect(validateCelRules(schema, {}, undefined)).toEqual([]);
    expect(validateCelRules(schema, { a: 'ab' }, undefined)).toEqual([
      { field: 'a', type: 'FieldValueInvalid', value: 'string', detail: 'short' },
    ]);
  });
  it("duration strings are durations, in Go and in strfmt's scala-like syntax (UnstructuredToVal)", () => {
    const schema = {
      type: 'object',
      properties: { timeout: { type: 'string', format: 'duration' }, grace: { type: 'string', format: 'duration' } },
      'x-kubernetes-validations': [
        { rule: "self.timeout <= duration('2h')", message: 'at most two hours' },
        { rule: 'self.grace < self.timeout', message: 'grace below timeout' },
      ],
    };
    expect(validateCelRules(schema, { timeout: '1h30m', grace: '90s' }, undefined)).toEqual([]);
    expect(validateCelRules(schema, { timeout: '1 hour', grace: '1.5m' }, undefined)).toEqual([]);
    expect(validateCelRules(schema, { timeout: '3 hours', grace: '2h' }, undefined).map((e) => e.detail)).toEqual([
      'at most two hours',
    ]);
    // 1000ms is one second: compared as lengths of time, not as strings
    expect(validateCelRules(schema, { timeout: '1s', grace: '1000ms' }, undefined).map((e) => e.detail)).toEqual([
      'grace below timeout',
    ]);
  });

  it('date-time and date strings are timestamps, byte strings are bytes (UnstructuredToVal)', () => {
    const schema = {
      type: 'object',
      properties: {
        notBefore: { type: 'string', format: 'date-time' },
        notAfter: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        blob: { type: 'string', format: 'byte' },
      },
      'x-kubernetes-validations': [
        { rule: 'self.notBefore < self.notAfter', message: 'notBefore must precede notAfter' },
        { rule: "self.notAfter - self.notBefore <= duration('24h')", message: 'at most a day' },
        { rule: "self.day == timestamp('2026-11-27T00:00:00Z')", message: 'the day' },
        { rule: 'self.blob.size() == 3', message: 'three bytes' },
      ],
    };
    const ok = {
      notBefore: '2026-11-27T10:00:00.123456789Z',
      notAfter: '2026-11-27T12:00:00+01:00',
      day: '2026-11-27',
      blob: 'AQID',
    };
    expect(validateCelRules(schema, ok, undefined)).toEqual([]);
    // compared as instants, not as strings: 09:00+00:00 is before 10:00+05:00 as a string, not in time
    const bad = { ...ok, notBefore: '2026-11-27T09:00:00Z', notAfter: '2026-11-27T10:00:00+05:00', blob: 'AQIDBA==' };
    expect(validateCelRules(schema, bad, undefined).map((e) => e.detail)).toEqual([
      'notBefore must precede notAfter',
      'three bytes',
    ]);
  });
});

describe('every rule of the shipped OpenShift CRDs', () => {
  it('compiles in the sandbox CEL environment', async () => {
    const { loadCrds } = await import('@keelson/api');
    const { ruleCompileErrors } = await import('../src/cel/index.js');
    let count = 0;
    for (const crd of await loadCrds()) {
      crd.spec.versions.forEach((v, i) => {
        const schema = v.schema?.openAPIV3Schema;
        count += JSON.stringify(schema).split('"x-kubernetes-validations"').length - 1;
        expect(ruleCompileErrors(schema, `${crd.metadata.name ?? ''} versions[${i}]`)).toEqual([]);
      });
    }
    expect(count).toBeGreaterThan(100);
  });
});
