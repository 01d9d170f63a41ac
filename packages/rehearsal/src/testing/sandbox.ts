/**
 * An embedded API server (`@keelson/kube-sandbox`, validating and defaulting as kube-apiserver does) holding what an
 * OpenShift installer leaves before the CVO starts: the OpenShift CRDs (`@keelson/api`'s copies of upstream's), the
 * CVO's namespace, the `openshift-user-critical` PriorityClass and ClusterVersion `version`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfigCrds, loadCrds } from '@keelson/api';
import { isAlreadyExists, KubeClient } from '@keelson/kube';
import { startSandbox, type Sandbox } from '@keelson/kube-sandbox';
import { installCrds } from '../bootstrap-crds.js';
import { bootstrapPriorityClasses } from '../priority-classes.js';

/** Options of {@link startOpenShiftSandbox}. */
export interface OpenShiftSandboxOptions {
  /** ClusterVersion `spec.channel` (default `stable-4.18`). */
  channel?: string;
  /** ClusterVersion `spec.upstream`, the update service the CVO polls (default: none). */
  upstream?: string;
  /** Pods get a node and run (the sandbox's pod simulation, as a scheduler and kubelets would); default true. */
  simulatePods?: boolean;
  /** Ready Nodes created at start, labelled `node-role.kubernetes.io/master` (default `master-0`..`master-2`). */
  masters?: readonly string[];
}

/** A started {@link startOpenShiftSandbox}. */
export interface OpenShiftSandbox {
  readonly sandbox: Sandbox;
  /** An admin client of the sandbox. */
  readonly client: KubeClient;
  /** The admin kubeconfig file (for operators that take `--kubeconfig`). */
  readonly kubeconfigPath: string;
  /** A scratch directory removed by {@link OpenShiftSandbox.stop}. */
  readonly dir: string;
  /** Stops the API server and removes {@link OpenShiftSandbox.dir}. */
  stop(): Promise<void>;
}

/** ClusterVersion as the installer creates it (the CVO fills in its status). */
export const CLUSTER_ID = 'c0ffee00-1234-4abc-8def-0123456789ab';

async function createIfMissing(client: KubeClient, path: string, body: unknown): Promise<void> {
  try {
    await client.request('POST', path, { body });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** Starts the sandbox and creates the installer's objects; the CRDs are Established when it resolves. */
export async function startOpenShiftSandbox(opts: OpenShiftSandboxOptions = {}): Promise<OpenShiftSandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'keelson-testing-'));
  const sandbox = await startSandbox({ simulatePods: opts.simulatePods ?? true });
  try {
    for (const n of opts.masters ?? ['master-0', 'master-1', 'master-2'])
      sandbox.setNodeReady(n, true, { 'node-role.kubernetes.io/master': '' });
    const kubeconfigPath = await sandbox.writeKubeconfig(join(dir, 'kubeconfig'));
    const client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
    const crds = [...(await loadCrds()), ...(await loadConfigCrds())];
    await installCrds(client, crds);
    await bootstrapPriorityClasses(client);
    await createIfMissing(client, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'openshift-cluster-version' },
    });
    await createIfMissing(client, '/apis/config.openshift.io/v1/clusterversions', {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version' },
      spec: {
        clusterID: CLUSTER_ID,
        channel: opts.channel ?? 'stable-4.18',
        ...(opts.upstream !== undefined ? { upstream: opts.upstream } : {}),
      },
    });
    return {
      sandbox,
      client,
      kubeconfigPath,
      dir,
      stop: async () => {
        await client.close();
        await sandbox.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await sandbox.stop();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
