/** The bootstrap's CRDs: created, kept when they exist, and waited for until Established (as the installer does). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { installCrds } from '../src/bootstrap-crds.js';

let sb: Sandbox;
let client: KubeClient;
beforeAll(async () => {
  sb = await startSandbox();
  client = KubeClient.fromKubeconfigString(sb.kubeconfigYaml());
});
afterAll(async () => {
  await sb.stop();
});

const crd = (plural: string, kind: string): Record<string, unknown> => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope: 'Cluster',
    names: { plural, kind, singular: plural.slice(0, -1), listKind: `${kind}List` },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
});

describe('installCrds', () => {
  it('creates the CRDs, keeps existing ones, and returns once they are served', async () => {
    await installCrds(client, [crd('widgets', 'Widget')]);
    await installCrds(client, [crd('widgets', 'Widget'), crd('sprockets', 'Sprocket')]);
    // served: a custom resource can be created right away
    await client.request('POST', '/apis/example.com/v1/widgets', {
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
    });
  });

  it('names a CRD the server does not establish, with its condition', async () => {
    // same kind as widgets in the same group: the server refuses its names
    await expect(installCrds(client, [crd('gadgets', 'Widget')], 300)).rejects.toThrow(
      /^the API server did not establish 1 CRD\(s\) within 0s: gadgets\.example\.com \(NamesAccepted=False MultipleNamesNotAllowed: .*\)$/,
    );
  });
});
