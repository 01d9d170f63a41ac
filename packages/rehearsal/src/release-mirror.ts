/**
 * `rehearse --release-mirror`: the update target is reachable only through a mirror, as in a disconnected cluster.
 * Release B is published only under the mirror repository of the rehearsal registry (payload-gen `mirrorTarget`);
 * once A is installed the rehearsal does what an admin of such a cluster does before `oc adm upgrade --to-image`: it
 * creates an ImageDigestMirrorSet for the release repository and waits until the machine-config-controller's
 * `99-<pool>-generated-registries` has reached every node's /etc/containers/registries.conf and the pools have
 * settled. The CVO's `version-<v>-<rand>` Pod on master-0 is then pulled by that node's virtual kubelet through the
 * node's registries.conf, as CRI-O pulls it on a real node.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeClient, KubeObject } from '@keelson/kube';
import type { ReleaseMirror } from './release/index.js';
import { parseRegistriesConf, pullSources } from '@keelson/release-payload';
import { poolsUpdated } from './verdict.js';

/** Name of the ImageDigestMirrorSet the rehearsal creates. */
export const RELEASE_MIRROR_SET = 'keelson-release-mirror';

/** The ImageDigestMirrorSet an admin creates for a mirrored release repository (`oc adm release mirror` prints it). */
export function releaseMirrorSet(m: ReleaseMirror): {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { imageDigestMirrors: { source: string; mirrors: string[] }[] };
} {
  return {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ImageDigestMirrorSet',
    metadata: { name: RELEASE_MIRROR_SET },
    spec: { imageDigestMirrors: [{ source: m.source, mirrors: [m.mirror] }] },
  };
}

/**
 * Where the node's registries.conf (`<nodeRoot>/etc/containers/registries.conf`) sends a pull of `pullSpec`, in
 * order; undefined while the file is missing or unreadable (not rendered yet).
 */
export async function nodePullSources(nodeRoot: string, pullSpec: string): Promise<string[] | undefined> {
  const file = join(nodeRoot, 'etc/containers/registries.conf');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  return pullSources(pullSpec, parseRegistriesConf(text, file)).map((s) => s.reference);
}

/** Options of {@link applyReleaseMirror}. */
export interface ApplyReleaseMirrorOptions {
  /** B's pull spec (naming the source repository). */
  pullSpec: string;
  /** `<work-dir>/nodes`: the virtual nodes' roots. */
  nodesDir: string;
  nodes: readonly string[];
  /** The pools as the observer sees them. */
  pools: () => readonly KubeObject[];
  /** Wall-clock deadline (ms since the epoch). */
  deadline: number;
  /** True once the rehearsal is over (stop waiting). */
  closed?: () => boolean;
}

/** The nodes whose registries.conf does not yet send a pull of `pullSpec` to `mirror` first. */
async function nodesWithoutMirror(o: ApplyReleaseMirrorOptions, mirror: string): Promise<string[]> {
  const want = mirror + o.pullSpec.slice(o.pullSpec.indexOf('@'));
  const out: string[] = [];
  for (const n of o.nodes) {
    const sources = await nodePullSources(join(o.nodesDir, n), o.pullSpec).catch(() => undefined);
    if (sources?.[0] !== want) out.push(n);
  }
  return out;
}

/**
 * Creates the ImageDigestMirrorSet and resolves once every node's registries.conf pulls `pullSpec` from the mirror
 * first and every pool is Updated on a config newer than the one it had; throws an Error naming the nodes or pools
 * still waiting at the deadline.
 */
export async function applyReleaseMirror(
  client: KubeClient,
  m: ReleaseMirror,
  o: ApplyReleaseMirrorOptions,
): Promise<void> {
  const configOf = (p: KubeObject): string =>
    (p as { status?: { configuration?: { name?: string } } }).status?.configuration?.name ?? '';
  const before = new Map(o.pools().map((p) => [p.metadata.name ?? '', configOf(p)]));
  await client.request('POST', '/apis/config.openshift.io/v1/imagedigestmirrorsets', { body: releaseMirrorSet(m) });
  for (;;) {
    const missing = await nodesWithoutMirror(o, m.mirror);
    const settled = poolsUpdated(o.pools(), false, before);
    if (missing.length === 0 && settled) return;
    if (o.closed?.() === true) throw new Error('the rehearsal stopped while the release mirror was rolled out');
    if (Date.now() > o.deadline)
      throw new Error(
        `ImageDigestMirrorSet ${RELEASE_MIRROR_SET} (${m.source} → ${m.mirror}) did not reach every node in time: ` +
          (missing.length > 0
            ? `registries.conf of ${missing.join(', ')} does not pull from the mirror`
            : 'the pools did not finish rolling out the registries MachineConfig'),
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}
