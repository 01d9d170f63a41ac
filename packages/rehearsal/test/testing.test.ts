/**
 * `@keelson/rehearsal/testing` as an operator author uses it: the real CVO applies a release that ships "their"
 * operator (the `console` component), fake operators report every other ClusterOperator, and the author's operator,
 * here a small loop, reports its own. The CVO completes the release only once that operator reported its version.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { RunningCvo } from '@keelson/cluster-version-operator';
import type { OperatorSimulator } from '@keelson/kube-sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startCvo,
  startFakeOperators,
  startOpenShiftSandbox,
  waitFor,
  WaitTimeoutError,
  writeTestRelease,
  type OpenShiftSandbox,
} from '../src/testing/index.js';

const CVO_MANIFESTS = join(
  dirname(createRequire(import.meta.url).resolve('@keelson/cluster-version-operator/package.json')),
  'manifests',
);
const CV = '/apis/config.openshift.io/v1/clusterversions/version';
const CO = '/apis/config.openshift.io/v1/clusteroperators/console';

interface ClusterVersion {
  status?: { history?: { state: string; version: string }[]; conditions?: { type: string; message?: string }[] };
}
interface Deployment {
  status?: { availableReplicas?: number };
  spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } };
}

let cluster: OpenShiftSandbox;
let fakes: OperatorSimulator;
let cvo: RunningCvo | undefined;
let stopMine = false;

/** "Your" operator: once its Deployment is available, it reports Available at its RELEASE_VERSION. */
async function myOperator(c: OpenShiftSandbox): Promise<void> {
  while (!stopMine) {
    const d = await c.client
      .request<Deployment>('GET', '/apis/apps/v1/namespaces/openshift-console/deployments/console-operator')
      .catch(() => undefined);
    const version = d?.spec?.template?.spec?.containers?.[0]?.env?.find((e) => e.name === 'RELEASE_VERSION')?.value;
    if ((d?.status?.availableReplicas ?? 0) > 0 && version !== undefined) {
      const now = new Date().toISOString();
      const cond = (type: string, status: string) => ({ type, status, lastTransitionTime: now, reason: 'AsExpected' });
      await c.client
        .request('PATCH', `${CO}/status`, {
          body: {
            status: {
              conditions: [cond('Available', 'True'), cond('Progressing', 'False'), cond('Degraded', 'False')],
              versions: [{ name: 'operator', version }],
            },
          },
          contentType: 'application/merge-patch+json',
        })
        .catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  cluster = await startOpenShiftSandbox();
  fakes = await startFakeOperators({ kubeconfigPath: cluster.kubeconfigPath, except: ['console'] });
}, 60_000);

afterAll(async () => {
  stopMine = true;
  await cvo?.stop();
  await fakes?.stop();
  await cluster?.stop();
});

describe('@keelson/rehearsal/testing', () => {
  it('serves the OpenShift CRDs and ClusterVersion version as an installer leaves them', async () => {
    const cv = await cluster.client.request<{ spec: { clusterID: string } }>('GET', CV);
    expect(cv.spec.clusterID).toMatch(/^[0-9a-f-]{36}$/);
    await cluster.client.request('GET', '/apis/machineconfiguration.openshift.io/v1/machineconfigpools');
    await cluster.client.request('GET', '/apis/config.openshift.io/v1/infrastructures');
  });

  it('waitFor returns the first value that holds, and names what it waited for when it gives up', async () => {
    let n = 0;
    expect(await waitFor('n to reach 3', () => (++n >= 3 ? n : undefined), { intervalMs: 1 })).toBe(3);
    const err = await waitFor(
      'a ClusterOperator nobody creates',
      () => cluster.client.request('GET', '/apis/config.openshift.io/v1/clusteroperators/nobody'),
      { timeoutMs: 200 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as Error).message).toMatch(/a ClusterOperator nobody creates .*last error: .*not found/i);
  });

  it('the real CVO completes a release once your operator reported its version', { timeout: 120_000 }, async () => {
    const payloadDir = await writeTestRelease(join(cluster.dir, 'release'), {
      version: '4.18.0',
      cvoManifestsDir: CVO_MANIFESTS,
    });
    cvo = await startCvo(cluster, { payloadDir });
    // the CVO reaches run level 70 and waits for clusteroperator/console, which nobody reports yet
    const waiting = await waitFor(
      'the CVO to report it waits for clusteroperator/console',
      async () => {
        const cv = await cluster.client.request<ClusterVersion>('GET', CV);
        return cv.status?.conditions?.find((c) => c.type === 'Progressing' && /console/.test(c.message ?? ''));
      },
      { timeoutMs: 60_000 },
    );
    expect(waiting.message).toMatch(/console/);
    expect((await cluster.client.request<ClusterVersion>('GET', CV)).status?.history?.[0]?.state).toBe('Partial');
    void myOperator(cluster);
    const done = await waitFor(
      'ClusterVersion history to show 4.18.0 Completed',
      async () => {
        const cv = await cluster.client.request<ClusterVersion>('GET', CV);
        const h = cv.status?.history?.[0];
        return h?.state === 'Completed' ? h : undefined;
      },
      { timeoutMs: 90_000 },
    );
    expect(done.version).toBe('4.18.0');
    const co = await cluster.client.request<{ status: { versions: { version: string }[] } }>('GET', CO);
    expect(co.status.versions[0]?.version).toBe('4.18.0');
  });
});
