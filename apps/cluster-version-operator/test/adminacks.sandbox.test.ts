/**
 * Issue 22 §2: admin-ack gates. The CVO ships `admin-gates`/`admin-acks` (upstream install/ manifests); a gate of the
 * current minor makes Upgradeable=False `AdminAckRequired` with the gate's text, which blocks a minor update
 * (precondition ClusterVersionUpgradeable) until the administrator acknowledges it; with more than one reason the
 * sub-conditions are written too, sorted by type, as upstream release-4.20 `pkg/cvo/upgradeable.go`.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullLogger, type KubeClient } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type RunningCvo } from '../src/index.js';
import {
  OperatorReporterDouble,
  Signer,
  startCluster,
  waitFor,
  writeFixturePayload,
  writeOciLayout,
} from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const CV_PATH = '/apis/config.openshift.io/v1/clusterversions/version';
const GATES = '/api/v1/namespaces/openshift-config-managed/configmaps/admin-gates';
const ACKS = '/api/v1/namespaces/openshift-config/configmaps/admin-acks';
const GATE = 'ack-4.18-kube-1.32-api-removals-in-4.19';
const GATE_TEXT = 'Kubernetes 1.32 and therefore OpenShift 4.19 remove several APIs which require admin consideration.';

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface CV {
  status?: { history?: { state: string; version: string }[]; conditions?: Cond[] };
}

let sandbox: Sandbox;
let client: KubeClient;
let dir: string;
let cvo: RunningCvo;
let reporter: OperatorReporterDouble;
let imageB = '';

const getCv = (): Promise<CV> => client.request<CV>('GET', CV_PATH);
const cond = (cv: CV, type: string): Cond | undefined => cv.status?.conditions?.find((c) => c.type === type);
const merge = (path: string, body: unknown): Promise<unknown> =>
  client.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });

beforeAll(async () => {
  ({ sandbox, client, dir } = await startCluster());
  const signer = await Signer.create();
  const store = join(dir, 'signatures');
  const verification = { publicKey: signer.publicKey(), store: `file://${store}` };
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0', { verification });
  const payloadB = await writeFixturePayload(join(dir, 'payload-b'), '4.19.0', { verification });
  const digestB = await writeOciLayout(payloadB, join(dir, 'layout-b'));
  await signer.sign(store, digestB, 'quay.io/keelson/release:4.19.0');
  imageB = `oci:${join(dir, 'layout-b')}@${digestB}`;
  reporter = new OperatorReporterDouble(client);
  reporter.start();
  cvo = await startClusterVersionOperator({
    kubeconfig: await sandbox.writeKubeconfig(join(dir, 'kc')),
    payloadDir: payloadA,
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: 0.002,
    intervals: { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 },
    logger: nullLogger,
  });
}, 60_000);

afterAll(async () => {
  reporter?.stop();
  await cvo?.stop();
  await sandbox?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('admin acks (issue 22 §2)', () => {
  it('installs the admin-gates and admin-acks ConfigMaps; no gate: no Upgradeable condition', async () => {
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return c.status?.history?.[0]?.state === 'Completed' && cond(c, 'Progressing')?.status === 'False'
          ? c
          : undefined;
      },
      30_000,
      'A installed',
    );
    expect(cond(cv, 'Upgradeable')).toBeUndefined();
    await expect(client.request('GET', GATES)).resolves.toBeDefined();
    await expect(client.request('GET', ACKS)).resolves.toBeDefined();
  });

  it('a gate of the current minor makes Upgradeable=False AdminAckRequired and blocks the minor update', async () => {
    await merge(GATES, { data: { [GATE]: GATE_TEXT, 'ack-4.17-old-in-4.18': 'not for this minor' } });
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'Upgradeable')?.reason === 'AdminAckRequired' ? c : undefined;
      },
      20_000,
      'Upgradeable=False AdminAckRequired',
    );
    expect(cond(cv, 'Upgradeable')).toMatchObject({ status: 'False', message: GATE_TEXT });
    expect(cond(cv, 'UpgradeableAdminAckRequired')).toBeUndefined();
    await merge(CV_PATH, { spec: { desiredUpdate: { image: imageB, version: '4.19.0' } } });
    const blocked = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'ReleaseAccepted')?.reason === 'PreconditionChecks' ? c : undefined;
      },
      20_000,
      'ReleaseAccepted=False PreconditionChecks',
    );
    expect(cond(blocked, 'ReleaseAccepted')?.message).toContain(
      `Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": ${GATE_TEXT}`,
    );
  });

  it('with more than one reason the sub-conditions are written too, sorted by type', async () => {
    await merge(CV_PATH, {
      spec: {
        overrides: [
          { kind: 'ConfigMap', group: '', namespace: 'openshift-ingress', name: 'ingress-config', unmanaged: true },
        ],
      },
    });
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return cond(c, 'Upgradeable')?.reason === 'MultipleReasons' ? c : undefined;
      },
      20_000,
      'Upgradeable=False MultipleReasons',
    );
    const family = (cv.status?.conditions ?? []).filter((c) => c.type.startsWith('Upgradeable'));
    expect(family.map((c) => `${c.type}/${c.reason ?? ''}`)).toEqual([
      'Upgradeable/MultipleReasons',
      'UpgradeableAdminAckRequired/AdminAckRequired',
      'UpgradeableClusterVersionOverrides/ClusterVersionOverridesSet',
    ]);
    expect(cond(cv, 'Upgradeable')?.message).toBe(
      `Cluster should not be upgraded between minor versions for multiple reasons: ClusterVersionOverridesSet,AdminAckRequired\n* Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.\n* ${GATE_TEXT}`,
    );
    await client.request('PATCH', CV_PATH, {
      body: [{ op: 'remove', path: '/spec/overrides' }],
      contentType: 'application/json-patch+json',
    });
    await waitFor(
      async () => {
        const c = await getCv();
        return (
          cond(c, 'Upgradeable')?.reason === 'AdminAckRequired' &&
          cond(c, 'UpgradeableClusterVersionOverrides') === undefined &&
          cond(c, 'UpgradeableAdminAckRequired') === undefined
        );
      },
      20_000,
      'the sub-conditions removed with the second reason',
    );
  });

  it('the acknowledgement unblocks the minor update, which completes', async () => {
    await merge(ACKS, { data: { [GATE]: 'true' } });
    const cv = await waitFor(
      async () => {
        const c = await getCv();
        return c.status?.history?.[0]?.version === '4.19.0' && c.status.history[0].state === 'Completed'
          ? c
          : undefined;
      },
      60_000,
      '4.19.0 Completed',
    );
    expect(cv.status?.history?.map((h) => `${h.version} ${h.state}`)).toEqual(['4.19.0 Completed', '4.18.0 Completed']);
    // 4.19 is current: the 4.18 gate no longer applies even without its ack
    await merge(ACKS, { data: { [GATE]: null } });
    await waitFor(
      async () => cond(await getCv(), 'Upgradeable') === undefined,
      20_000,
      'no Upgradeable condition on 4.19',
    );
  });
});
