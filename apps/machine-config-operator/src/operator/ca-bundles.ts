/**
 * The CA bundles of the ControllerConfig (`spec.rootCAData`, `spec.kubeAPIServerServingCAData`), read from the
 * ConfigMaps upstream reads (openshift/machine-config-operator `pkg/operator/sync.go`, `syncRenderConfig`):
 * - root CA: `openshift-machine-config-operator/machine-config-server-ca` `ca-bundle.crt`, else (not found)
 *   `kube-system/root-ca` `ca.crt`;
 * - kube-apiserver serving CA: once the cluster is bootstrapped (`kube-system/bootstrap` exists) and the operator is
 *   past its bring-up, `openshift-config-managed/kube-apiserver-client-ca` `ca-bundle.crt`; before, the installer's
 *   `openshift-config/initial-kube-apiserver-server-ca` `ca-bundle.crt` with its `kube-apiserver-to-kubelet-signer`
 *   certificate replaced by `openshift-kube-apiserver-operator/kube-apiserver-to-kubelet-client-ca` when that exists
 *   (`mergeCertWithCABundle`).
 */
import { X509Certificate } from 'node:crypto';
import { isNotFound, type KubeClient } from '@keelson/kube';
import type { ConfigMap } from '../common/api-types.js';
import { MCO_NAMESPACE } from '../common/constants.js';
import { OperatorSyncError } from '@keelson/machineconfig';

/** The two bundles, as bytes (PEM text in practice). */
export interface CABundles {
  rootCA: Buffer;
  kubeAPIServerServingCA: Buffer;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * `ctrlcommon.GetCAsFromConfigMap`: `binaryData[key]`, else `data[key]` base64-decoded when it is base64 (Go's
 * decoder skips newlines), else the text as is.
 * @throws OperatorSyncError (RenderConfig) when the key is in neither
 */
export function caFromConfigMap(cm: ConfigMap, key: string): Buffer {
  const bin = (cm as { binaryData?: Record<string, string> }).binaryData?.[key];
  if (bin !== undefined) return Buffer.from(bin, 'base64');
  const d = cm.data?.[key];
  if (d !== undefined) {
    const compact = d.replace(/[\r\n]/g, '');
    return STRICT_BASE64.test(compact) ? Buffer.from(compact, 'base64') : Buffer.from(d, 'utf8');
  }
  throw new OperatorSyncError(
    'RenderConfig',
    `${key} not found in ${cm.metadata.namespace ?? ''}/${cm.metadata.name ?? ''}`,
  );
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----\r?\n?/g;

/**
 * `mergeCertWithCABundle`: the certificates of `initial`, each one whose subject names `subject` replaced by all of
 * `replacement`. Blocks that are not parseable certificates are kept, as upstream re-encodes every PEM block.
 */
export function mergeCertWithCABundle(initial: Buffer, replacement: Buffer, subject: string): Buffer {
  const out: Buffer[] = [];
  for (const m of initial.toString('utf8').matchAll(PEM_BLOCK)) {
    const block = m[0].endsWith('\n') ? m[0] : `${m[0]}\n`;
    let subj = '';
    try {
      subj = new X509Certificate(block).subject;
    } catch {
      // not a certificate: re-encoded as is
    }
    out.push(subj.includes(subject) ? replacement : Buffer.from(block, 'utf8'));
  }
  return Buffer.concat(out);
}

async function getConfigMap(client: KubeClient, namespace: string, name: string): Promise<ConfigMap | undefined> {
  try {
    return await client.request<ConfigMap>('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

async function requiredCA(client: KubeClient, namespace: string, name: string, key: string): Promise<Buffer> {
  const cm = await getConfigMap(client, namespace, name);
  // the lister's NotFound text
  if (cm === undefined) throw new OperatorSyncError('RenderConfig', `configmap "${name}" not found`);
  return caFromConfigMap(cm, key);
}

/**
 * Reads both bundles. `inClusterBringup`: the operator has not completed a sync since it started in a cluster
 * without the ControllerConfig CRD (upstream keeps the installer's bundle until then).
 * @throws OperatorSyncError (RenderConfig) when a required ConfigMap or key is missing
 */
export async function readCABundles(client: KubeClient, inClusterBringup: boolean): Promise<CABundles> {
  const mcsCA = await getConfigMap(client, MCO_NAMESPACE, 'machine-config-server-ca');
  const rootCA =
    mcsCA !== undefined
      ? caFromConfigMap(mcsCA, 'ca-bundle.crt')
      : await requiredCA(client, 'kube-system', 'root-ca', 'ca.crt');
  const bootstrapComplete = (await getConfigMap(client, 'kube-system', 'bootstrap')) !== undefined;
  if (bootstrapComplete && !inClusterBringup)
    return {
      rootCA,
      kubeAPIServerServingCA: await requiredCA(
        client,
        'openshift-config-managed',
        'kube-apiserver-client-ca',
        'ca-bundle.crt',
      ),
    };
  const initial = await requiredCA(client, 'openshift-config', 'initial-kube-apiserver-server-ca', 'ca-bundle.crt');
  const kubelet = await getConfigMap(
    client,
    'openshift-kube-apiserver-operator',
    'kube-apiserver-to-kubelet-client-ca',
  );
  let current: Buffer | undefined;
  try {
    current = kubelet !== undefined ? caFromConfigMap(kubelet, 'ca-bundle.crt') : undefined;
  } catch {
    current = undefined; // upstream: any error reading it keeps the initial bundle
  }
  return {
    rootCA,
    kubeAPIServerServingCA:
      current !== undefined ? mergeCertWithCABundle(initial, current, 'kube-apiserver-to-kubelet-signer') : initial,
  };
}
