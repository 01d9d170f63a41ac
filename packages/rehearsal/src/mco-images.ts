/**
 * The rehearsal's stand-in for the operator Deployment's `images` volume: upstream's machine-config-operator Pod mounts
 * ConfigMap `openshift-machine-config-operator/machine-config-operator-images` at `/etc/mco/images` and starts with
 * `--images-json=/etc/mco/images/images.json` (openshift/machine-config-operator release-4.20
 * `install/0000_80_machine-config_02_images.configmap.yaml`, `…_04_deployment.yaml`). The CVO applies that ConfigMap
 * from the release (its placeholders replaced with the release's image-references pull specs) before it rolls out the
 * Deployment, so the operator of release V reads release V's images.json; the operator itself checks its
 * `releaseVersion` (`pkg/operator/sync.go` `syncRenderConfig`).
 */
import { isNotFound, KubeClient } from '@keelson/kube';

export const MCO_IMAGES_NAMESPACE = 'openshift-machine-config-operator';
export const MCO_IMAGES_CONFIGMAP = 'machine-config-operator-images';
/** Bound on images.json (a real one is under 1 KiB; ConfigMaps are at most 1 MiB). */
const MAX_IMAGES_JSON = 64 * 1024;

/** images.json that is not a JSON object of strings. */
export class McoImagesError extends Error {
  override name = 'McoImagesError';
}

/**
 * Parses images.json as the kubelet would hand it to the operator: a JSON object whose values are strings.
 * @throws McoImagesError naming the ConfigMap key and the offending field
 */
export function parseImagesJson(text: string): Record<string, string> {
  const where = `configmap ${MCO_IMAGES_NAMESPACE}/${MCO_IMAGES_CONFIGMAP} key images.json`;
  if (text.length > MAX_IMAGES_JSON)
    throw new McoImagesError(`${where}: ${text.length} bytes, more than ${MAX_IMAGES_JSON}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new McoImagesError(`${where}: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new McoImagesError(`${where}: not a JSON object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc)) {
    if (typeof v !== 'string') throw new McoImagesError(`${where}: field ${k} is not a string`);
    out[k] = v;
  }
  return out;
}

/** How long {@link readMcoImages} keeps retrying API errors (the kubelet retries a volume it cannot mount yet). */
export interface McoImagesRetry {
  /** Give up after this long (default 60 s), with the last error. */
  timeoutMs?: number;
  /** First pause (default 100 ms), doubled per attempt up to `maxDelayMs` (default 2 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

async function getImagesConfigMap(client: KubeClient): Promise<Record<string, string> | undefined> {
  try {
    const cm = await client.request<{ data?: Record<string, string> }>(
      'GET',
      `/api/v1/namespaces/${MCO_IMAGES_NAMESPACE}/configmaps/${MCO_IMAGES_CONFIGMAP}`,
    );
    return cm.data ?? {};
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * images.json of the release the cluster runs now, read with the operator's credentials; `undefined` when the release
 * ships no such ConfigMap (releases without it: the operator then starts without images, as before). API errors (e.g.
 * `--fault api-errors`) are retried with backoff, as the kubelet retries mounting the volume.
 * @throws McoImagesError when the ConfigMap has no images.json or it is not a JSON object of strings
 */
export async function readMcoImages(
  kubeconfigPath: string,
  retry: McoImagesRetry = {},
): Promise<Record<string, string> | undefined> {
  const client = KubeClient.fromKubeconfigFile(kubeconfigPath, { userAgent: 'keelson-rehearse/mco-images' });
  const end = Date.now() + (retry.timeoutMs ?? 60_000);
  let delay = retry.initialDelayMs ?? 100;
  try {
    for (;;) {
      let data: Record<string, string> | undefined;
      try {
        data = await getImagesConfigMap(client);
      } catch (e) {
        if (Date.now() + delay > end) throw e;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, retry.maxDelayMs ?? 2_000);
        continue;
      }
      if (data === undefined) return undefined;
      const text = data['images.json'];
      if (text === undefined)
        throw new McoImagesError(`configmap ${MCO_IMAGES_NAMESPACE}/${MCO_IMAGES_CONFIGMAP} has no key images.json`);
      return parseImagesJson(text);
    }
  } finally {
    await client.close();
  }
}
