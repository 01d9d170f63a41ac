/**
 * Two synthetic releases A → B made for rehearsing an upgrade: the CVO's and the MCO's own manifests, a ClusterOperator
 * per component with `status.versions`, run levels 00–90, base MachineConfigs, a verification ConfigMap, and in B the
 * changes an admin cares about (operator images, a changed and a deleted manifest, a new RHCOS image, a kernel argument).
 */
import { createHash } from 'node:crypto';
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CRD_DIR } from '@keelson/api';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import { generatePayload } from './synthetic-payload.js';
import { machineConfigManifests, type MachineConfigReleaseFacts } from './mco.js';

/** Components of a rehearsal release (each an operator with a ClusterOperator), covering run levels 00–90. */
export const REHEARSAL_COMPONENTS: readonly string[] = [
  'cluster-version-operator',
  'config-operator',
  'etcd-operator',
  'kube-apiserver-operator',
  'kube-controller-manager-operator',
  'kube-scheduler-operator',
  'openshift-apiserver-operator',
  'cluster-authentication-operator',
  'cluster-ingress-operator',
  'dns-operator',
  'console-operator',
  'cluster-network-operator',
];

/** Where the rehearsal trusts signatures from: written into A's and B's `release-verification` ConfigMap. */
export interface RehearsalVerification {
  /** Key name: the ConfigMap key is `verifier-public-key-<keyName>`. */
  keyName: string;
  /** Armored public key. */
  publicKey: string;
  /** Signature store base URL (`store-<keyName>`). */
  storeUrl: string;
}

/** Options of {@link generateRehearsalReleases}. */
export interface RehearsalReleaseOptions {
  /** Directory; A is written to `<out>/<fromVersion>`, B to `<out>/<toVersion>`. */
  out: string;
  /** Default `4.18.7`. */
  fromVersion?: string;
  /** Default `4.18.8`. */
  toVersion?: string;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Document size scale (default 0.02: small manifests, quick to apply). */
  sizeFactor?: number;
  /** Root of trust; without it no verification ConfigMap is written. */
  verification?: RehearsalVerification;
  /**
   * The MCO app's `manifests/` folder: when it holds `0000_80_machine-config_*` files, they replace the generated
   * namespace, osimageurl ConfigMap, ClusterOperator and Deployment (placeholders substituted as `oc adm release new`
   * does); the pools and base MachineConfigs (which the installer, not the MCO, ships) are still added.
   */
  machineConfigManifestsDir?: string;
  /**
   * Admin-ack gates A ships in its `admin-gates` ConfigMap (`ack-<A's minor>-<description>` → the text the CVO
   * reports), as a release before an API removal does: the CVO then refuses the minor update to B until an admin
   * sets each key to `"true"` in `openshift-config/admin-acks`.
   */
  adminGates?: Record<string, string>;
}

/** One generated release. */
export interface RehearsalRelease {
  version: string;
  dir: string;
  /** RHCOS image of this release. */
  baseOSContainerImage: string;
  /** Kernel arguments of the base MachineConfigs. */
  kernelArguments: string[];
}

/** What {@link generateRehearsalReleases} wrote, and what B changes. */
export interface RehearsalReleases {
  from: RehearsalRelease;
  to: RehearsalRelease;
  /** File names (under release-manifests/) of B's changed and deleted manifests. */
  changedManifest: string;
  deletedManifest: string;
  /** Kernel argument B adds. */
  addedKernelArgument: string;
}

const PROFILES = {
  'include.release.openshift.io/self-managed-high-availability': 'true',
  'include.release.openshift.io/single-node-developer': 'true',
};
const ADDED_KARG = 'systemd.unified_cgroup_hierarchy=1';
const CHANGED = '0000_50_cluster-ingress-operator_99_router-tuning.yaml';
const DELETED = '0000_50_console-operator_99_legacy-plugin.yaml';

function hex(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

interface ImageStreamTag {
  name: string;
  from: { kind: string; name: string };
  [k: string]: unknown;
}

function extraManifests(isTarget: boolean, verification: RehearsalVerification | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  out[CHANGED] = stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'router-tuning', namespace: 'openshift-ingress-operator', annotations: { ...PROFILES } },
    data: isTarget
      ? { 'tuning.yaml': 'maxConnections: 50000\nreloadInterval: 5s\nhttp2: true\n' }
      : { 'tuning.yaml': 'maxConnections: 20000\nreloadInterval: 5s\n' },
  });
  out[DELETED] = stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'legacy-console-plugin',
      namespace: 'openshift-console-operator',
      annotations: { ...PROFILES, ...(isTarget ? { 'release.openshift.io/delete': 'true' } : {}) },
    },
    data: { plugin: 'legacy' },
  });
  // namespaces the config operator owns (openshift-config, openshift-config-managed) and the monitoring CRDs the
  // generated ServiceMonitors / PrometheusRules need (shipped by cluster-monitoring-operator in a real payload)
  out['0000_03_config-operator_00_namespaces.yaml'] = ['openshift-config', 'openshift-config-managed']
    .map((name) =>
      stringify({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name,
          annotations: { ...PROFILES, 'openshift.io/node-selector': '' },
          labels: { 'openshift.io/run-level': '0' },
        },
      }),
    )
    .join('---\n');
  out['0000_03_cluster-monitoring-operator_00_monitoring.crd.yaml'] = [
    ['ServiceMonitor', 'servicemonitors'],
    ['PrometheusRule', 'prometheusrules'],
  ]
    .map(([kind, plural]) =>
      stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${plural ?? ''}.monitoring.coreos.com`, annotations: { ...PROFILES } },
        spec: {
          group: 'monitoring.coreos.com',
          names: { kind, listKind: `${kind ?? ''}List`, plural, singular: (kind ?? '').toLowerCase() },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      }),
    )
    .join('---\n');
  if (verification !== undefined) {
    // as openshift/cluster-update-keys ships it
    out['0000_90_cluster-update-keys_configmap.yaml'] = stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'release-verification',
        namespace: 'openshift-config-managed',
        annotations: { ...PROFILES, 'release.openshift.io/verification-config-map': '' },
        labels: { 'release.openshift.io/verification-signatures': '' },
      },
      data: {
        [`verifier-public-key-${verification.keyName}`]: verification.publicKey,
        [`store-${verification.keyName}`]: verification.storeUrl,
      },
    });
  }
  return out;
}

/**
 * Generated files that stand in for the MCO app's own manifests or for what its controllers write (dropped when the
 * app's folder is used). The base MachineConfigs `00-<role>` are the template controller's, as upstream, where the
 * payload carries no MachineConfig: shipping them too made two writers of `00-master`/`00-worker` (a render churn at
 * install) and, as the file sorts after the `machine-config` ClusterOperator, the CVO applied B's only after the MCO
 * reported B, so every node rebooted a second time after the update had completed.
 */
const GENERATED_BY_APP = [
  '0000_80_machine-config_00_namespace.yaml',
  '0000_80_machine-config_03_rbac.yaml',
  '0000_80_machine-config_04_deployment.yaml',
  '0000_80_machine-config_05_osimageurl.yaml',
  '0000_80_machine-config_05_base-machineconfigs.yaml',
  '0000_80_machine-config_06_clusteroperator.yaml',
];

/**
 * The CVO's `admin-gates` and `admin-acks` ConfigMaps, as upstream's install/ ships them in every release
 * (`0000_00_cluster-version-operator_01_admingate_configmap.yaml`, `…_01_adminack_configmap.yaml`): without them the
 * CVO reports Upgradeable=False UnableToAccessAdminGatesConfigMap, as it would on such a cluster.
 */
function adminAckConfigMaps(gateData: Record<string, string> | undefined): Record<string, string> {
  const annotations = {
    'include.release.openshift.io/self-managed-high-availability': 'true',
    'include.release.openshift.io/single-node-developer': 'true',
  };
  const gates = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'admin-gates', namespace: 'openshift-config-managed', annotations },
    ...(gateData !== undefined && Object.keys(gateData).length > 0 ? { data: gateData } : {}),
  };
  const acks = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'admin-acks',
      namespace: 'openshift-config',
      annotations: { ...annotations, 'release.openshift.io/create-only': 'true' },
    },
  };
  return {
    '0000_00_cluster-version-operator_01_adminack_configmap.yaml': stringify(acks),
    '0000_00_cluster-version-operator_01_admingate_configmap.yaml': stringify(gates),
  };
}

/** `oc adm release new`'s image placeholder: `placeholder.url.oc.will.replace.this.org/placeholdernamespace:<tag>`. */
const IMAGE_PLACEHOLDER =
  /placeholder\.url\.oc\.will\.replace\.this\.org\/placeholdernamespace:([A-Za-z0-9][A-Za-z0-9_.-]*)/g;

/** The app's `0000_80_machine-config_*` files with image placeholders replaced by the release's pull specs. */
async function appManifests(
  dir: string | undefined,
  images: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (dir === undefined) return out;
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.startsWith('0000_80_machine-config_') && /\.ya?ml$/.test(n))
    .sort();
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    out.set(
      name,
      text.replace(IMAGE_PLACEHOLDER, (whole, tag: string) => {
        const spec = images.get(tag);
        if (spec === undefined)
          throw new Error(
            `${join(dir, name)}: image ${whole} names tag ${tag}, which the release's image-references lacks`,
          );
        return spec;
      }),
    );
  }
  return out;
}

/**
 * Tag names of the app's `image-references` (YAML or JSON ImageStream; none when the file is absent). `oc adm release
 * new` builds the release's image-references from every operator image's own, so each tag the app names is in the
 * release and its placeholders (e.g. images.json's `:pod`, `:haproxy-router`) resolve.
 */
async function appImageTags(dir: string | undefined): Promise<string[]> {
  if (dir === undefined) return [];
  const path = join(dir, 'image-references');
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const doc = parseYaml(text) as { spec?: { tags?: Array<{ name?: unknown } | null> } } | null;
  const tags = doc?.spec?.tags ?? [];
  if (!Array.isArray(tags)) throw new Error(`${path}: spec.tags is not a list`);
  return tags.map((t, i) => {
    const name = t?.name;
    if (typeof name !== 'string' || name === '') throw new Error(`${path}: spec.tags[${i}].name is not a string`);
    return name;
  });
}

/** Identity of a manifest object as the CVO keys it: group, kind, namespace, name. */
function objectIdentity(o: unknown): string | undefined {
  if (o === null || typeof o !== 'object') return undefined;
  const { apiVersion, kind, metadata } = o as { apiVersion?: unknown; kind?: unknown; metadata?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const meta = (metadata ?? {}) as { name?: unknown; namespace?: unknown };
  if (typeof meta.name !== 'string') return undefined;
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  return `${group}/${kind}/${typeof meta.namespace === 'string' ? meta.namespace : ''}/${meta.name}`;
}

/**
 * Each object once, as in a real payload: the generator ships components such as etcd-operator at two run levels
 * (`0000_12_…` and `0000_20_…`), whose files declare the same ClusterRole, ConfigMaps and Deployment with different
 * content, so the CVO would rewrite each of them twice on every pass. The first file (lowest run level) keeps the
 * object; a file left without documents is removed.
 */
async function dropDuplicateObjects(dir: string): Promise<void> {
  const seen = new Set<string>();
  for (const name of (await readdir(dir)).sort()) {
    if (!/\.(ya?ml|json)$/.test(name)) continue;
    const path = join(dir, name);
    const docs = parseAllDocuments(await readFile(path, 'utf8'));
    const kept = docs.filter((doc) => {
      const id = objectIdentity(doc.toJSON());
      if (id === undefined) return true;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    if (kept.length === docs.length) continue;
    if (kept.length === 0) await rm(path);
    else await writeFile(path, kept.map((d) => d.toString()).join('---\n'));
  }
}

/** Writes one release; `base` is A's image-references when writing B (B's operator images derive from them). */
async function writeRelease(
  opts: Required<Pick<RehearsalReleaseOptions, 'seed' | 'sizeFactor'>> & RehearsalReleaseOptions,
  version: string,
  previous: string | undefined,
): Promise<RehearsalRelease> {
  const dir = join(opts.out, version);
  const isTarget = previous !== undefined;
  await generatePayload({
    out: dir,
    seed: opts.seed,
    version,
    sizeFactor: opts.sizeFactor,
    componentNames: REHEARSAL_COMPONENTS,
    minManifests: 0,
    jobs: false,
  });
  const rm_ = join(dir, 'release-manifests');
  // the generator's stand-in ClusterVersion CRD gives way to the real one in release-manifests/
  await rm(join(dir, 'manifests', '0000_00_cluster-version-operator_01_clusterversion.crd.yaml'), { force: true });
  const gates = isTarget ? undefined : opts.adminGates;
  for (const [name, text] of Object.entries(adminAckConfigMaps(gates))) await writeFile(join(rm_, name), text);

  const refsPath = join(rm_, 'image-references');
  const refs = JSON.parse(await readFile(refsPath, 'utf8')) as { spec: { tags: ImageStreamTag[] } };
  const image = (name: string): string =>
    `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex(`${name}@${version}`)}`;
  // B: every operator gets a new image digest (as every real z-stream does)
  const renames = new Map<string, string>();
  if (isTarget) {
    for (const t of refs.spec.tags) {
      const next = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex(`${t.from.name}@${version}`)}`;
      renames.set(t.from.name, next);
      t.from.name = next;
    }
  }
  const facts: MachineConfigReleaseFacts = {
    version,
    operatorImage: image('machine-config-operator'),
    baseOSContainerImage: image('rhel-coreos'),
    baseOSExtensionsContainerImage: image('rhel-coreos-extensions'),
    kernelArguments: isTarget ? ['audit=1', ADDED_KARG] : ['audit=1'],
    kubeletConf: 'maxPods: 250\nrotateCertificates: true\n',
  };
  const mcoTags = new Map<string, string>([
    ['machine-config-operator', facts.operatorImage],
    ['rhel-coreos', facts.baseOSContainerImage],
    ['rhel-coreos-extensions', facts.baseOSExtensionsContainerImage],
  ]);
  for (const name of await appImageTags(opts.machineConfigManifestsDir))
    if (!mcoTags.has(name) && !refs.spec.tags.some((t) => t.name === name)) mcoTags.set(name, image(name));
  for (const [name, spec] of mcoTags) {
    refs.spec.tags.push({
      name,
      annotations: { 'io.openshift.build.source-location': `https://github.com/openshift/${name}` },
      from: { kind: 'DockerImage', name: spec },
      generation: null,
      importPolicy: {},
      referencePolicy: { type: '' },
    });
  }
  refs.spec.tags.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  await writeFile(refsPath, `${JSON.stringify(refs, null, 2)}\n`);

  const appFiles = await appManifests(
    opts.machineConfigManifestsDir,
    new Map(refs.spec.tags.map((t) => [t.name, t.from.name])),
  );
  const generated = Object.entries(machineConfigManifests(facts)).filter(
    ([name]) => appFiles.size === 0 || !GENERATED_BY_APP.includes(name),
  );
  const files: Record<string, string> = {
    ...Object.fromEntries(generated),
    ...Object.fromEntries(appFiles),
    ...extraManifests(isTarget, opts.verification),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(rm_, name), text);
  // the upstream CRDs (unmodified openshift/api files shipped by @keelson/api), as the CVO's and MCO's install/ ship them
  for (const name of (await readdir(CRD_DIR)).filter((n) => n.endsWith('.crd.yaml')))
    await copyFile(join(CRD_DIR, name), join(rm_, name));
  await dropDuplicateObjects(rm_);

  // `oc adm release new` replaces the 0.0.1-snapshot placeholder with the release version; B also swaps image digests
  for (const name of await readdir(rm_)) {
    if (!/\.(ya?ml|json)$/.test(name)) continue;
    const path = join(rm_, name);
    let text = await readFile(path, 'utf8');
    let changed = text.includes('0.0.1-snapshot');
    text = text.replaceAll('0.0.1-snapshot', version);
    for (const [from, to] of renames) {
      if (text.includes(from)) {
        text = text.replaceAll(from, to);
        changed = true;
      }
    }
    if (changed) await writeFile(path, text);
  }

  const metaPath = join(rm_, 'release-metadata');
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as { previous: string[]; metadata: Record<string, string> };
  if (previous !== undefined) meta.previous = [...new Set([...meta.previous, previous])].sort();
  await writeFile(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return {
    version,
    dir,
    baseOSContainerImage: facts.baseOSContainerImage,
    kernelArguments: [...facts.kernelArguments],
  };
}

/** Writes releases A (`fromVersion`) and B (`toVersion`) under `out`. */
export async function generateRehearsalReleases(options: RehearsalReleaseOptions): Promise<RehearsalReleases> {
  const opts = { ...options, seed: options.seed ?? 1, sizeFactor: options.sizeFactor ?? 0.02 };
  const fromVersion = options.fromVersion ?? '4.18.7';
  const toVersion = options.toVersion ?? '4.18.8';
  if (fromVersion === toVersion)
    throw new TypeError(`generateRehearsalReleases: fromVersion and toVersion are both ${fromVersion}`);
  const from = await writeRelease(opts, fromVersion, undefined);
  const to = await writeRelease(opts, toVersion, fromVersion);
  return { from, to, changedManifest: CHANGED, deletedManifest: DELETED, addedKernelArgument: ADDED_KARG };
}
