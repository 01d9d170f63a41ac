/**
 * Bound ServiceAccount tokens as kube-apiserver issues and checks them (kubernetes `pkg/registry/core/serviceaccount/
 * storage/token.go` TokenREST.Create, `pkg/serviceaccount/claims.go` validator.Validate): a TokenRequest with
 * `boundObjectRef` to a Pod, Secret or Node, over real HTTP against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Client, type JsonBody } from './helpers.js';

let c: Client;
beforeAll(async () => {
  c = await sandbox();
  await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
  for (const name of ['bot', 'other'])
    await c.req('POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name } });
  await c.req('POST', '/api/v1/nodes', { metadata: { name: 'worker-0' } });
});
afterAll(async () => {
  await c.sb.stop();
});

const pod = (name: string, serviceAccountName: string): unknown => ({
  metadata: { name },
  spec: { serviceAccountName, nodeName: 'worker-0', containers: [{ name: 'c', image: 'quay.io/x/y:1' }] },
});
const tokenFor = (boundObjectRef: Record<string, string>): Promise<{ status: number; body: JsonBody }> =>
  c.req('POST', '/api/v1/namespaces/team/serviceaccounts/bot/token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { boundObjectRef },
  });
const whoami = (token: string): Promise<{ status: number; body: JsonBody }> =>
  c.req(
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    undefined,
    { Authorization: `Bearer ${token}` },
  );
const claims = (token: string): JsonBody =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));

describe('bound ServiceAccount tokens', () => {
  it('a Pod-bound token carries the pod and its node, and dies with the pod', async () => {
    const created = await c.req('POST', '/api/v1/namespaces/team/pods', pod('runner', 'bot'));
    expect(created.status).toBe(201);
    const podUid = created.body.metadata.uid as string;
    const nodeUid = (await c.req('GET', '/api/v1/nodes/worker-0')).body.metadata.uid as string;
    const r = await tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'runner', uid: podUid });
    expect(r.status).toBe(201);
    expect(r.body.spec.boundObjectRef).toEqual({ apiVersion: 'v1', kind: 'Pod', name: 'runner', uid: podUid });
    const token = r.body.status.token as string;
    expect(claims(token)['kubernetes.io']).toMatchObject({
      pod: { name: 'runner', uid: podUid },
      node: { name: 'worker-0', uid: nodeUid },
    });
    const me = await whoami(token);
    expect(me.status).toBe(201);
    expect(me.body.status.userInfo.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['runner'],
      'authentication.kubernetes.io/pod-uid': [podUid],
      'authentication.kubernetes.io/node-name': ['worker-0'],
      'authentication.kubernetes.io/node-uid': [nodeUid],
    });
    // the pod goes (the sandbox has no kubelet: a deleted pod is removed at once): its tokens stop working
    expect((await c.req('DELETE', '/api/v1/namespaces/team/pods/runner')).status).toBe(200);
    expect((await whoami(token)).status).toBe(401);
    // a pod of the same name again is another object: the old token stays invalid
    await c.req('POST', '/api/v1/namespaces/team/pods', pod('runner', 'bot'));
    expect((await whoami(token)).status).toBe(401);
  });

  it('a Secret-bound token works while that secret exists', async () => {
    const s = await c.req('POST', '/api/v1/namespaces/team/secrets', { metadata: { name: 'anchor' } });
    const r = await tokenFor({ apiVersion: 'v1', kind: 'Secret', name: 'anchor' });
    expect(r.status).toBe(201);
    const token = r.body.status.token as string;
    expect(claims(token)['kubernetes.io'].secret).toEqual({ name: 'anchor', uid: s.body.metadata.uid });
    expect((await whoami(token)).status).toBe(201);
    await c.req('DELETE', '/api/v1/namespaces/team/secrets/anchor');
    expect((await whoami(token)).status).toBe(401);
  });

  it('refuses what TokenREST.Create refuses', async () => {
    await c.req('POST', '/api/v1/namespaces/team/pods', pod('foreign', 'other'));
    const foreign = await tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'foreign' });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toBe(
      'cannot bind token for serviceaccount "bot" to pod running with different serviceaccount name.',
    );
    const missing = await tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('pods "nope" not found');
    const kind = await tokenFor({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' });
    expect(kind.status).toBe(400);
    expect(kind.body.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
    const stale = await tokenFor({ apiVersion: 'v1', kind: 'Node', name: 'worker-0', uid: 'not-the-uid' });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe(
      'Operation cannot be fulfilled on Node "worker-0": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated',
    );
  });
});
