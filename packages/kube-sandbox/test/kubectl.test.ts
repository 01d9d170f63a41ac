/**
 * Proof with the real kubectl binary (child processes) against an HTTPS sandbox with a generated CA.
 * Install Debian's kubernetes-client when kubectl is missing (CI does).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.setConfig({ testTimeout: 40_000, hookTimeout: 30_000 });
import { generateTls, startSandbox, type Sandbox } from '../src/index.js';
import { crdDir } from './helpers.js';

const run = promisify(execFile);
let sb: Sandbox;
let dir: string;
let kubeconfig: string;

async function kubectl(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const full = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args];
  if (input !== undefined) {
    return new Promise((resolve) => {
      const p = spawn('kubectl', full, { env: { ...process.env, HOME: dir } });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      p.stdin.end(input);
    });
  }
  try {
    const r = await run('kubectl', full, { env: { ...process.env, HOME: dir }, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keelson-kubectl-'));
  sb = await startSandbox({ tls: true, simulatePods: true, nodes: ['node-a', 'node-b'] });
  kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
});
afterAll(async () => {
  await sb?.stop();
});

describe('kubectl against the sandbox (HTTPS, generated CA)', () => {
  it('lists namespaces and nodes with server-side tables', async () => {
    expect(sb.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ns = await kubectl(['get', 'namespaces', '-o', 'name']);
    expect(ns.stderr).toBe('');
    expect(ns.stdout.trim().split('\n')).toEqual([
      'namespace/default',
      'namespace/kube-node-lease',
      'namespace/kube-public',
      'namespace/kube-system',
    ]);
    const nodes = await kubectl(['get', 'nodes']);
    expect(nodes.stdout.split('\n')[0]).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    expect(nodes.stdout).toMatch(/node-a\s+Ready\s+<none>\s+\d+s\s+v1\.32\.0/);
  });

  it('applies a CRD, waits for Established, applies objects of it and reads them back', async () => {
    const crd = new URL('0000_00_cluster-version-operator_01_clusteroperators.crd.yaml', crdDir);
    const a = await kubectl(['apply', '-f', crd.pathname]);
    expect(a.stderr).toBe('');
    expect(a.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/clusteroperators.config.openshift.io created',
    );
    const w = await kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=20s',
      'crd/clusteroperators.config.openshift.io',
    ]);
    expect(w.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/clusteroperators.config.openshift.io condition met',
    );
    const co = file(
      'co.yaml',
      'apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: machine-config\nspec: {}\n',
    );
    const b = await kubectl(['apply', '-f', co]);
    expect(b.stderr).toBe('');
    expect(b.stdout.trim()).toBe('clusteroperator.config.openshift.io/machine-config created');
    expect((await kubectl(['apply', '-f', co])).stdout.trim()).toBe(
      'clusteroperator.config.openshift.io/machine-config unchanged',
    );
    const status = JSON.stringify({
      status: {
        versions: [{ name: 'operator', version: '4.16.3' }],
        conditions: [
          {
            type: 'Available',
            status: 'True',
            lastTransitionTime: '2026-01-01T00:00:00Z',
            reason: 'AsExpected',
            message: 'Cluster has deployed 4.16.3',
          },
          { type: 'Progressing', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
          { type: 'Degraded', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    });
    const p = await kubectl([
      'patch',
      'clusteroperator',
      'machine-config',
      '--subresource=status',
      '--type=merge',
      '-p',
      status,
    ]);
    expect(p.stderr).toBe('');
    expect(p.stdout.trim()).toBe('clusteroperator.config.openshift.io/machine-config patched');
    const got = await kubectl(['get', 'co']);
    const lines = got.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+VERSION\s+AVAILABLE\s+PROGRESSING\s+DEGRADED\s+SINCE$/);
    expect(lines[1]).toMatch(/^machine-config\s+4\.16\.3\s+True\s+False\s+False\s+\d+(d|y)\S*$/);
    const y = await kubectl(['get', 'clusteroperator', 'machine-config', '-o', 'yaml']);
    expect(y.stdout).toContain('kind: ClusterOperator');
    expect(y.stdout).toContain('generation: 1');
    expect(y.stdout).toMatch(/resourceVersion: "\d+"/);
    const wait = await kubectl([
      'wait',
      '--for=condition=Available',
      '--timeout=10s',
      'clusteroperator/machine-config',
    ]);
    expect(wait.stdout.trim()).toBe('clusteroperator.config.openshift.io/machine-config condition met');
    const ex = await kubectl(['explain', 'clusteroperator.status.versions']);
    expect(ex.stdout).toContain('KIND:       ClusterOperator');
    expect(ex.stdout).toMatch(/FIELD: versions <\[\]Object>/);
  });

  it('rejects unknown fields (fieldValidation=Strict) like the real server', async () => {
    const bad = file(
      'bad.yaml',
      'apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: bad\nspec:\n  nope: 1\n',
    );
    const r = await kubectl(['apply', '-f', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "spec.nope"');
  });

  it('creates built-in objects with kubectl create (protobuf bodies)', async () => {
    expect((await kubectl(['create', 'configmap', 'cfg', '--from-literal=a=b'])).stdout.trim()).toBe(
      'configmap/cfg created',
    );
    expect((await kubectl(['create', 'secret', 'generic', 'sec', '--from-literal=p=q'])).stdout.trim()).toBe(
      'secret/sec created',
    );
    expect((await kubectl(['create', 'namespace', 'team'])).stdout.trim()).toBe('namespace/team created');
    const s = await kubectl(['get', 'secret', 'sec', '-o', 'jsonpath={.type} {.data.p}']);
    expect(s.stdout).toBe(`Opaque ${Buffer.from('q').toString('base64')}`);
    const cm = await kubectl(['get', 'configmap', 'cfg']);
    expect(cm.stdout).toMatch(/^NAME\s+DATA\s+AGE\ncfg\s+1\s+\d+s\n$/);
    expect(
      (await kubectl(['create', 'deployment', 'api', '--image=nginx:1', '--replicas=1', '--port=8080'])).stdout.trim(),
    ).toBe('deployment.apps/api created');
    const dep = JSON.parse((await kubectl(['get', 'deployment', 'api', '-o', 'json'])).stdout);
    expect(dep.spec.replicas).toBe(1);
    expect(dep.spec.selector).toEqual({ matchLabels: { app: 'api' } });
    // as kube-apiserver answers it: the core/v1 container defaults applied
    expect(dep.spec.template.spec.containers).toEqual([
      {
        name: 'nginx',
        image: 'nginx:1',
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
        imagePullPolicy: 'IfNotPresent',
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      },
    ]);
    expect(dep.spec.template.spec).toMatchObject({
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    });
    expect(dep.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    expect(dep.spec.template.metadata).toEqual({ labels: { app: 'api' } });
    expect(
      (await kubectl(['run', 'one', '--image=busybox:1', '--env=A=b', '--command', '--', 'sleep', '5'])).stdout.trim(),
    ).toBe('pod/one created');
    const pod = JSON.parse((await kubectl(['get', 'pod', 'one', '-o', 'json'])).stdout);
    expect(pod.spec.containers[0]).toMatchObject({
      name: 'one',
      image: 'busybox:1',
      command: ['sleep', '5'],
      env: [{ name: 'A', value: 'b' }],
    });
    expect((await kubectl(['auth', 'can-i', 'delete', 'nodes'])).stdout.trim()).toBe('yes');
    await kubectl(['delete', 'deployment', 'api']);
    await kubectl(['delete', 'pod', 'one']);
  });

  it('streams changes with get --watch', async () => {
    const p = spawn(
      'kubectl',
      [
        '--kubeconfig',
        kubeconfig,
        '--cache-dir',
        join(dir, 'cache'),
        'get',
        'configmaps',
        '-n',
        'team',
        '--watch',
        '-o',
        'name',
      ],
      { env: { ...process.env, HOME: dir } },
    );
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const waitFor = async (s: string): Promise<void> => {
      for (let i = 0; i < 600 && !out.includes(s); i++) await new Promise((r) => setTimeout(r, 25));
    };
    await waitFor('kube-root-ca.crt');
    await kubectl(['create', 'configmap', 'w1', '-n', 'team']);
    await kubectl(['label', 'configmap', 'w1', '-n', 'team', 'x=y']);
    await kubectl(['delete', 'configmap', 'w1', '-n', 'team']);
    for (let i = 0; i < 600 && out.trim().split('\n').length < 4; i++) await new Promise((r) => setTimeout(r, 25));
    p.kill();
    // one line per event: the initial object, then ADDED, MODIFIED (label) and DELETED of w1
    expect(out.trim().split('\n')).toEqual([
      'configmap/kube-root-ca.crt',
      'configmap/w1',
      'configmap/w1',
      'configmap/w1',
    ]);
  });

  it('patches with --type merge, json and strategic (merge keys for containers and env)', async () => {
    const d = file(
      'web.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.25\n        env:\n        - {name: A, value: "1"}\n      - name: side\n        image: busybox:1\n',
    );
    expect((await kubectl(['apply', '-f', d])).stdout.trim()).toBe('deployment.apps/web created');
    const s = await kubectl([
      'patch',
      'deployment',
      'web',
      '--type',
      'strategic',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"B","value":"2"}]}]}}}}',
    ]);
    expect(s.stdout.trim()).toBe('deployment.apps/web patched');
    const got = JSON.parse((await kubectl(['get', 'deployment', 'web', '-o', 'json'])).stdout);
    expect((got.spec.template.spec.containers as { name: string }[]).map((c) => c.name)).toEqual(['app', 'side']);
    expect(got.spec.template.spec.containers[0].env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
    expect(got.metadata.generation).toBe(2);
    const j = await kubectl([
      'patch',
      'deployment',
      'web',
      '--type',
      'json',
      '-p',
      '[{"op":"replace","path":"/spec/template/spec/containers/1/image","value":"busybox:2"}]',
    ]);
    expect(j.stdout.trim()).toBe('deployment.apps/web patched');
    const m = await kubectl([
      'patch',
      'deployment',
      'web',
      '--type',
      'merge',
      '-p',
      '{"metadata":{"labels":{"tier":"front"}}}',
    ]);
    expect(m.stdout.trim()).toBe('deployment.apps/web patched');
    const after = JSON.parse((await kubectl(['get', 'deployment', 'web', '-o', 'json'])).stdout);
    expect(after.spec.template.spec.containers[1].image).toBe('busybox:2');
    expect(after.metadata.labels).toEqual({ tier: 'front' });
    expect(after.metadata.generation).toBe(3);
    const noop = await kubectl([
      'patch',
      'deployment',
      'web',
      '--type',
      'merge',
      '-p',
      '{"metadata":{"labels":{"tier":"front"}}}',
    ]);
    expect(noop.stdout.trim()).toBe('deployment.apps/web patched (no change)');
    const w = await kubectl(['wait', '--for=condition=Available', '--timeout=20s', 'deployment/web']);
    expect(w.stdout.trim()).toBe('deployment.apps/web condition met');
    const table = await kubectl(['get', 'deployment', 'web']);
    expect(table.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+2\/2\s+2\s+2\s+\d+s\n$/);
  });

  it('server-side apply: field managers and conflicts', async () => {
    const cm = (v: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  owned: "${v}"\n`;
    expect((await kubectl(['apply', '--server-side', '--field-manager=alice', '-f', '-'], cm('1'))).stdout.trim()).toBe(
      'configmap/ssa serverside-applied',
    );
    const conflict = await kubectl(['apply', '--server-side', '--field-manager=bob', '-f', '-'], cm('2'));
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "alice": .data.owned');
    const forced = await kubectl(
      ['apply', '--server-side', '--field-manager=bob', '--force-conflicts', '-f', '-'],
      cm('2'),
    );
    expect(forced.stdout.trim()).toBe('configmap/ssa serverside-applied');
    const got = JSON.parse((await kubectl(['get', 'configmap', 'ssa', '-o', 'json', '--show-managed-fields'])).stdout);
    expect(got.data.owned).toBe('2');
    expect(
      (got.metadata.managedFields as { manager: string; operation: string }[]).map(
        (e) => `${e.manager}/${e.operation}`,
      ),
    ).toEqual(['bob/Apply']);
    // alice re-applies without the field: nothing to remove (bob owns it)
    expect(
      (
        await kubectl(
          ['apply', '--server-side', '--field-manager=alice', '-f', '-'],
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n',
        )
      ).code,
    ).toBe(0);
    expect(JSON.parse((await kubectl(['get', 'configmap', 'ssa', '-o', 'json'])).stdout).data.owned).toBe('2');
  });

  it('drains a node, honouring a PodDisruptionBudget', async () => {
    const pdb = file(
      'pdb.yaml',
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 2\n  selector:\n    matchLabels: {app: web}\n',
    );
    expect((await kubectl(['apply', '-f', pdb])).stdout.trim()).toBe('poddisruptionbudget.policy/web created');
    await sb.settle();
    const pods = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items as {
      spec: { nodeName: string };
    }[];
    expect(pods).toHaveLength(2);
    const node = pods[0]!.spec.nodeName;
    // with minAvailable=2 and 2 ready pods, eviction is refused (429) and drain times out
    const blocked = await kubectl(['drain', node, '--ignore-daemonsets', '--timeout=5s', '--delete-emptydir-data']);
    expect(blocked.code).not.toBe(0);
    expect(blocked.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect((await kubectl(['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}'])).stdout).toBe('true');
    // relax the budget: drain evicts, the ReplicaSet recreates the pod on the other node
    expect((await kubectl(['patch', 'pdb', 'web', '--type', 'merge', '-p', '{"spec":{"minAvailable":1}}'])).code).toBe(
      0,
    );
    await sb.settle();
    const ok = await kubectl(['drain', node, '--ignore-daemonsets', '--timeout=20s']);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain(`node/${node} drained`);
    await sb.settle();
    const after = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'])).stdout).items as {
      spec: { nodeName: string };
    }[];
    expect(after.every((p) => p.spec.nodeName !== node)).toBe(true);
    expect((await kubectl(['uncordon', node])).stdout.trim()).toBe(`node/${node} uncordoned`);
  });

  it('prints events like kubectl expects', async () => {
    const ev = file(
      'ev.yaml',
      'apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\ninvolvedObject:\n  kind: Pod\n  name: web-1\n  namespace: default\nreason: Pulled\nmessage: Image pulled\ntype: Normal\n',
    );
    expect((await kubectl(['apply', '-f', ev])).stdout.trim()).toBe('event/e1 created');
    const out = await kubectl(['get', 'events']);
    expect(out.stdout).toMatch(
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\d+s\s+Normal\s+Pulled\s+pod\/web-1\s+Image pulled\n$/,
    );
  });

  it('deletes a namespace with its content', async () => {
    await kubectl(['create', 'configmap', 'inside', '-n', 'team']);
    const d = await kubectl(['delete', 'namespace', 'team', '--timeout=20s']);
    expect(d.stdout.trim()).toBe('namespace "team" deleted');
    expect((await kubectl(['get', 'namespace', 'team'])).stderr.trim()).toBe(
      'Error from server (NotFound): namespaces "team" not found',
    );
  });

  it('writes a working kubeconfig (token and client certificate)', async () => {
    const text = readFileSync(kubeconfig, 'utf8');
    expect(text).toContain('certificate-authority-data:');
    expect(text).toContain('client-certificate-data:');
    expect(text).toContain(`token: ${sb.token}`);
    // the client certificate alone authenticates
    const certOnly = file('cert-only.kubeconfig', text.replace(/^\s*token: .*$/m, ''));
    const viaCert = await run(
      'kubectl',
      ['--kubeconfig', certOnly, '--cache-dir', join(dir, 'cache'), 'get', 'namespace', 'default', '-o', 'name'],
      { env: { ...process.env, HOME: dir } },
    );
    expect(viaCert.stdout.trim()).toBe('namespace/default');
    // a certificate from another CA is not accepted (kubectl then has no identity and the server answers 401)
    const foreign = await generateTls('intruder');
    const other = file(
      'foreign.kubeconfig',
      text
        .replace(/^\s*token: .*$/m, '')
        .replace(
          /client-certificate-data: .*$/m,
          `client-certificate-data: ${Buffer.from(foreign.clientCert).toString('base64')}`,
        )
        .replace(/client-key-data: .*$/m, `client-key-data: ${Buffer.from(foreign.clientKey).toString('base64')}`),
    );
    const denied = await kubectl(['--kubeconfig', other, 'get', 'namespace', 'default'], '');
    expect(denied.code).not.toBe(0);
    expect(denied.stdout).toBe('');
  });

  it('works as a ServiceAccount: create token, auth whoami, can-i (--list), 403s, RBAC objects created by kubectl', async () => {
    expect((await kubectl(['create', 'serviceaccount', 'bot'])).stdout.trim()).toBe('serviceaccount/bot created');
    // kubectl create token sends a protobuf TokenRequest; --duration becomes spec.expirationSeconds
    const token = (await kubectl(['create', 'token', 'bot', '--duration=20m'])).stdout.trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
      exp: number;
      iat: number;
      sub: string;
    };
    expect(claims.sub).toBe('system:serviceaccount:default:bot');
    expect(claims.exp - claims.iat).toBe(1200);
    // a kubeconfig with only that token (no admin client certificate)
    const text = readFileSync(kubeconfig, 'utf8')
      .replace(/^(\s*)token: .*$/m, `$1token: ${token}`)
      .replace(/^\s*client-(certificate|key)-data: .*\n/gm, '');
    const bot = file('bot.kubeconfig', text);
    const as = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
      kubectl(['--kubeconfig', bot, ...args], '');
    expect(
      (await as(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'])).stdout,
    ).toBe(
      'system:serviceaccount:default:bot ["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"]',
    );
    expect((await as(['auth', 'can-i', 'list', 'pods'])).stdout.trim()).toBe('no');
    expect((await as(['get', 'pods'])).stderr.trim()).toBe(
      'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:bot" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    // RBAC objects as kubectl creates them (protobuf bodies): an aggregated ClusterRole and a RoleBinding to it
    expect(
      (
        await kubectl(['create', 'clusterrole', 'pod-reader', '--aggregation-rule=example.com/pods=true'])
      ).stdout.trim(),
    ).toBe('clusterrole.rbac.authorization.k8s.io/pod-reader created');
    await kubectl(['create', 'clusterrole', 'pod-reader-rules', '--verb=get,list', '--resource=pods']);
    await kubectl(['label', 'clusterrole', 'pod-reader-rules', 'example.com/pods=true']);
    expect(
      (
        await kubectl([
          'create',
          'rolebinding',
          'bot-reads-pods',
          '--clusterrole=pod-reader',
          '--serviceaccount=default:bot',
        ])
      ).stdout.trim(),
    ).toBe('rolebinding.rbac.authorization.k8s.io/bot-reads-pods created');
    await sb.settle();
    expect((await as(['auth', 'can-i', 'list', 'pods'])).stdout.trim()).toBe('yes');
    expect((await as(['auth', 'can-i', 'delete', 'pods'])).stdout.trim()).toBe('no');
    expect((await as(['auth', 'can-i', 'list', 'pods', '-n', 'kube-system'])).stdout.trim()).toBe('no');
    // the admin impersonating the ServiceAccount (kubectl --as) gets the same answers
    expect(
      (await kubectl(['auth', 'can-i', 'list', 'pods', '--as=system:serviceaccount:default:bot'])).stdout.trim(),
    ).toBe('yes');
    expect(
      (await kubectl(['auth', 'can-i', 'delete', 'pods', '--as=system:serviceaccount:default:bot'], '')).stdout.trim(),
    ).toBe('no');
    const list = (await as(['auth', 'can-i', '--list'])).stdout;
    expect(list).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
    expect(list).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  });
});
