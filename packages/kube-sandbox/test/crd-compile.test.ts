/**
 * A CRD's schema is compiled once: when the CRD is written (to refuse a schema that does not compile), in the form
 * its objects are validated with, so that the first object reuses that validator.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sandbox, type Client } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox();
});
afterAll(async () => {
  await c.sb.stop();
});

describe('CRD schema compilation', () => {
  it('compiles a new schema once for the CRD and its objects', async () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    // a schema no other test compiles (the compiled validators are cached by schema in the process)
    const marker = `field${String(Date.now())}`;
    const crd = await c.req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
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
                  metadata: { type: 'object' },
                  spec: { type: 'object', properties: { [marker]: { type: 'string', maxLength: 5 } } },
                },
              },
            },
          },
        ],
      },
    });
    expect(crd.status).toBe(201);
    expect(compile).toHaveBeenCalledTimes(1);
    await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'w' } });
    for (let i = 0; i < 20 && (await c.req('GET', '/apis/example.com/v1/widgets')).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 50));
    const ok = await c.req('POST', '/apis/example.com/v1/namespaces/w/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'a' },
      spec: { [marker]: 'abc' },
    });
    expect(ok.status).toBe(201);
    const bad = await c.req('POST', '/apis/example.com/v1/namespaces/w/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'b' },
      spec: { [marker]: 'too long' },
    });
    expect(bad.status).toBe(422);
    expect(compile).toHaveBeenCalledTimes(1);
    compile.mockRestore();
  });
});
