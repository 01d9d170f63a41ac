import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_DIR } from '@keelson/api';
import { loadYaml } from '@kubernetes/client-node';
import { startSandbox, type Sandbox, type SandboxOptions } from '@keelson/kube-sandbox';
import { KubeClient, isAlreadyExists } from '../src/index.js';

/** Start a real sandbox API server (HTTP on 127.0.0.1) and a client for it. */
export async function sandboxWithClient(
  opts: SandboxOptions = {},
): Promise<{ sandbox: Sandbox; client: KubeClient; stop: () => Promise<void> }> {
  const sandbox = await startSandbox(opts);
  const client = KubeClient.fromKubeconfigString(sandbox.kubeconfigYaml());
  return {
    sandbox,
    client,
    stop: async () => {
      await client.close();
      await sandbox.stop();
    },
  };
}

/** Install one of the upstream OpenShift CRDs shipped in @keelson/api and wait until it is served. */
export async function installCrd(client: KubeClient, file: string, plural: string, group: string): Promise<void> {
  const text = readFileSync(join(CRD_DIR, file), 'utf8');
  const crd = loadYaml<Record<string, unknown>>(text);
  try {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  for (let i = 0; i < 100; i++) {
    try {
      await client.request('GET', `/apis/${group}/v1/${plural}`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`CRD ${plural}.${group} was not served in time`);
}

export const MCP_CRD = '0000_80_machine-config_01_machineconfigpools.crd.yaml';
export const CO_CRD = '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml';

/** Poll `fn` until it returns true (or throw after `ms`). */
export async function until(fn: () => boolean | Promise<boolean>, ms = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
