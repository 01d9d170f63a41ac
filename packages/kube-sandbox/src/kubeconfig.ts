/** Kubeconfig documents for a running sandbox. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

/** A kubeconfig (clientcmd v1 Config) as a plain object. */
export interface Kubeconfig {
  apiVersion: 'v1';
  kind: 'Config';
  'current-context': string;
  clusters: {
    name: string;
    cluster: { server: string; 'certificate-authority-data'?: string; 'insecure-skip-tls-verify'?: boolean };
  }[];
  users: { name: string; user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  preferences: Record<string, never>;
}

/** Builds a kubeconfig. */
export function buildKubeconfig(opts: {
  server: string;
  token: string;
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
  name?: string;
  namespace?: string;
}): Kubeconfig {
  const name = opts.name ?? 'keelson-sandbox';
  const cluster: Kubeconfig['clusters'][number]['cluster'] = { server: opts.server };
  if (opts.caCert) cluster['certificate-authority-data'] = Buffer.from(opts.caCert).toString('base64');
  const user: Kubeconfig['users'][number]['user'] = { token: opts.token };
  if (opts.clientCert && opts.clientKey) {
    user['client-certificate-data'] = Buffer.from(opts.clientCert).toString('base64');
    user['client-key-data'] = Buffer.from(opts.clientKey).toString('base64');
  }
  const context: Kubeconfig['contexts'][number]['context'] = { cluster: name, user: `${name}-admin` };
  if (opts.namespace) context.namespace = opts.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': name,
    clusters: [{ name, cluster }],
    users: [{ name: `${name}-admin`, user }],
    contexts: [{ name, context }],
    preferences: {},
  };
}

/** Serializes a kubeconfig to YAML. */
export function kubeconfigYaml(k: Kubeconfig): string {
  return stringify(k);
}

/** Writes a kubeconfig file with mode 0600, creating parent directories. */
export async function writeKubeconfig(k: Kubeconfig, path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(k), { mode: 0o600 });
  return path;
}
