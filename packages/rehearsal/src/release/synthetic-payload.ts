import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { componentFiles, jobFile } from './synthetic-components.js';
import {
  annotations,
  PROFILE_ANNOTATIONS,
  schemaProps,
  type Component,
  type Doc,
  type FileSpec,
  type Flavor,
} from './synthetic-objects.js';
import { Prng, sentence } from './synthetic-random.js';

/** Options of {@link generatePayload}. */
export interface GeneratePayloadOptions {
  /** Directory to write (created; an existing `release-manifests/` and `manifests/` in it are replaced). */
  out: string;
  /** PRNG seed; the same seed always writes the same bytes. Default 1. */
  seed?: number;
  /** Release version written to `release-metadata` and `image-references`. Default `4.18.7`. */
  version?: string;
  /** Number of components (default 82, at most the built-in catalogue of 82). */
  components?: number;
  /** Scale of large documents (CRD schemas, dashboards); 1 gives about 17 MB in total. */
  sizeFactor?: number;
  /**
   * Only these catalogue components (by name, every run level they appear at); overrides `components`.
   * Default: the first `components` of the catalogue.
   */
  componentNames?: readonly string[];
  /** Pad with per-component operand ConfigMaps up to this many manifests (default 900, a real payload's size). */
  minManifests?: number;
  /** Include the `batch/v1` migration Jobs a few operators ship (default true). */
  jobs?: boolean;
}

/** What {@link generatePayload} wrote. */
export interface GeneratePayloadResult {
  /** Files written under `release-manifests/` (without `image-references` / `release-metadata`). */
  files: number;
  /** YAML documents (manifests) written under `release-manifests/`. */
  manifests: number;
  /** Batch/v1 Jobs among them. */
  jobs: number;
  /** Files holding more than one document. */
  multiDocumentFiles: number;
  /** Manifests the CVO would exclude with the default profile and feature set. */
  excluded: number;
  /** Components used. */
  components: number;
  /** Total bytes written (all files). */
  bytes: number;
  /** Files written under `manifests/` (the CVO's own manifests). */
  cvoManifests: number;
}

const CATALOGUE: readonly [string, string, string, Flavor, string?][] = [
  ['00', 'cluster-version-operator', 'openshift-cluster-version', 'small'],
  ['01', 'config-operator', 'openshift-config-operator', 'crds'],
  ['03', 'cloud-credential-operator', 'openshift-cloud-credential-operator', 'operator', 'CloudCredential'],
  ['03', 'config', 'openshift-config', 'crds'],
  ['03', 'marketplace', 'openshift-marketplace', 'crds', 'marketplace'],
  ['03', 'quota-openshift', 'openshift-config', 'crds'],
  ['03', 'security-openshift', 'openshift-config', 'crds'],
  ['05', 'config-operator', 'openshift-config-operator', 'small'],
  ['10', 'config-operator', 'openshift-config-operator', 'operator'],
  ['10', 'openshift-controller-manager', 'openshift-controller-manager', 'crds'],
  ['12', 'etcd-operator', 'openshift-etcd-operator', 'operator'],
  ['20', 'etcd-operator', 'openshift-etcd-operator', 'operator'],
  ['20', 'kube-apiserver-operator', 'openshift-kube-apiserver-operator', 'operator'],
  ['25', 'kube-controller-manager-operator', 'openshift-kube-controller-manager-operator', 'operator'],
  ['25', 'kube-scheduler-operator', 'openshift-kube-scheduler-operator', 'operator'],
  ['26', 'cloud-controller-manager-operator', 'openshift-cloud-controller-manager-operator', 'operator'],
  ['30', 'machine-api-operator', 'openshift-machine-api', 'operator', 'MachineAPI'],
  ['30', 'openshift-apiserver-operator', 'openshift-apiserver-operator', 'operator'],
  ['30', 'cluster-autoscaler-operator', 'openshift-machine-api', 'crds', 'MachineAPI'],
  ['31', 'cluster-baremetal-operator', 'openshift-machine-api', 'operator', 'baremetal'],
  ['40', 'kube-storage-version-migrator-operator', 'openshift-kube-storage-version-migrator-operator', 'operator'],
  ['49', 'cluster-samples-operator', 'openshift-cluster-samples-operator', 'small', 'openshift-samples'],
  ['50', 'cluster-authentication-operator', 'openshift-authentication-operator', 'operator'],
  ['50', 'cluster-autoscaler-operator', 'openshift-machine-api', 'operator', 'MachineAPI'],
  ['50', 'cluster-config-api', 'openshift-config', 'crds'],
  ['50', 'cluster-csi-snapshot-controller-operator', 'openshift-cluster-storage-operator', 'operator', 'CSISnapshot'],
  ['50', 'cluster-image-registry-operator', 'openshift-image-registry', 'operator', 'ImageRegistry'],
  ['50', 'cluster-ingress-operator', 'openshift-ingress-operator', 'operator', 'Ingress'],
  ['50', 'cluster-machine-approver', 'openshift-cluster-machine-approver', 'operator'],
  ['50', 'cluster-monitoring-operator', 'openshift-monitoring', 'monitoring'],
  ['50', 'cluster-node-tuning-operator', 'openshift-cluster-node-tuning-operator', 'operator', 'NodeTuning'],
  ['50', 'cluster-olm-operator', 'openshift-cluster-olm-operator', 'operator', 'OperatorLifecycleManagerV1'],
  ['50', 'cluster-openshift-controller-manager-operator', 'openshift-controller-manager-operator', 'operator'],
  ['50', 'cluster-storage-operator', 'openshift-cluster-storage-operator', 'operator', 'Storage'],
  ['50', 'console-operator', 'openshift-console-operator', 'operator', 'Console'],
  ['50', 'csi-driver-manila-operator', 'openshift-manila-csi-driver', 'small', 'Storage'],
  ['50', 'dns-operator', 'openshift-dns-operator', 'operator'],
  ['50', 'insights-operator', 'openshift-insights', 'operator', 'Insights'],
  ['50', 'olm', 'openshift-operator-lifecycle-manager', 'crds', 'OperatorLifecycleManager'],
  ['50', 'operator-marketplace', 'openshift-marketplace', 'operator', 'marketplace'],
  ['50', 'service-ca-operator', 'openshift-service-ca-operator', 'operator'],
  ['50', 'cluster-kube-descheduler-operator', 'openshift-kube-descheduler-operator', 'small'],
  ['51', 'olm', 'openshift-operator-lifecycle-manager', 'small', 'OperatorLifecycleManager'],
  ['55', 'cluster-api', 'openshift-cluster-api', 'crds'],
  ['60', 'cluster-network-operator', 'openshift-network-operator', 'small'],
  ['70', 'cluster-network-operator', 'openshift-network-operator', 'operator'],
  ['70', 'dns-operator', 'openshift-dns-operator', 'small'],
  ['75', 'cloud-network-config-controller', 'openshift-cloud-network-config-controller', 'small'],
  ['80', 'machine-config', 'openshift-machine-config-operator', 'operator'],
  ['80', 'machine-config-operator', 'openshift-machine-config-operator', 'crds'],
  ['50', 'aws-ebs-csi-driver-operator', 'openshift-cluster-csi-drivers', 'small', 'Storage'],
  ['50', 'azure-disk-csi-driver-operator', 'openshift-cluster-csi-drivers', 'small', 'Storage'],
  ['50', 'gcp-pd-csi-driver-operator', 'openshift-cluster-csi-drivers', 'small', 'Storage'],
  ['50', 'vsphere-problem-detector', 'openshift-cluster-storage-operator', 'small', 'Storage'],
  ['50', 'cluster-platform-operators-manager', 'openshift-platform-operators', 'small'],
  ['50', 'openshift-state-metrics', 'openshift-monitoring', 'small'],
  ['50', 'kube-state-metrics', 'openshift-monitoring', 'small'],
  ['50', 'node-exporter', 'openshift-monitoring', 'small'],
  ['50', 'prometheus-operator', 'openshift-monitoring', 'operator'],
  ['50', 'thanos-querier', 'openshift-monitoring', 'small'],
  ['50', 'helm', 'openshift-config', 'small', 'Console'],
  ['50', 'downloads', 'openshift-console', 'small', 'Console'],
  ['55', 'machine-os-images', 'openshift-machine-config-operator', 'small'],
  ['60', 'multus', 'openshift-multus', 'small'],
  ['60', 'network-node-identity', 'openshift-network-node-identity', 'small'],
  ['70', 'ovn-kubernetes', 'openshift-ovn-kubernetes', 'small'],
  ['70', 'cluster-dns', 'openshift-dns', 'small'],
  ['80', 'image-customization-controller', 'openshift-machine-api', 'small', 'baremetal'],
  ['90', 'cluster-authentication-operator', 'openshift-authentication-operator', 'monitoring'],
  ['90', 'cluster-image-registry-operator', 'openshift-image-registry', 'monitoring', 'ImageRegistry'],
  ['90', 'cluster-ingress-operator', 'openshift-ingress-operator', 'monitoring', 'Ingress'],
  ['90', 'cluster-monitoring-operator', 'openshift-monitoring', 'monitoring'],
  ['90', 'cluster-storage-operator', 'openshift-cluster-storage-operator', 'monitoring', 'Storage'],
  ['90', 'console-operator', 'openshift-console-operator', 'monitoring', 'Console'],
  ['90', 'dns-operator', 'openshift-dns-operator', 'monitoring'],
  ['90', 'etcd-operator', 'openshift-etcd-operator', 'monitoring'],
  ['90', 'kube-apiserver-operator', 'openshift-kube-apiserver-operator', 'monitoring'],
  ['90', 'machine-api-operator', 'openshift-machine-api', 'monitoring', 'MachineAPI'],
  ['90', 'machine-config', 'openshift-machine-config-operator', 'monitoring'],
  ['90', 'olm', 'openshift-operator-lifecycle-manager', 'monitoring', 'OperatorLifecycleManager'],
  ['90', 'service-ca-operator', 'openshift-service-ca-operator', 'monitoring'],
  ['90', 'insights-operator', 'openshift-insights', 'monitoring', 'Insights'],
];

function cvoManifests(version: string): Record<string, string> {
  const ann =
    'include.release.openshift.io/self-managed-high-availability: "true"\n    include.release.openshift.io/single-node-developer: "true"';
  return {
    '0000_00_cluster-version-operator_00_namespace.yaml': `apiVersion: v1
kind: Namespace
metadata:
  name: openshift-cluster-version
  annotations:
    ${ann}
    openshift.io/node-selector: ""
  labels:
    openshift.io/cluster-monitoring: "true"
`,
    '0000_00_cluster-version-operator_01_clusterversion.crd.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterversions.config.openshift.io
  annotations:
    ${ann}
spec:
  group: config.openshift.io
  names:
    kind: ClusterVersion
    plural: clusterversions
    singular: clusterversion
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`,
    '0000_00_cluster-version-operator_02_roles.yaml': `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-version-operator
  annotations:
    ${ann}
roleRef:
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  namespace: openshift-cluster-version
  name: default
`,
    '0000_00_cluster-version-operator_03_deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
  annotations:
    ${ann}
    kubernetes.io/description: The cluster-version operator manages OpenShift updates and reconciles core CVO-managed resources.
spec:
  selector:
    matchLabels:
      k8s-app: cluster-version-operator
  strategy:
    type: Recreate
  template:
    metadata:
      labels:
        k8s-app: cluster-version-operator
    spec:
      containers:
      - name: cluster-version-operator
        image: '{{.ReleaseImage}}'
        imagePullPolicy: IfNotPresent
        args:
        - start
        - --release-image={{.ReleaseImage}}
        - --listen=0.0.0.0:9099
        - --v=2
        env:
        - name: CLUSTER_PROFILE
          value: {{.ClusterProfile}}
        - name: RELEASE_VERSION
          value: "${version}"
      hostNetwork: true
      nodeSelector:
        node-role.kubernetes.io/master: ""
      priorityClassName: system-cluster-critical
`,
  };
}

/**
 * Writes a deterministic, realistic synthetic OpenShift release directory to `out`:
 * `release-manifests/` (about 900 manifests over about 60 components, run levels 00–90, real-style file
 * names plus a few that do not match the CVO's `0000_NN_component_` pattern, Jobs, multi-document
 * files, CRDs, ClusterOperators, Deployments, ConfigMaps; about 17 MB), `release-manifests/image-references`
 * (ImageStream JSON), `release-manifests/release-metadata` (cincinnati-metadata-v0) and `manifests/`
 * (the CVO's own, templated manifests).
 */
export async function generatePayload(options: GeneratePayloadOptions): Promise<GeneratePayloadResult> {
  const seed = options.seed ?? 1;
  const version = options.version ?? '4.18.7';
  const count = Math.min(CATALOGUE.length, Math.max(1, options.components ?? CATALOGUE.length));
  const size = options.sizeFactor ?? 1;
  if (!Number.isInteger(seed)) throw new TypeError(`generatePayload: seed must be an integer, got ${seed}`);
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
    throw new TypeError(`generatePayload: version ${version} is not a semantic version`);
  if (!(size > 0)) throw new TypeError(`generatePayload: sizeFactor must be > 0, got ${size}`);
  const rng = new Prng(seed);

  const releaseDir = join(options.out, 'release-manifests');
  const cvoDir = join(options.out, 'manifests');
  await rm(releaseDir, { recursive: true, force: true });
  await rm(cvoDir, { recursive: true, force: true });
  await mkdir(releaseDir, { recursive: true });
  await mkdir(cvoDir, { recursive: true });

  const images = new Map<string, string>();
  const chosen = chooseComponents(options.componentNames, count);
  const files = catalogueFiles(chosen, rng, size, images, options.jobs ?? true);
  padWithOperands(files, chosen, rng, size, options.minManifests ?? 900);
  // A couple of files that carry no run level at all.
  files.push({
    name: 'zz_openshift-install-extra-manifests.yaml',
    docs: [
      {
        excluded: false,
        obj: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'install-extras', namespace: 'openshift-config', annotations: { ...PROFILE_ANNOTATIONS } },
          data: { note: sentence(rng, 10) },
        },
      },
    ],
  });

  const written = await writeManifestFiles(releaseDir, files, rng);
  let bytes = written.bytes + (await writeReleaseMetadata(releaseDir, version, images, rng));
  const cvo = cvoManifests(version);
  for (const [name, text] of Object.entries(cvo)) {
    await writeFile(join(cvoDir, name), text);
    bytes += Buffer.byteLength(text);
  }

  return {
    files: written.files,
    manifests: written.manifests,
    jobs: written.jobs,
    multiDocumentFiles: written.multiDocumentFiles,
    excluded: written.excluded,
    components: new Set(chosen.map((c) => c[1])).size,
    bytes,
    cvoManifests: Object.keys(cvo).length,
  };
}

/** A catalogue entry: run level, name, namespace, flavour, capability. */
type CatalogueEntry = readonly [string, string, string, Flavor, string?];

/** `componentNames` (each checked against the catalogue), else the first `count` of the catalogue. */
function chooseComponents(names: readonly string[] | undefined, count: number): readonly CatalogueEntry[] {
  // Components beyond the first `count` are dropped from the end of the catalogue, keeping level 00.
  if (names !== undefined) {
    const unknown = names.filter((n) => !CATALOGUE.some((c) => c[1] === n));
    if (unknown.length > 0) throw new TypeError(`generatePayload: unknown component(s) ${unknown.join(', ')}`);
  }
  return names !== undefined ? CATALOGUE.filter((c) => names.includes(c[1])) : CATALOGUE.slice(0, count);
}

/** The files of the chosen components, with the migration Jobs of a few operators (`withJobs`). */
function catalogueFiles(
  chosen: readonly CatalogueEntry[],
  rng: Prng,
  size: number,
  images: Map<string, string>,
  withJobs: boolean,
): FileSpec[] {
  const files: FileSpec[] = [];
  chosen.forEach(([level, name, namespace, flavor, capability], i) => {
    const comp: Component = {
      level,
      name,
      namespace,
      flavor,
      dash: i % 3 === 1,
      ...(capability !== undefined ? { capability } : {}),
    };
    files.push(...componentFiles(comp, rng, size, images));
    if (
      withJobs &&
      flavor === 'operator' &&
      (name === 'machine-api-operator' ||
        name === 'cluster-image-registry-operator' ||
        name === 'insights-operator' ||
        name === 'etcd-operator')
    ) {
      files.push(jobFile(comp, rng, '09', 'migrate'));
    }
  });
  return files;
}

/** Bulk per-component "operand" ConfigMaps, to reach the size of a real payload (`minManifests` documents). */
function padWithOperands(
  files: FileSpec[],
  chosen: readonly CatalogueEntry[],
  rng: Prng,
  size: number,
  minManifests: number,
): void {
  let docs = files.reduce((n, f) => n + f.docs.length, 0);
  let k = 0;
  while (docs < minManifests) {
    const [level, name, namespace, flavor, capability] = chosen[k % chosen.length] ?? [
      '00',
      'cluster-version-operator',
      'openshift-cluster-version',
      'small',
    ];
    k++;
    if (flavor === 'crds') continue;
    const comp: Component = {
      level,
      name,
      namespace,
      flavor,
      dash: false,
      ...(capability !== undefined ? { capability } : {}),
    };
    const n = 2 + rng.int(3);
    const nn = String(10 + Math.floor(k / chosen.length)).padStart(2, '0');
    const docsHere: Doc[] = Array.from({ length: n }, (_, d) => ({
      excluded: false,
      obj: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-operand-${nn}-${d}`, namespace, annotations: annotations(comp, rng) },
        data: {
          'operand.yaml': stringify({
            description: sentence(rng, 40),
            settings: schemaProps(rng, 1, Math.max(2, Math.round(size * 13))),
          }),
        },
      },
    }));
    files.push({ name: `0000_${level}_${name}_${nn}_operands.yaml`, docs: docsHere });
    docs += n;
  }
}

/** Counts of {@link writeManifestFiles}. */
interface WrittenManifests {
  files: number;
  manifests: number;
  jobs: number;
  multiDocumentFiles: number;
  excluded: number;
  bytes: number;
}

/** Writes the files (those of one name merged, in first-seen order), now and then with a leading `---`. */
async function writeManifestFiles(
  releaseDir: string,
  files: readonly FileSpec[],
  rng: Prng,
): Promise<WrittenManifests> {
  const byName = new Map<string, FileSpec>();
  for (const file of files) {
    const existing = byName.get(file.name);
    if (existing === undefined) byName.set(file.name, file);
    else existing.docs.push(...file.docs);
  }
  const out: WrittenManifests = {
    files: byName.size,
    manifests: 0,
    jobs: 0,
    multiDocumentFiles: 0,
    excluded: 0,
    bytes: 0,
  };
  for (const file of byName.values()) {
    const text = file.docs.map((d) => stringify(d.obj, { lineWidth: 0 })).join('---\n');
    const content = file.docs.length > 1 && rng.chance(0.2) ? `---\n${text}` : text;
    await writeFile(join(releaseDir, file.name), content);
    out.bytes += Buffer.byteLength(content);
    out.manifests += file.docs.length;
    if (file.docs.length > 1) out.multiDocumentFiles++;
    for (const d of file.docs) {
      if (d.obj['kind'] === 'Job') out.jobs++;
      if (d.excluded) out.excluded++;
    }
  }
  return out;
}

/** Writes `image-references` (ImageStream JSON) and `release-metadata` (cincinnati-metadata-v0); their bytes. */
async function writeReleaseMetadata(
  releaseDir: string,
  version: string,
  images: ReadonlyMap<string, string>,
  rng: Prng,
): Promise<number> {
  const imageStream = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version, creationTimestamp: null },
    spec: {
      lookupPolicy: { local: false },
      tags: [...images.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, image]) => ({
          name,
          annotations: {
            'io.openshift.build.commit.id': rng.hex(40),
            'io.openshift.build.source-location': `https://github.com/openshift/${name}`,
          },
          from: { kind: 'DockerImage', name: image },
          generation: null,
          importPolicy: {},
          referencePolicy: { type: '' },
        })),
    },
    status: { dockerImageRepository: '' },
  };
  const imageRefs = JSON.stringify(imageStream, null, 2) + '\n';
  const [major, minor] = version.split('.').map(Number);
  const metadata = {
    kind: 'cincinnati-metadata-v0',
    version,
    previous: Array.from({ length: 6 }, (_, i) => `${major}.${(minor ?? 1) - 1}.${i * 3 + 2}`),
    metadata: {
      url: `https://access.redhat.com/errata/RHSA-2026:${1000 + rng.int(9000)}`,
      // no release.openshift.io/architecture: a single-arch release leaves it out (only "multi" is valid there)
      'io.openshift.upgrades.graph.release.channels': `candidate-${major}.${minor},fast-${major}.${minor},stable-${major}.${minor}`,
    },
  };
  const metaText = JSON.stringify(metadata, null, 2) + '\n';
  await writeFile(join(releaseDir, 'image-references'), imageRefs);
  await writeFile(join(releaseDir, 'release-metadata'), metaText);
  return Buffer.byteLength(imageRefs) + Buffer.byteLength(metaText);
}
