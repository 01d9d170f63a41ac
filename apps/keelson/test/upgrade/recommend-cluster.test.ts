/**
 * `keelson upgrade recommend` as a child process against the embedded API server: buckets by minor with the risks
 * spelled out, Upgradeable=False injected as a risk of the next minor, `--version` with `--accept`, and the alerts
 * precheck both when the cluster has no monitoring Route (oc's "Failed to check…") and through a real
 * `openshift-monitoring/thanos-querier` Route to an HTTPS alerts endpoint on loopback.
 */
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTls, startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { cli } from '../cli-helpers.js';
import { cond, IMG } from './fixtures.js';

vi.setConfig({ testTimeout: 60_000 });

const T = '2026-01-01T00:00:00Z';
const risk = (name: string, message: string) => ({
  name,
  url: `https://bugs/${name}`,
  message,
  matchingRules: [{ type: 'Always' }],
});
const rec = (status: string, reason: string, message: string) => ({
  type: 'Recommended',
  status,
  reason,
  message,
  lastTransitionTime: T,
});

/** One API request (over TLS with the sandbox's CA when it serves HTTPS). */
function req(sb: Sandbox, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${sb.url}${path}`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = send(
      url,
      {
        method,
        headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
        ...(sb.caCert !== undefined ? { ca: sb.caCert } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }),
        );
      },
    );
    r.on('error', reject);
    r.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function must(sb: Sandbox, method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await req(sb, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A 4.18.3 cluster offered 4.18.4/4.18.10/4.19.2 and, with risks, 4.18.5 and 4.19.1; Upgradeable=False. */
async function seedClusterVersion(sb: Sandbox): Promise<void> {
  await must(sb, 'POST', '/apis/config.openshift.io/v1/clusterversions', {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterVersion',
    metadata: { name: 'version' },
    spec: { clusterID: '6d8a2a5e-4a8b-4c39-9d64-2a1b4b9f3c11', channel: 'stable-4.18' },
  });
  const live = (await must(sb, 'GET', '/apis/config.openshift.io/v1/clusterversions/version')) as object;
  await must(sb, 'PUT', '/apis/config.openshift.io/v1/clusterversions/version/status', {
    ...live,
    status: {
      desired: { version: '4.18.3', image: IMG(3), channels: ['fast-4.18', 'stable-4.18'] },
      history: [
        { state: 'Completed', startedTime: T, completionTime: T, version: '4.18.3', image: IMG(3), verified: true },
      ],
      observedGeneration: 1,
      versionHash: 'h',
      availableUpdates: [
        { version: '4.18.4', image: IMG(4) },
        { version: '4.18.10', image: IMG(7) },
        { version: '4.19.2', image: IMG(9) },
      ],
      conditionalUpdates: [
        {
          release: { version: '4.18.5', image: IMG(5), url: 'https://errata/4.18.5' },
          risks: [risk('SomeBug', 'Clusters on AWS hit a bug.')],
          conditions: [rec('False', 'SomeBug', 'Clusters on AWS hit a bug.\nSee https://bugs/SomeBug')],
        },
        {
          release: { version: '4.19.1', image: IMG(8) },
          risks: [risk('OtherBug', 'another bug')],
          conditions: [rec('False', 'OtherBug', 'another bug https://bugs/OtherBug')],
        },
      ],
      conditions: [
        cond('Available', 'True'),
        cond('Failing', 'False'),
        cond('Progressing', 'False', undefined, 'Cluster version is 4.18.3'),
        cond('RetrievedUpdates', 'True'),
        cond('Upgradeable', 'False', 'AdminAckRequired', 'Kubernetes 1.32 removes APIs: an admin must acknowledge.'),
      ],
    },
  });
}

describe('keelson upgrade recommend, cluster without monitoring', () => {
  let sb: Sandbox;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    sb = await startSandbox({ openshiftCrds: ['ClusterVersion'] });
    dir = await mkdtemp(join(tmpdir(), 'keelson-recommend-'));
    kubeconfig = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
    await seedClusterVersion(sb);
  });
  afterAll(async () => {
    await sb.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the targets by minor, newest first, with their risks and the Upgradeable risk on 4.19', async () => {
    const r = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Failed to check for at least some preconditions: failed to get alerts from Thanos: .+\n/,
    );
    const rest = r.stdout.slice(r.stdout.indexOf('\n') + 1);
    expect(rest).toBe(
      [
        'Upstream update service is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.18 (available channels: fast-4.18, stable-4.18)',
        '',
        'Updates to 4.19:',
        '',
        '  Version: 4.19.2',
        `  Image: ${IMG(9)}`,
        '  Reason: AdminAckRequired',
        '  Message: Kubernetes 1.32 removes APIs: an admin must acknowledge.',
        '',
        '  Version: 4.19.1',
        `  Image: ${IMG(8)}`,
        '  Reason: MultipleReasons',
        '  Message: Kubernetes 1.32 removes APIs: an admin must acknowledge.',
        '  ',
        '  another bug https://bugs/OtherBug',
        '',
        'Updates to 4.18:',
        '  VERSION     ISSUES',
        '  4.18.10     no known issues relevant to this cluster',
        '',
        '  Version: 4.18.5',
        `  Image: ${IMG(5)}`,
        '  Reason: SomeBug',
        '  Message: Clusters on AWS hit a bug.',
        '  See https://bugs/SomeBug',
        '',
        "And 1 older 4.18 updates you can see with '--show-outdated-releases' or '--version VERSION'.",
        '',
      ].join('\n'),
    );
    const all = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig, '--show-outdated-releases');
    expect(all.stdout).toContain(
      '\nUpdates to 4.18:\n  VERSION     ISSUES\n  4.18.10     no known issues relevant to this cluster\n  4.18.5      SomeBug\n  4.18.4      no known issues relevant to this cluster\n',
    );
  });

  it('--version fails on unaccepted issues and passes once they are accepted', async () => {
    const r = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig, '--version', '4.18.5');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `\n\nUpdate to 4.18.5 Recommended=False:\nImage: ${IMG(5)}\nRelease URL: https://errata/4.18.5\nReason: SomeBug\nMessage: Clusters on AWS hit a bug.\n  See https://bugs/SomeBug\n`,
    );
    expect(r.stderr).toContain(
      'error: issues that apply to this cluster but which were not included in --accept: ConditionalUpdateRisk,FailedToCompletePrecheck',
    );
    const ok = await cli(
      'upgrade',
      'recommend',
      '--kubeconfig',
      kubeconfig,
      '--version',
      '4.18.5',
      '--accept',
      'ConditionalUpdateRisk',
      '--accept=FailedToCompletePrecheck',
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Reason: accepted SomeBug via ConditionalUpdateRisk\n');
    expect(ok.stdout).toContain(
      'Update to 4.18.5 has no known issues relevant to this cluster other than the accepted ConditionalUpdateRisk,FailedToCompletePrecheck.\n',
    );
    const quiet = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig, '--version', '4.18.4', '--quiet');
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toContain(
      'error: issues that apply to this cluster but which were not included in --accept: FailedToCompletePrecheck',
    );
  });

  it("refuses oc's bad flag combinations and unknown targets", async () => {
    const q = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig, '--quiet');
    expect([q.code, q.stderr.includes('--quiet can only be set when --version is set')]).toEqual([2, true]);
    const v = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig, '--version', '4.18');
    expect(v.code).toBe(2);
    expect(v.stderr).toContain('cannot parse SemVer target "4.18": No Major.Minor.Patch elements found');
    const none = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig, '--version', '4.20.0');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'error: no updates to 4.20 available, so cannot display context for the requested release 4.20.0',
    );
  });
});

describe('keelson upgrade recommend, alerts through the thanos-querier Route', () => {
  let sb: Sandbox;
  let dir: string;
  let kubeconfig: string;
  let alerts: Server;
  let hits = 0;
  beforeAll(async () => {
    sb = await startSandbox({ openshiftCrds: ['ClusterVersion'], tls: true });
    const tls = await generateTls();
    alerts = createServer({ key: tls.serverKey, cert: tls.serverCert }, (rq, rs) => {
      hits++;
      if (rq.url !== '/api/v1/alerts' || rq.headers.authorization !== `Bearer ${sb.token}`) {
        rs.writeHead(403).end('forbidden');
        return;
      }
      rs.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          status: 'success',
          data: {
            alerts: [
              {
                labels: { alertname: 'ClusterOperatorDown', severity: 'critical', name: 'monitoring' },
                annotations: {
                  summary: 'Cluster operator has not been available for 10 minutes.',
                  description: 'The monitoring operator may be down.',
                },
                state: 'firing',
              },
              { labels: { alertname: 'KubeNodeNotReady', severity: 'warning' }, annotations: {}, state: 'pending' },
            ],
          },
        }),
      );
    });
    await new Promise<void>((resolve) => alerts.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(alerts.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'keelson-recommend-tls-'));
    // oc reaches the Route with the API server's transport: the kubeconfig's CA bundle must trust the router
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: {
              server: sb.url,
              'certificate-authority-data': Buffer.from(`${sb.caCert ?? ''}${tls.caCert}`).toString('base64'),
            },
          },
        ],
        users: [{ name: 'u', user: { token: sb.token } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    await must(sb, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'routes.route.openshift.io' },
      spec: {
        group: 'route.openshift.io',
        names: { plural: 'routes', singular: 'route', kind: 'Route', listKind: 'RouteList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            subresources: { status: {} },
          },
        ],
      },
    });
    await must(sb, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'openshift-monitoring' },
    });
    const routes = '/apis/route.openshift.io/v1/namespaces/openshift-monitoring/routes';
    const route = {
      apiVersion: 'route.openshift.io/v1',
      kind: 'Route',
      metadata: { name: 'thanos-querier', namespace: 'openshift-monitoring' },
      spec: { host },
    };
    for (let i = 0; (await req(sb, 'POST', routes, route)).status !== 201; i++) {
      if (i > 50) throw new Error('the Route CRD was never served');
      await new Promise((r) => setTimeout(r, 100));
    }
    const live = (await must(sb, 'GET', `${routes}/thanos-querier`)) as object;
    await must(sb, 'PUT', `${routes}/thanos-querier/status`, { ...live, status: { ingress: [{ host }] } });
    await seedClusterVersion(sb);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => alerts.close(() => resolve()));
    await sb.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('turns the firing alerts into precheck conditions (pending ones ignored)', async () => {
    const r = await cli('upgrade', 'recommend', '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    expect(hits).toBeGreaterThan(0);
    expect(r.stdout).toContain(
      'The following conditions found no cause for concern in updating this cluster to later releases: recommended/NodeAlerts (AsExpected), recommended/PodDisruptionBudgetAlerts (AsExpected), recommended/PodImagePullAlerts (AsExpected)\n\n',
    );
    expect(r.stdout).toContain(
      'The following conditions found cause for concern in updating this cluster to later releases: recommended/CriticalAlerts/ClusterOperatorDown/0\n\nrecommended/CriticalAlerts/ClusterOperatorDown/0=False:\n\n  Reason: Alert:firing\n  Message: critical alert ClusterOperatorDown firing, suggesting significant cluster issues worth investigating. Cluster operator has not been available for 10 minutes. The alert description is: The monitoring operator may be down. <alert does not have a runbook_url annotation>\n\n',
    );
    const acc = await cli(
      'upgrade',
      'recommend',
      '--kubeconfig',
      kubeconfig,
      '--version',
      '4.18.10',
      '--accept',
      'ClusterOperatorDown',
    );
    expect(acc.code, acc.stderr).toBe(0);
    expect(acc.stdout).toContain(
      'but were explicitly accepted via --accept: recommended/CriticalAlerts/ClusterOperatorDown/0\n',
    );
    expect(acc.stdout).toContain('Update to 4.18.10 has no known issues relevant to this cluster.\n');
  });
});
