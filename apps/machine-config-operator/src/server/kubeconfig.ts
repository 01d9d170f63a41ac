/**
 * The bootstrap kubeconfig handed to new machines (cluster_server.go kubeconfigFromSecret): cluster "local" with
 * the API server URL and CA, user "kubelet" with the node-bootstrapper token, context "kubelet".
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Default directory of the node-bootstrapper token (`token`, `ca.crt`). */
export const BOOTSTRAP_TOKEN_DIR = '/etc/mcs/bootstrap-token';

/** The token directory cannot be read. */
export class BootstrapKubeconfigError extends Error {
  readonly code = 'MCS_KUBECONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'BootstrapKubeconfigError';
  }
}

/** Renders the kubeconfig YAML (key order of the Go YAML marshaller). */
export function renderBootstrapKubeconfig(apiserverURL: string, caData: Buffer, token: string): string {
  return [
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${caData.toString('base64')}`,
    `    server: ${apiserverURL}`,
    '  name: local',
    'contexts:',
    '- context:',
    '    cluster: local',
    '    user: kubelet',
    '  name: kubelet',
    'current-context: kubelet',
    'preferences: {}',
    'users:',
    '- name: kubelet',
    '  user:',
    `    token: ${token}`,
    '',
  ].join('\n');
}

/** Reads token (and CA unless given) from `dir` and renders the kubeconfig. */
export async function kubeconfigFromSecretDir(dir: string, apiserverURL: string, caData?: Buffer): Promise<string> {
  let ca = caData;
  if (ca === undefined) {
    try {
      ca = await readFile(join(dir, 'ca.crt'));
    } catch (e) {
      throw new BootstrapKubeconfigError(`failed to read ${join(dir, 'ca.crt')}: ${(e as Error).message}`);
    }
  }
  let token: string;
  try {
    token = await readFile(join(dir, 'token'), 'utf8');
  } catch (e) {
    throw new BootstrapKubeconfigError(`failed to read ${join(dir, 'token')}: ${(e as Error).message}`);
  }
  return renderBootstrapKubeconfig(apiserverURL, ca, token);
}
