/**
 * Payload retrieval as upstream does it in a cluster (cluster-version-operator `pkg/cvo/updatepayload.go`
 * `targetUpdatePayloadDir`, `fetchUpdatePayloadToDir`, `waitForPodCompletion`, `prunePods`): a privileged Pod
 * `version-<version>-<rand>` on the CVO's own node copies `/manifests` and `/release-manifests` out of the release
 * image into the hostPath `/etc/cvo/updatepayloads/<base64url(md5(image))>`, so the image is pulled by the node's
 * container runtime with the node's mirrors, pull secret, proxy and registry CAs. The CVO then reads that directory
 * through its own hostPath mount.
 */
import { createHash, randomInt } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, type KubeClient, type KubeObject, type Logger } from '@keelson/kube';

/** Upstream `targetUpdatePayloadsDir`: the node directory (and the mount path in the Pod). */
export const TARGET_UPDATE_PAYLOADS_DIR = '/etc/cvo/updatepayloads';
/** The label of retrieval Pods (what {@link prunePods} deletes). */
export const RETRIEVE_POD_LABEL = { key: 'k8s-app', value: 'retrieve-openshift-release' } as const;
/** Upstream's Pod `activeDeadlineSeconds`. */
export const POD_DEADLINE_SECONDS = 120;
/** Upstream `retrieveTimeout` (when the caller gives no deadline). */
export const RETRIEVE_TIMEOUT_MS = 4 * 60_000;

const MASTER_LABEL = 'node-role.kubernetes.io/master';
// k8s.io/apimachinery/pkg/util/rand `String`: no vowels, no confusable digits
const RAND_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `randutil.String(n)`. */
export function randString(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += RAND_ALPHABET.charAt(randomInt(RAND_ALPHABET.length));
  return s;
}

/** The cache directory name of an image: unpadded base64url of its MD5 (upstream `targetUpdatePayloadDir`). */
export function payloadHash(image: string): string {
  return createHash('md5').update(image).digest('base64url');
}

/** A Pod as read here: metadata, a spec, and the status fields upstream's completion check reads. */
export type PodObject = KubeObject & { spec?: Record<string, unknown>; status?: PodStatusView };

/** A container spec of the retrieval Pod (only the fields set here). */
interface PodContainer {
  name: string;
  image: string;
  command: string[];
  workingDir?: string;
  volumeMounts: { mountPath: string; name: string }[];
  securityContext: { privileged: boolean; readOnlyRootFilesystem: boolean };
  resources: { requests: Record<string, string> };
}

/** The retrieval Pod as upstream `fetchUpdatePayloadToDir` builds it (pure; `suffix` is the temporary dir's). */
export function versionPod(o: {
  name: string;
  namespace: string;
  image: string;
  nodeName: string;
  /** The target directory as the Pod sees it: `/etc/cvo/updatepayloads/<hash>`. */
  dir: string;
  suffix: string;
}): PodObject {
  const slash = o.dir.lastIndexOf('/');
  const baseDir = o.dir.slice(0, slash + 1);
  const tmpDir = `${baseDir}${o.dir.slice(slash + 1)}-${o.suffix}`;
  const c = (name: string, command: string[], workingDir?: string): PodContainer => ({
    name,
    image: o.image,
    command,
    ...(workingDir !== undefined ? { workingDir } : {}),
    volumeMounts: [{ mountPath: TARGET_UPDATE_PAYLOADS_DIR, name: 'payloads' }],
    securityContext: { privileged: true, readOnlyRootFilesystem: true },
    resources: { requests: { cpu: '10m', memory: '50Mi', 'ephemeral-storage': '2Mi' } },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: o.name,
      namespace: o.namespace,
      labels: { [RETRIEVE_POD_LABEL.key]: RETRIEVE_POD_LABEL.value },
      annotations: { 'openshift.io/required-scc': 'privileged' },
    },
    spec: {
      activeDeadlineSeconds: POD_DEADLINE_SECONDS,
      initContainers: [
        c('cleanup', ['sh', '-c', 'rm -fR ./*'], baseDir),
        c('make-temporary-directory', ['mkdir', tmpDir]),
        c('copy-operator-manifests-to-temporary-directory', ['cp', '-r', '/manifests', `${tmpDir}/manifests`]),
        c('copy-release-manifests-to-temporary-directory', [
          'cp',
          '-r',
          '/release-manifests',
          `${tmpDir}/release-manifests`,
        ]),
      ],
      containers: [c('rename-to-final-location', ['mv', tmpDir, o.dir])],
      volumes: [{ name: 'payloads', hostPath: { path: TARGET_UPDATE_PAYLOADS_DIR } }],
      nodeName: o.nodeName,
      nodeSelector: { [MASTER_LABEL]: '' },
      priorityClassName: 'openshift-user-critical',
      tolerations: [{ key: MASTER_LABEL }],
      restartPolicy: 'OnFailure',
    },
  };
}

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  terminated?: { reason?: string; message?: string };
}
interface ContainerStatus {
  name?: string;
  state?: ContainerState;
}
/** The Pod status fields upstream's completion check reads. */
export interface PodStatusView {
  phase?: string;
  reason?: string;
  message?: string;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
}

/** Upstream `collectStatuses`. */
function collectStatuses(s: PodStatusView, waiting: (reason: string, message: string) => boolean): string[] {
  const out: string[] = [];
  const q = (x: string | undefined): string => JSON.stringify(x ?? '');
  const each = (label: string, list: ContainerStatus[] | undefined): void => {
    for (const cs of list ?? []) {
      const w = cs.state?.waiting;
      if (w && waiting(w.reason ?? '', w.message ?? ''))
        out.push(`${label} ${cs.name ?? ''} is waiting with reason ${q(w.reason)} and message ${q(w.message)}`);
      const t = cs.state?.terminated;
      if (t && (t.message ?? '') !== '')
        out.push(`${label} ${cs.name ?? ''} is terminated with reason ${q(t.reason)} and message ${q(t.message)}`);
    }
  };
  each('container', s.containerStatuses);
  each('initcontainer', s.initContainerStatuses);
  return out;
}

/**
 * Upstream `podCompletionCheckFn`: `done` when Succeeded, an error text when Failed (or Pending with an image that
 * cannot be pulled for a signature or a missing manifest), undefined while it should be waited on.
 */
export function podCompletion(name: string, s: PodStatusView): { done: true } | { error: string } | undefined {
  const detail = (statuses: string[]): string =>
    `with reason ${JSON.stringify(s.reason ?? '')} and message ${JSON.stringify(s.message ?? '')} and status ${statuses.join(',')}`;
  switch (s.phase ?? '') {
    case '': // not yet seen by a kubelet (Go's zero value is handled as Pending by the API server's defaulting)
    case 'Pending': {
      const statuses = collectStatuses(
        s,
        (reason, message) =>
          reason === 'SignatureValidationFailed' || (reason === 'ErrImagePull' && message.includes('manifest unknown')),
      );
      return statuses.length > 0 ? { error: `pod ${name} failed at pending ${detail(statuses)}` } : undefined;
    }
    case 'Running':
      return undefined;
    case 'Succeeded':
      return { done: true };
    case 'Failed':
      return { error: `pod ${name} failed ${detail(collectStatuses(s, (_r, message) => message !== ''))}` };
    default:
      return { error: `pod ${name} is with unexpected phase ${s.phase ?? ''}` };
  }
}

/** Upstream `ValidateDirectory`: manifests/, release-manifests/ and its release-metadata and image-references. */
export async function validateDirectory(dir: string): Promise<void> {
  for (const p of [
    'manifests',
    'release-manifests',
    'release-manifests/release-metadata',
    'release-manifests/image-references',
  ])
    await stat(join(dir, p));
}

/** Upstream `prunePods`: deletes leftover `version-*` Jobs (transitional) and every retrieval Pod. */
export async function prunePods(client: KubeClient, namespace: string, operatorName: string): Promise<void> {
  const errs: string[] = [];
  const base = `/api/v1/namespaces/${namespace}/pods`;
  const jobs = `/apis/batch/v1/namespaces/${namespace}/jobs`;
  const del = async (path: string, what: string): Promise<void> => {
    await client.request('DELETE', path).catch((e: unknown) => {
      if (!isNotFound(e)) errs.push(`failed to delete ${what}: ${(e as Error).message}`);
    });
  };
  try {
    const list = await client.request<{ items?: KubeObject[] }>('GET', jobs);
    for (const j of list.items ?? []) {
      const n = j.metadata?.name ?? '';
      if (n.startsWith(`${operatorName}-`)) await del(`${jobs}/${n}`, `job ${n}`);
    }
  } catch (e) {
    if (!isNotFound(e)) errs.push((e as Error).message);
  }
  try {
    const q = { labelSelector: `${RETRIEVE_POD_LABEL.key}=${RETRIEVE_POD_LABEL.value}` };
    const pods = await client.request<{ items?: KubeObject[] }>('GET', base, { query: q });
    for (const p of pods.items ?? []) await del(`${base}/${p.metadata?.name ?? ''}`, `pod ${p.metadata?.name ?? ''}`);
  } catch (e) {
    errs.push((e as Error).message);
  }
  if (errs.length > 0) throw new Error(`error deleting pods: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}`);
}

/** Upstream `waitForPodCompletion`: list + watch the one Pod until {@link podCompletion} decides. */
export async function waitForPodCompletion(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<void> {
  const path = `/api/v1/namespaces/${namespace}/pods`;
  const fieldSelector = `metadata.name=${name}`;
  for (;;) {
    if (signal.aborted) throw new Error('timed out waiting for the condition');
    const list = await client.request<{ items?: PodObject[]; metadata?: { resourceVersion?: string } }>('GET', path, {
      query: { fieldSelector },
      signal,
    });
    const first = list.items?.[0];
    const decided = first ? podCompletion(name, first.status ?? {}) : undefined;
    if (decided && 'done' in decided) return;
    if (decided) throw new Error(decided.error);
    let outcome: { done: true } | { error: string } | undefined;
    const ac = new AbortController();
    const stop = (): void => {
      ac.abort();
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      await client.watch<PodObject>(
        path,
        { fieldSelector, resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: 'true' },
        (ev) => {
          if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
          outcome = podCompletion(name, ev.object.status ?? {});
          if (outcome) ac.abort();
        },
        ac.signal,
      );
    } catch (e) {
      if (!ac.signal.aborted) throw e;
    } finally {
      signal.removeEventListener('abort', stop);
    }
    if (outcome && 'done' in outcome) return;
    if (outcome) throw new Error(outcome.error);
  }
}

/** Options of {@link retrieveWithPod}. */
export interface PodRetrievalOptions {
  client: KubeClient;
  log: Logger;
  /** The CVO's namespace (`openshift-cluster-version`). */
  namespace: string;
  /** The CVO's name (`version`): the Pod name prefix. */
  operatorName: string;
  /** The node the CVO runs on (`--node-name` / `NODE_NAME`). */
  nodeName: string;
  /** Where this process sees the node's {@link TARGET_UPDATE_PAYLOADS_DIR} (its hostPath mount). */
  workingDir: string;
}

/**
 * Upstream `targetUpdatePayloadDir`: prunes old Pods, runs a retrieval Pod unless the directory of `image` is already
 * complete, and returns that directory as this process sees it. Errors carry upstream's texts.
 */
export async function retrieveWithPod(
  o: PodRetrievalOptions,
  update: { image: string; version: string },
  signal: AbortSignal,
): Promise<string> {
  const hash = payloadHash(update.image);
  const local = join(o.workingDir, hash);
  try {
    await prunePods(o.client, o.namespace, o.operatorName);
  } catch (e) {
    o.log.error('failed to prune pods', { error: (e as Error).message });
    throw new Error(`failed to prune pods: ${(e as Error).message}`, { cause: e });
  }
  const missing = await validateDirectory(local).then(
    () => false,
    (e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw new Error(
        `checking to see if ${JSON.stringify(local)} already holds release-image content: ${(e as Error).message}`,
      );
    },
  );
  if (missing) {
    const name = `${o.operatorName}-${update.version}-${randString(5)}`;
    const pod = versionPod({
      name,
      namespace: o.namespace,
      image: update.image,
      nodeName: o.nodeName,
      dir: `${TARGET_UPDATE_PAYLOADS_DIR}/${hash}`,
      suffix: randString(5),
    });
    o.log.info(`Spawning Pod ${name} ...`, { pod: name, node: o.nodeName, image: update.image });
    try {
      await o.client.request('POST', `/api/v1/namespaces/${o.namespace}/pods`, { body: pod, signal });
      await waitForPodCompletion(o.client, o.namespace, name, signal);
    } catch (e) {
      const msg = signal.aborted ? 'timed out waiting for the condition' : (e as Error).message;
      throw new Error(`fetching update payload: ${msg}`, { cause: e });
    }
    o.log.info(`Pod ${name} succeeded`, { pod: name });
  }
  await validateDirectory(local).catch((e: unknown) => {
    throw new Error(
      `confirming the presence of release-image content in ${JSON.stringify(local)}: ${(e as Error).message}`,
    );
  });
  return local;
}
