/**
 * The operator owns its operands (upstream syncMachineConfigDaemon / Controller / Server with
 * waitForDaemonsetRollout / waitForDeploymentRollout): the daemon DaemonSet first, the controller Deployment only
 * once the daemon rolled out, the server DaemonSet last; the release's image in each; a rollout that does not finish
 * fails the task with upstream's text. Real operator on the embedded API server, whose pod simulator (ReplicaSets,
 * DaemonSets, pods on ready nodes) rolls the workloads out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterOperators, ConfigMaps, ControllerConfigs, Informer, createLogger, nullLogger } from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { DaemonSets, Deployments, rolloutProblem, type Workload } from '../src/operator/operands.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const NS = 'openshift-machine-config-operator';
const IMAGE = `quay.io/test/mco@sha256:${'7'.repeat(64)}`;
const osimageurl = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'machine-config-osimageurl', namespace: NS },
  data: {
    baseOSContainerImage: `quay.io/test/rhcos@sha256:${'2'.repeat(64)}`,
    baseOSExtensionsContainerImage: '',
    releaseVersion: '4.99.0',
  },
};

describe('operator operands', () => {
  let tc: TestCluster;
  let operator: Running | undefined;
  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
    await tc.stop();
  });

  /** `extra` undefined: the operator's defaults (it owns its operands unless told otherwise). */
  const start = async (extra?: { rolloutTimeoutMs?: number } | false): Promise<void> => {
    await tc.client.resource(ConfigMaps).create(osimageurl);
    operator = await startMachineConfigOperator({
      kubeconfig: tc.kubeConfig,
      logger: process.env['DEBUG_OP'] ? createLogger({ level: 'debug' }) : nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 100,
      leaderElection: false,
      health: false,
      images: { machineConfigOperator: IMAGE },
      ...(extra !== undefined ? { operands: extra } : {}),
    });
  };

  it('by default applies daemon, controller, server in that order, each after the previous rolled out', async () => {
    tc = await startTestCluster([], { simulatePods: true });
    for (const n of ['m0', 'm1', 'm2'])
      tc.sandbox.setNodeReady(n, true, { 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/master': '' });
    const seen: string[] = [];
    const ds = new Informer(tc.client, DaemonSets, { namespace: NS });
    const deploy = new Informer(tc.client, Deployments, { namespace: NS });
    // when each workload appears, was the one before it rolled out?
    const before: Record<string, string | undefined> = {};
    ds.addHandlers({
      add: (w) => {
        seen.push(`DaemonSet/${w.metadata.name ?? ''}`);
        if (w.metadata.name === 'machine-config-server') {
          const d = deploy.store.get('machine-config-controller', NS);
          before['server'] = d === undefined ? 'absent' : (rolloutProblem(d) ?? 'rolled out');
        }
      },
    });
    deploy.addHandlers({
      add: (w) => {
        seen.push(`Deployment/${w.metadata.name ?? ''}`);
        const d = ds.store.get('machine-config-daemon', NS);
        before['controller'] = d === undefined ? 'absent' : (rolloutProblem(d) ?? 'rolled out');
      },
    });
    ds.start();
    deploy.start();
    await start();
    // the controller Deployment rolled out; its task then waits for the ControllerConfig, as upstream's
    // syncMachineConfigController: the server comes only after the template controller (played here) completed it
    await waitFor('controller Deployment rolled out', () => {
      const d = deploy.store.get('machine-config-controller', NS);
      return d !== undefined && rolloutProblem(d) === undefined ? d : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(ds.store.get('machine-config-server', NS)).toBeUndefined();
    const cc = await waitFor('ControllerConfig', () =>
      tc.client
        .resource(ControllerConfigs)
        .get('machine-config-controller')
        .catch(() => undefined),
    );
    const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const c = (type: string, status: string) => ({ type, status, lastTransitionTime: t, message: '' });
    await tc.client.resource(ControllerConfigs).updateStatus({
      ...cc,
      status: {
        observedGeneration: cc.metadata.generation ?? 1,
        conditions: [
          c('TemplateControllerCompleted', 'True'),
          c('TemplateControllerRunning', 'False'),
          c('TemplateControllerFailing', 'False'),
        ],
      },
    } as typeof cc);
    const server = await waitFor('server DaemonSet rolled out', () => {
      const s = ds.store.get('machine-config-server', NS);
      return s !== undefined && rolloutProblem(s) === undefined ? s : undefined;
    });
    expect(seen).toEqual([
      'DaemonSet/machine-config-daemon',
      'Deployment/machine-config-controller',
      'DaemonSet/machine-config-server',
    ]);
    expect(before).toEqual({ controller: 'rolled out', server: 'rolled out' });
    const container = (w: Workload | undefined): { image?: string } | undefined =>
      (w?.spec?.['template'] as { spec: { containers: Array<{ image?: string }> } } | undefined)?.spec.containers[0];
    expect(container(server)?.image).toBe(IMAGE);
    expect(container(ds.store.get('machine-config-daemon', NS))?.image).toBe(IMAGE);
    expect(
      server.metadata.annotations?.['include.release.openshift.io/self-managed-high-availability'],
    ).toBeUndefined();
    // an unchanged cluster: no more spec writes (generations stay) over several resyncs
    const gens = (): Array<number | undefined> =>
      [...ds.store.list(), ...deploy.store.list()].map((w) => w.metadata.generation);
    const g0 = gens();
    await new Promise((r) => setTimeout(r, 600));
    expect(gens()).toEqual(g0);
    await ds.stop();
    await deploy.stop();
  }, 60_000);

  it('a daemon rollout that never finishes: Progressing with the wait, then MachineConfigDaemonFailed', async () => {
    tc = await startTestCluster(); // no pod simulator: nothing rolls the DaemonSet out
    await start({ rolloutTimeoutMs: 800 });
    const co = (): Promise<
      | { extension?: unknown; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> }
      | undefined
    > =>
      tc.client
        .resource(ClusterOperators)
        .get('machine-config')
        .then((c) => c.status)
        .catch(() => undefined);
    const waiting = await waitFor('the daemon wait in the ClusterOperator', async () => {
      const s = await co();
      return JSON.stringify(s?.extension ?? {}).includes('daemonset machine-config-daemon is not ready')
        ? s
        : undefined;
    });
    expect(waiting.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'True',
      message: 'Working towards 4.99.0',
    });
    await expect(tc.client.resource(Deployments).get('machine-config-controller', NS)).rejects.toThrow();
    const degraded = await waitFor('Degraded', async () => {
      const d = (await co())?.conditions?.find((c) => c.type === 'Degraded');
      return d?.status === 'True' ? d : undefined;
    });
    expect(degraded).toMatchObject({
      reason: 'MachineConfigDaemonFailed',
      message:
        'Unable to apply 4.99.0: error during waitForDaemonsetRollout: [context deadline exceeded, daemonset machine-config-daemon is not ready. status: (desired: 0, updated: 0, ready: 0, unavailable: 0)]',
    });
  }, 60_000);

  it('operands: false: the operator applies no workload and does not wait for one', async () => {
    tc = await startTestCluster();
    await start(false);
    const available = await waitFor('ClusterOperator reports the render done', async () => {
      const s = await tc.client
        .resource(ClusterOperators)
        .get('machine-config')
        .then((c) => c.status)
        .catch(() => undefined);
      return s?.conditions?.some((c) => c.type === 'Progressing') === true ? s : undefined;
    });
    expect(JSON.stringify(available.extension ?? {})).not.toContain('is not ready');
    expect((await tc.client.resource(DaemonSets).list({ namespace: NS })).items).toEqual([]);
    expect((await tc.client.resource(Deployments).list({ namespace: NS })).items).toEqual([]);
  }, 60_000);
});
