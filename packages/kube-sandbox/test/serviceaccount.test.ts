/**
 * ServiceAccount authentication end to end with @kubernetes/client-node over HTTPS: a token from the TokenRequest
 * subresource, requests authorized by RBAC as `system:serviceaccount:<ns>:<name>`, tokens refused once the
 * ServiceAccount is gone.
 */
import {
  ApiException,
  AuthenticationV1TokenRequest,
  CoreV1Api,
  KubeConfig,
  V1ConfigMap,
  V1Namespace,
  V1ObjectMeta,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type ResourceType, type Sandbox } from '../src/index.js';

vi.setConfig({ testTimeout: 30_000 });

let sb: Sandbox;
let admin: CoreV1Api;
beforeAll(async () => {
  sb = await startSandbox({ tls: true });
  const kc = new KubeConfig();
  kc.loadFromString(sb.kubeconfigYaml());
  admin = kc.makeApiClient(CoreV1Api);
  await admin.createNamespace({
    body: Object.assign(new V1Namespace(), { metadata: Object.assign(new V1ObjectMeta(), { name: 'ops' }) }),
  });
  await admin.createNamespacedServiceAccount({
    namespace: 'ops',
    body: Object.assign(new V1ServiceAccount(), { metadata: Object.assign(new V1ObjectMeta(), { name: 'agent' }) }),
  });
  await admin.createNamespacedConfigMap({
    namespace: 'ops',
    body: Object.assign(new V1ConfigMap(), {
      metadata: Object.assign(new V1ObjectMeta(), { name: 'kubeconfig-data' }),
      data: { a: '1' },
    }),
  });
  // the Role and RoleBinding are set up in storage directly (client-node wants class instances for RBAC bodies)
  const rbacType = (plural: string): ResourceType => {
    const t = sb.cluster.findType('rbac.authorization.k8s.io', 'v1', plural);
    if (!t) throw new Error(plural);
    return t;
  };
  sb.cluster.create(rbacType('roles'), 'ops', {
    metadata: { name: 'read-one', namespace: 'ops' },
    rules: [
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['kubeconfig-data'],
        verbs: ['get', 'list', 'watch'],
      },
    ],
  });
  sb.cluster.create(rbacType('rolebindings'), 'ops', {
    metadata: { name: 'agent-read-one', namespace: 'ops' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-one' },
    subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace: 'ops' }],
  });
});
afterAll(async () => {
  await sb.stop();
});

function clientWith(token: string): CoreV1Api {
  const kc = new KubeConfig();
  const doc = {
    ...sb.kubeconfig,
    users: [{ name: 'sa', user: { token } }],
    contexts: [{ name: 'sa', context: { cluster: sb.kubeconfig.clusters[0]?.name ?? '', user: 'sa' } }],
    'current-context': 'sa',
  };
  kc.loadFromString(JSON.stringify(doc));
  return kc.makeApiClient(CoreV1Api);
}

async function statusOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
    return { code: 200, message: '' };
  } catch (e) {
    if (!(e instanceof ApiException)) throw e;
    // client-node keeps the Status body as text, or as the parsed object for codes its spec declares
    const raw: unknown = e.body;
    const body = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { message?: string } | undefined;
    return { code: e.code, message: body?.message ?? '' };
  }
}

describe('ServiceAccount tokens', () => {
  it('mints a token through the TokenRequest subresource and authenticates and authorizes with it', async () => {
    const tr = await admin.createNamespacedServiceAccountToken({
      name: 'agent',
      namespace: 'ops',
      body: Object.assign(new AuthenticationV1TokenRequest(), { spec: { audiences: [], expirationSeconds: 3600 } }),
    });
    const token = tr.status?.token ?? '';
    expect(token.split('.')).toHaveLength(3);
    expect(tr.spec?.audiences).toEqual(['https://kubernetes.default.svc']);
    expect(tr.metadata).toMatchObject({ name: 'agent', namespace: 'ops' });
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims['sub']).toBe('system:serviceaccount:ops:agent');
    expect((claims['kubernetes.io'] as { serviceaccount: { name: string } }).serviceaccount.name).toBe('agent');
    const sa = clientWith(token);
    expect((await sa.readNamespacedConfigMap({ name: 'kubeconfig-data', namespace: 'ops' })).data).toEqual({ a: '1' });
    // resourceNames cover a list limited to that name by field selector, not a plain list
    expect(
      (await sa.listNamespacedConfigMap({ namespace: 'ops', fieldSelector: 'metadata.name=kubeconfig-data' })).items,
    ).toHaveLength(1);
    expect(await statusOf(sa.listNamespacedConfigMap({ namespace: 'ops' }))).toEqual({
      code: 403,
      message:
        'configmaps is forbidden: User "system:serviceaccount:ops:agent" cannot list resource "configmaps" in API group "" in the namespace "ops"',
    });
    expect((await statusOf(sa.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'ops' }))).code).toBe(403);
    expect(
      (
        await statusOf(
          sa.listNamespacedConfigMap({ namespace: 'default', fieldSelector: 'metadata.name=kubeconfig-data' }),
        )
      ).code,
    ).toBe(403);
  });

  it('refuses TokenRequests kube-apiserver refuses, and tokens of missing ServiceAccounts', async () => {
    expect(
      await statusOf(
        admin.createNamespacedServiceAccountToken({
          name: 'agent',
          namespace: 'ops',
          body: Object.assign(new AuthenticationV1TokenRequest(), { spec: { audiences: [], expirationSeconds: 60 } }),
        }),
      ),
    ).toEqual({
      code: 422,
      message:
        'TokenRequest.authentication.k8s.io "agent" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    });
    expect(
      await statusOf(
        admin.createNamespacedServiceAccountToken({
          name: 'ghost',
          namespace: 'ops',
          body: Object.assign(new AuthenticationV1TokenRequest(), { spec: { audiences: [] } }),
        }),
      ),
    ).toEqual({ code: 404, message: 'serviceaccounts "ghost" not found' });
    expect(
      await statusOf(
        admin.createNamespacedServiceAccountToken({
          name: 'agent',
          namespace: 'ops',
          body: Object.assign(new AuthenticationV1TokenRequest(), {
            metadata: Object.assign(new V1ObjectMeta(), { name: 'other' }),
            spec: { audiences: [] },
          }),
        }),
      ),
    ).toEqual({ code: 400, message: 'name in URL does not match name in TokenRequest body' });
    // a token for another audience is not accepted by the API server
    const other = await admin.createNamespacedServiceAccountToken({
      name: 'agent',
      namespace: 'ops',
      body: Object.assign(new AuthenticationV1TokenRequest(), { spec: { audiences: ['vault'] } }),
    });
    expect(
      (
        await statusOf(
          clientWith(other.status?.token ?? '').readNamespacedConfigMap({ name: 'kubeconfig-data', namespace: 'ops' }),
        )
      ).code,
    ).toBe(401);
  });

  it('stops accepting a token once its ServiceAccount is deleted, even if one of the same name is created again', async () => {
    await admin.createNamespacedServiceAccount({
      namespace: 'ops',
      body: Object.assign(new V1ServiceAccount(), { metadata: Object.assign(new V1ObjectMeta(), { name: 'temp' }) }),
    });
    const token = sb.serviceAccountToken('ops', 'temp');
    const sa = clientWith(token);
    // authenticated: a 403 from the authorizer, not a 401
    expect((await statusOf(sa.listNamespacedPod({ namespace: 'ops' }))).code).toBe(403);
    await admin.deleteNamespacedServiceAccount({ name: 'temp', namespace: 'ops' });
    expect((await statusOf(sa.listNamespacedPod({ namespace: 'ops' }))).code).toBe(401);
    await admin.createNamespacedServiceAccount({
      namespace: 'ops',
      body: Object.assign(new V1ServiceAccount(), { metadata: Object.assign(new V1ObjectMeta(), { name: 'temp' }) }),
    });
    expect((await statusOf(sa.listNamespacedPod({ namespace: 'ops' }))).code).toBe(401);
  });

  it('serviceAccountKubeconfig gives a kubeconfig that authenticates as the ServiceAccount only (no admin client certificate)', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sb.serviceAccountKubeconfig('ops', 'agent'));
    expect(kc.getCurrentUser()?.certData).toBeUndefined();
    const sa = kc.makeApiClient(CoreV1Api);
    expect((await sa.readNamespacedConfigMap({ name: 'kubeconfig-data', namespace: 'ops' })).metadata?.name).toBe(
      'kubeconfig-data',
    );
    expect((await statusOf(sa.listNamespace())).message).toBe(
      'namespaces is forbidden: User "system:serviceaccount:ops:agent" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });

  it('lists the token subresource in discovery as kube-apiserver does', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sb.kubeconfigYaml());
    const res = await kc.makeApiClient(CoreV1Api).getAPIResources();
    expect(res.resources.find((r) => r.name === 'serviceaccounts/token')).toMatchObject({
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
      namespaced: true,
    });
  });
});
