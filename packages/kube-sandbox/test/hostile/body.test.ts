/** Hostile request bodies: typed-decoding 400s, nesting limit, size limit answered with 413 (not a reset). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH } from '../../src/body.js';
import { sandbox, type Client } from '../helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox({ openshiftCrds: ['MachineConfig'] });
});
afterAll(async () => {
  await c.sb.stop();
});

const nested = (depth: number): string => '{"a":'.repeat(depth - 1) + '"x"' + '}'.repeat(depth - 1);

describe('request bodies', () => {
  it('ConfigMap data and labels must be strings: 400 as the typed decoder answers', async () => {
    const r = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'n' },
      data: { port: 8080 },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      reason: 'BadRequest',
      code: 400,
    });
    const lbl = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'n', labels: { a: true } },
    });
    expect(lbl.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string',
    );
    const notMap = await c.req('PUT', '/api/v1/namespaces/default/secrets/s', {
      metadata: { name: 's' },
      stringData: ['x'],
    });
    expect(notMap.body.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal array into Go struct field Secret.stringData of type map[string]string',
    );
    // null values decode to "" upstream: accepted
    const ok = await c.req('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'n' },
      data: { a: 'x', b: null },
    });
    expect(ok.status).toBe(201);
  });

  it('deeply nested JSON is a 400, at the limit it is served', async () => {
    for (const path of [
      '/api/v1/namespaces/default/configmaps',
      '/apis/machineconfiguration.openshift.io/v1/machineconfigs',
    ]) {
      const deep = await c.req(
        'POST',
        path,
        `{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig","metadata":{"name":"deep"},"spec":{"config":${nested(100_000)}}}`,
      );
      expect(deep.status).toBe(400);
      expect(deep.body.message).toBe(`error decoding request body: exceeded max depth of ${MAX_BODY_DEPTH}`);
    }
    const atLimit = await c.req(
      'POST',
      '/apis/machineconfiguration.openshift.io/v1/machineconfigs',
      `{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig","metadata":{"name":"deep"},"spec":{"config":${nested(MAX_BODY_DEPTH - 3)}}}`,
    );
    expect(atLimit.status, JSON.stringify(atLimit.body).slice(0, 300)).toBe(201);
    const yaml = await c.req(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      `metadata: {name: y, labels: ${'['.repeat(50_000)}]}`,
      'application/yaml',
    );
    expect(yaml.status).toBe(400);
  });

  it('a body over 3 MiB gets the 413 Status, also when far larger (no connection reset)', async () => {
    for (const mib of [4, 40]) {
      const big = await c.req(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        JSON.stringify({ metadata: { name: 'big' }, data: { x: 'a'.repeat(mib * 1024 * 1024) } }),
      );
      expect(big.status).toBe(413);
      expect(big.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Request entity too large: limit is 3145728',
        reason: 'RequestEntityTooLarge',
        code: 413,
      });
    }
    // the server still serves afterwards
    expect((await c.req('GET', '/api/v1/namespaces/default/configmaps/n')).status).toBe(200);
  });
});
