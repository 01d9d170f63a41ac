import { describe, expect, it } from 'vitest';
import { Informer, KubeClient, Namespaces } from '../src/index.js';
import { sandboxWithClient, until } from './helpers.js';

describe('HTTPS sandbox with a generated CA', () => {
  it('verifies the server certificate from the kubeconfig CA and lists/watches over TLS', async () => {
    const env = await sandboxWithClient({ tls: true });
    try {
      expect(env.sandbox.url.startsWith('https://127.0.0.1:')).toBe(true);
      const ns = env.client.resource(Namespaces);
      const list = await ns.list();
      expect(list.items.map((n) => n.metadata.name)).toContain('kube-system');
      const inf = new Informer(env.client, Namespaces);
      inf.start();
      await inf.waitForSync();
      await ns.create({ metadata: { name: 'over-tls' } });
      await until(() => inf.store.get('over-tls') !== undefined, 10_000, 'namespace seen over TLS watch');
      await inf.stop();

      // a kubeconfig without the CA must be refused by TLS verification
      const noCa = env.sandbox.kubeconfigYaml().replace(/^\s*certificate-authority-data:.*$/m, '');
      const untrusting = KubeClient.fromKubeconfigString(noCa);
      await expect(untrusting.resource(Namespaces).list()).rejects.toMatchObject({ code: 'KUBE_NETWORK' });
      await untrusting.close();
    } finally {
      await env.stop();
    }
  });
});
