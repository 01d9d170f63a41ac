/** The RBAC authorizer: rule matching, bindings, aggregation, bootstrap policy and kube-apiserver's 403 bodies. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestAttributes, type RequestAttributes } from '../src/authz.js';
import { authorize, ruleAllows, type PolicyRule, type UserInfo } from '../src/rbac.js';
import { aggregatedRules } from '../src/rbac-bootstrap.js';
import type { KubeObject } from '../src/types.js';
import { sandbox, type Client } from './helpers.js';

const attrs = (method: string, path: string): RequestAttributes => requestAttributes(method, new URL(path, 'http://x'));

describe('ruleAllows (RuleAllows and its matchers)', () => {
  const cases: [string, PolicyRule, string, string, boolean][] = [
    [
      'exact verb/group/resource',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      'GET',
      '/api/v1/namespaces/a/configmaps/x',
      true,
    ],
    [
      'list is not get',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      'GET',
      '/api/v1/namespaces/a/configmaps',
      false,
    ],
    [
      'wrong group',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] },
      'GET',
      '/api/v1/namespaces/a/configmaps/x',
      false,
    ],
    [
      '* everywhere',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      'DELETE',
      '/apis/apps/v1/namespaces/a/deployments',
      true,
    ],
    [
      'a resource rule does not cover its subresource',
      { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
      'POST',
      '/api/v1/namespaces/a/pods/p/eviction',
      false,
    ],
    [
      'resource/subresource',
      { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
      'POST',
      '/api/v1/namespaces/a/pods/p/eviction',
      true,
    ],
    [
      '*/subresource',
      { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
      'PUT',
      '/apis/config.openshift.io/v1/clusteroperators/dns/status',
      true,
    ],
    [
      '*/subresource needs a subresource',
      { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
      'PUT',
      '/apis/config.openshift.io/v1/clusteroperators/dns',
      false,
    ],
    [
      'resourceNames: the named object',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeconfig-data'] },
      'GET',
      '/api/v1/namespaces/a/configmaps/kubeconfig-data',
      true,
    ],
    [
      'resourceNames: another object',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeconfig-data'] },
      'GET',
      '/api/v1/namespaces/a/configmaps/other',
      false,
    ],
    [
      'resourceNames: a plain list is not covered',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeconfig-data'] },
      'GET',
      '/api/v1/namespaces/a/configmaps',
      false,
    ],
    [
      'resourceNames: a list by metadata.name field selector is',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeconfig-data'] },
      'GET',
      '/api/v1/namespaces/a/configmaps?fieldSelector=metadata.name%3Dkubeconfig-data',
      true,
    ],
    [
      'resourceNames: a watch by field selector',
      { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kubeconfig-data'] },
      'GET',
      '/api/v1/namespaces/a/configmaps?watch=true&fieldSelector=metadata.name%3Dkubeconfig-data',
      true,
    ],
    [
      'deletecollection',
      { verbs: ['deletecollection'], apiGroups: [''], resources: ['pods'] },
      'DELETE',
      '/api/v1/namespaces/a/pods',
      true,
    ],
    [
      'watch via /watch/ path',
      { verbs: ['watch'], apiGroups: ['apps'], resources: ['deployments'] },
      'GET',
      '/apis/apps/v1/watch/namespaces/a/deployments',
      true,
    ],
    ['nonResourceURL exact', { verbs: ['get'], nonResourceURLs: ['/version'] }, 'GET', '/version', true],
    ['nonResourceURL prefix *', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, 'GET', '/apis/apps', true],
    [
      'nonResourceURL prefix does not match the bare path',
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
      'GET',
      '/apis',
      false,
    ],
    [
      'nonResourceURL rules never match resources',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      'GET',
      '/api/v1/namespaces',
      false,
    ],
    [
      'resource rules never match non-resource paths',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      'GET',
      '/healthz',
      false,
    ],
  ];
  it.each(cases)('%s', (_name, rule, method, path, want) => {
    expect(ruleAllows(attrs(method, path), rule)).toBe(want);
  });
});

describe('aggregatedRules (the aggregation controller)', () => {
  const role = (name: string, labels: Record<string, string>, rules: PolicyRule[]): KubeObject => ({
    metadata: { name, labels },
    rules,
  });
  it('unions the selected roles sorted by name, each rule once, skipping itself', () => {
    const agg: KubeObject = {
      metadata: { name: 'agg', labels: { x: 'true' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] },
      rules: [],
    };
    const r1: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
    const r2: PolicyRule = { verbs: ['list'], apiGroups: [''], resources: ['pods'] };
    const all = [
      agg,
      role('b', { x: 'true' }, [r2, r1]),
      role('a', { x: 'true' }, [r1]),
      role('c', { x: 'false' }, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
    ];
    expect(aggregatedRules(agg, all)).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    ]);
  });
});

describe('the RBAC authorizer in the sandbox', () => {
  let c: Client;
  const sa: UserInfo = {
    name: 'system:serviceaccount:team:bot',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
  };
  beforeAll(async () => {
    c = await sandbox();
    for (const ns of ['team', 'other']) await c.req('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  });
  afterAll(async () => {
    await c.sb.stop();
  });
  const rbac = (path: string, body: unknown): Promise<unknown> =>
    c.req('POST', `/apis/rbac.authorization.k8s.io/v1${path}`, body);

  it('serves the bootstrap ClusterRoles and bindings kube-apiserver creates', async () => {
    const r = await c.req('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin');
    expect(r.body.rules).toEqual([
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]);
    expect(r.body.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    const b = await c.req('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:public-info-viewer');
    expect((b.body.subjects as { name: string }[]).map((s) => s.name)).toEqual([
      'system:authenticated',
      'system:unauthenticated',
    ]);
    // every authenticated user may discover and review its own access
    expect(authorize(c.sb.cluster, sa, attrs('GET', '/apis')).allowed).toBe(true);
    expect(
      authorize(c.sb.cluster, sa, attrs('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).allowed,
    ).toBe(true);
    expect(authorize(c.sb.cluster, sa, attrs('GET', '/api/v1/namespaces/team/configmaps')).allowed).toBe(false);
  });

  it('a RoleBinding grants in its namespace only; ServiceAccount subjects default to the binding namespace', async () => {
    await rbac('/namespaces/team/roles', {
      metadata: { name: 'cm-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    });
    await rbac('/namespaces/team/rolebindings', {
      metadata: { name: 'bot-reads' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'bot' }],
    });
    const d = authorize(c.sb.cluster, sa, attrs('GET', '/api/v1/namespaces/team/configmaps'));
    expect(d).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "bot-reads" of Role "cm-reader" to ServiceAccount "bot"',
    });
    expect(authorize(c.sb.cluster, sa, attrs('GET', '/api/v1/namespaces/other/configmaps')).allowed).toBe(false);
    expect(authorize(c.sb.cluster, sa, attrs('GET', '/api/v1/configmaps')).allowed).toBe(false);
    expect(
      authorize(
        c.sb.cluster,
        { ...sa, name: 'system:serviceaccount:other:bot' },
        attrs('GET', '/api/v1/namespaces/team/configmaps'),
      ).allowed,
    ).toBe(false);
  });

  it('a ClusterRoleBinding to a Group grants everywhere; a binding to a missing role is the denial reason', async () => {
    await rbac('/clusterroles', {
      metadata: { name: 'node-reader' },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }],
    });
    await rbac('/clusterrolebindings', {
      metadata: { name: 'sas-read-nodes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-reader' },
      subjects: [{ kind: 'Group', name: 'system:serviceaccounts:team' }],
    });
    expect(authorize(c.sb.cluster, sa, attrs('GET', '/api/v1/nodes')).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "sas-read-nodes" of ClusterRole "node-reader" to Group "system:serviceaccounts:team"',
    );
    await rbac('/clusterrolebindings', {
      metadata: { name: 'dangling' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'does-not-exist' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    const d = authorize(
      c.sb.cluster,
      { name: 'alice', groups: ['system:authenticated'] },
      attrs('GET', '/api/v1/nodes'),
    );
    expect(d).toEqual({
      allowed: false,
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found',
    });
  });

  it('fills an aggregated ClusterRole from the roles its selectors match, and follows their changes', async () => {
    await rbac('/clusterroles', {
      metadata: { name: 'monitoring' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate-to-monitoring': 'true' } }] },
    });
    await rbac('/clusterroles', {
      metadata: { name: 'monitoring-endpoints', labels: { 'example.com/aggregate-to-monitoring': 'true' } },
      rules: [{ apiGroups: [''], resources: ['services', 'endpoints'], verbs: ['get', 'list', 'watch'] }],
    });
    await c.sb.settle();
    let agg = await c.req('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/monitoring');
    expect(agg.body.rules).toEqual([
      { apiGroups: [''], resources: ['services', 'endpoints'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect((agg.body.metadata.managedFields as { manager: string }[]).map((m) => m.manager)).toContain(
      'clusterrole-aggregation-controller',
    );
    await c.req('PUT', '/apis/rbac.authorization.k8s.io/v1/clusterroles/monitoring-endpoints', {
      metadata: { name: 'monitoring-endpoints', labels: {} },
      rules: [],
    });
    await c.sb.settle();
    agg = await c.req('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/monitoring');
    expect(agg.body.rules ?? []).toEqual([]);
  });

  it("answers kube-apiserver's 403 bodies (namespaced, cluster scope, subresource, named, path, with an RBAC reason)", async () => {
    const token = c.sb.serviceAccountToken.bind(c.sb);
    await c.req('POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'nobody' } });
    const as = { Authorization: `Bearer ${token('team', 'nobody')}` };
    const who = 'User "system:serviceaccount:team:nobody"';
    const list = await c.req('GET', '/api/v1/namespaces/team/secrets', undefined, undefined, as);
    expect(list.status).toBe(403);
    expect(list.headers.get('x-content-type-options')).toBe('nosniff');
    expect(list.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `secrets is forbidden: ${who} cannot list resource "secrets" in API group "" in the namespace "team"`,
      reason: 'Forbidden',
      details: { kind: 'secrets' },
      code: 403,
    });
    const cluster = await c.req('GET', '/apis/apps/v1/deployments', undefined, undefined, as);
    expect(cluster.body.message).toBe(
      `deployments.apps is forbidden: ${who} cannot list resource "deployments" in API group "apps" at the cluster scope`,
    );
    expect(cluster.body.details).toEqual({ group: 'apps', kind: 'deployments' });
    const status = await c.req(
      'PUT',
      '/apis/apps/v1/namespaces/team/deployments/web/status',
      { metadata: { name: 'web' } },
      undefined,
      as,
    );
    expect(status.body.message).toBe(
      `deployments.apps "web" is forbidden: ${who} cannot update resource "deployments/status" in API group "apps" in the namespace "team"`,
    );
    expect(status.body.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
    const path = await c.req('GET', '/metrics', undefined, undefined, as);
    expect(path.body).toMatchObject({ message: `forbidden: ${who} cannot get path "/metrics"`, details: {} });
    await rbac('/namespaces/team/rolebindings', {
      metadata: { name: 'nobody-dangling' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' },
      subjects: [{ kind: 'ServiceAccount', name: 'nobody', namespace: 'team' }],
    });
    const withReason = await c.req('GET', '/api/v1/namespaces/team/secrets/s1', undefined, undefined, as);
    expect(withReason.body.message).toBe(
      `secrets "s1" is forbidden: ${who} cannot get resource "secrets" in API group "" in the namespace "team": RBAC: role.rbac.authorization.k8s.io "gone" not found`,
    );
  });

  it('answers SelfSubjectAccessReviews with the same authorizer', async () => {
    const as = { Authorization: `Bearer ${c.sb.serviceAccountToken('team', 'nobody')}` };
    const review = (spec: unknown): Promise<{ status: number; body: { status?: unknown; message?: string } }> =>
      c.req(
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec },
        undefined,
        as,
      );
    expect((await review({ resourceAttributes: { verb: 'list', resource: 'nodes' } })).body.status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "sas-read-nodes" of ClusterRole "node-reader" to Group "system:serviceaccounts:team"',
    });
    expect((await review({ resourceAttributes: { verb: 'delete', resource: 'nodes' } })).body.status).toEqual({
      allowed: false,
    });
    expect((await review({ nonResourceAttributes: { verb: 'get', path: '/version' } })).body.status).toMatchObject({
      allowed: true,
    });
    const bad = await review({});
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });
  it('impersonates (Impersonate-User / -Group) only when the impersonate verb is allowed, as kube-apiserver', async () => {
    // the admin (system:masters) may impersonate; the request then runs as the ServiceAccount
    const asSa = await c.req('GET', '/api/v1/namespaces/team/secrets', undefined, undefined, {
      'Impersonate-User': 'system:serviceaccount:team:nobody',
    });
    expect(asSa.status).toBe(403);
    expect(asSa.body.message).toContain('User "system:serviceaccount:team:nobody" cannot list resource "secrets"');
    // groups: the ServiceAccount's own, so the ClusterRoleBinding to system:serviceaccounts:team applies
    expect(
      (
        await c.req('GET', '/api/v1/nodes', undefined, undefined, {
          'Impersonate-User': 'system:serviceaccount:team:nobody',
        })
      ).status,
    ).toBe(200);
    const whoami = await c.req(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      undefined,
      { 'Impersonate-User': 'alice', 'Impersonate-Group': 'devs' },
    );
    expect(whoami.body.status.userInfo).toEqual({ username: 'alice', groups: ['devs', 'system:authenticated'] });
    // a ServiceAccount without the impersonate verb is refused, phrased by the authorizer
    const as = { Authorization: `Bearer ${c.sb.serviceAccountToken('team', 'nobody')}`, 'Impersonate-User': 'alice' };
    const refused = await c.req('GET', '/api/v1/namespaces/team/configmaps', undefined, undefined, as);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      'users "alice" is forbidden: User "system:serviceaccount:team:nobody" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const groupsOnly = await c.req('GET', '/api/v1/nodes', undefined, undefined, { 'Impersonate-Group': 'devs' });
    expect(groupsOnly.status).toBe(400);
  });
  it('impersonates user extras (Impersonate-Extra-<key>) only with impersonate on userextras/<key> by value', async () => {
    // a ServiceAccount allowed to impersonate users and the extra `scopes` with value user:info only
    await rbac('/clusterroles', {
      metadata: { name: 'impersonate-scoped' },
      rules: [
        { apiGroups: [''], resources: ['users'], verbs: ['impersonate'] },
        {
          apiGroups: ['authentication.k8s.io'],
          resources: ['userextras/scopes.authorization.openshift.io'],
          resourceNames: ['user:info'],
          verbs: ['impersonate'],
        },
      ],
    });
    await rbac('/clusterrolebindings', {
      metadata: { name: 'impersonator-scoped' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-scoped' },
      subjects: [{ kind: 'ServiceAccount', name: 'impersonator', namespace: 'team' }],
    });
    await c.req('POST', '/api/v1/namespaces/team/serviceaccounts', { metadata: { name: 'impersonator' } });
    const token = c.sb.serviceAccountToken('team', 'impersonator');
    const whoami = (headers: Record<string, string>) =>
      c.req(
        'POST',
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        undefined,
        { Authorization: `Bearer ${token}`, 'Impersonate-User': 'alice', ...headers },
      );
    // the key is lower-cased and percent-decoded, as kube-apiserver's unescapeExtraKey does
    const allowed = await whoami({ 'Impersonate-Extra-Scopes.authorization.openshift.io': 'user:info' });
    expect(allowed.status).toBe(201);
    expect(allowed.body.status.userInfo).toEqual({
      username: 'alice',
      groups: ['system:authenticated'],
      extra: { 'scopes.authorization.openshift.io': ['user:info'] },
    });
    const refused = await whoami({ 'Impersonate-Extra-scopes.authorization.openshift.io': 'user:full' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      'userextras.authentication.k8s.io "user:full" is forbidden: User "system:serviceaccount:team:impersonator" cannot impersonate resource "userextras/scopes.authorization.openshift.io" in API group "authentication.k8s.io" at the cluster scope',
    );
    const otherKey = await whoami({ 'Impersonate-Extra-reason': 'audit' });
    expect(otherKey.status).toBe(403);
    // extras without a user are a bad request, as groups or a uid without one
    const extraOnly = await c.req('GET', '/api/v1/nodes', undefined, undefined, { 'Impersonate-Extra-reason': 'x' });
    expect(extraOnly.status).toBe(400);
  });
});
