/**
 * The Machine Config Operator's release manifests (`0000_80_machine-config_*`) for a rehearsal release, shaped like
 * upstream's `install/` folder: namespace, the machine-config-osimageurl ConfigMap, the operator Deployment, the
 * `machine-config` ClusterOperator, the master/worker pools and their base MachineConfigs.
 */
import { stringify } from 'yaml';

/** What differs between two releases for the MCO. */
export interface MachineConfigReleaseFacts {
  /** Release version (`releaseVersion` of machine-config-osimageurl). */
  version: string;
  /** machine-config-operator image pull spec. */
  operatorImage: string;
  /** RHCOS container image (`baseOSContainerImage`). */
  baseOSContainerImage: string;
  /** RHCOS extensions image (`baseOSExtensionsContainerImage`). */
  baseOSExtensionsContainerImage: string;
  /** Kernel arguments of the base master and worker MachineConfigs. */
  kernelArguments: readonly string[];
  /** Contents of /etc/kubernetes/kubelet-rehearsal.conf written by the base configs (a file every node carries). */
  kubeletConf: string;
}

const PROFILES = {
  'include.release.openshift.io/self-managed-high-availability': 'true',
  'include.release.openshift.io/single-node-developer': 'true',
};

const NS = 'openshift-machine-config-operator';

function yamlDocs(docs: readonly Record<string, unknown>[]): string {
  return docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n');
}

function dataUrl(text: string): string {
  return `data:,${encodeURIComponent(text)}`;
}

/** Ignition 3.5 config of a base MachineConfig: a few files and units every node carries. */
function baseIgnition(role: string, facts: MachineConfigReleaseFacts): Record<string, unknown> {
  return {
    ignition: { version: '3.5.0' },
    storage: {
      files: [
        {
          path: '/etc/kubernetes/kubelet-rehearsal.conf',
          mode: 0o644,
          overwrite: true,
          contents: { source: dataUrl(facts.kubeletConf) },
        },
        { path: '/etc/node-role', mode: 0o644, overwrite: true, contents: { source: dataUrl(`${role}\n`) } },
        {
          path: '/etc/crio/crio.conf.d/00-default',
          mode: 0o644,
          overwrite: true,
          contents: { source: dataUrl('[crio.runtime]\nselinux = true\n') },
        },
      ],
    },
    systemd: {
      units: [
        {
          name: 'kubelet.service',
          enabled: true,
          contents:
            '[Unit]\nDescription=Kubernetes Kubelet\n[Service]\nExecStart=/usr/bin/kubelet\n[Install]\nWantedBy=multi-user.target\n',
        },
        { name: 'crio.service', enabled: true },
      ],
    },
  };
}

/**
 * Name of the release's base MachineConfig of a role. Not `00-<role>`: that name belongs to the MCO's template
 * controller, which rewrites it from its templates whenever it changes, so a payload manifest of that name would be
 * overwritten back and forth by the CVO and the controller (and the nodes would run whichever wrote last).
 */
export function baseMachineConfigName(role: string): string {
  return `50-${role}-release-base`;
}

function baseMachineConfig(role: string, facts: MachineConfigReleaseFacts): Record<string, unknown> {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: {
      name: baseMachineConfigName(role),
      labels: { 'machineconfiguration.openshift.io/role': role },
      annotations: { ...PROFILES },
    },
    spec: {
      config: baseIgnition(role, facts),
      kernelArguments: [...facts.kernelArguments],
      extensions: [],
      fips: false,
      kernelType: '',
      osImageURL: '',
    },
  };
}

function pool(role: string): Record<string, unknown> {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: {
      name: role,
      // as the installer labels the two pools (upstream's manifests/<role>.machineconfigpool.yaml): both built in (the
      // container-runtime-config controller writes 99-<pool>-generated-registries for them), and the MCO reports its
      // new version only once the master pool (required for upgrade) runs this release's rendered config
      labels: {
        'machineconfiguration.openshift.io/mco-built-in': '',
        ...(role === 'master' ? { 'operator.machineconfiguration.openshift.io/required-for-upgrade': '' } : {}),
        [`pools.operator.machineconfiguration.openshift.io/${role}`]: '',
      },
      annotations: { ...PROFILES, 'release.openshift.io/create-only': 'true' },
    },
    spec: {
      machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': role } },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${role}`]: '' } },
      paused: false,
    },
  };
}

/** The `0000_80_machine-config_*` files (name → YAML) of one release. CRDs are added by the caller. */
export function machineConfigManifests(facts: MachineConfigReleaseFacts): Record<string, string> {
  const ns = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: NS,
      annotations: { ...PROFILES, 'openshift.io/node-selector': '' },
      labels: { 'openshift.io/cluster-monitoring': 'true', 'openshift.io/run-level': '1' },
    },
  };
  const osImageUrl = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-osimageurl', namespace: NS, annotations: { ...PROFILES } },
    data: {
      releaseVersion: facts.version,
      baseOSContainerImage: facts.baseOSContainerImage,
      baseOSExtensionsContainerImage: facts.baseOSExtensionsContainerImage,
      osImageURL: '',
    },
  };
  const deployment = operatorDeployment(facts);
  // the operator's images.json (upstream install/0000_80_machine-config_02_images.configmap.yaml, placeholders
  // replaced): the operator deploys its operands with the machine-config-operator image named here
  const images = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'machine-config-operator-images', namespace: NS, annotations: { ...PROFILES } },
    data: {
      'images.json': `${JSON.stringify({ releaseVersion: facts.version, machineConfigOperator: facts.operatorImage }, null, 2)}\n`,
    },
  };
  const clusterOperator = {
    apiVersion: 'config.openshift.io/v1',
    kind: 'ClusterOperator',
    metadata: { name: 'machine-config', annotations: { ...PROFILES } },
    spec: {},
    status: {
      versions: [{ name: 'operator', version: facts.version }],
      relatedObjects: [{ group: '', resource: 'namespaces', name: NS }],
    },
  };
  return {
    // upstream's install/ order: the operator's Deployment before the osimageurl ConfigMap and the ClusterOperator.
    // The CVO waits at the ClusterOperator manifest until machine-config reports this release, which only the new
    // operator does: a Deployment after it would never be rolled out (and the update fail with "Cluster operator
    // machine-config is not available"). The pools and base MachineConfigs come before that wait, so the new
    // rendered configs carry them and the nodes roll once.
    '0000_80_machine-config_00_namespace.yaml': yamlDocs([ns]),
    '0000_80_machine-config_02_machineconfigpools.yaml': yamlDocs([pool('master'), pool('worker')]),
    '0000_80_machine-config_02_images.configmap.yaml': yamlDocs([images]),
    '0000_80_machine-config_03_rbac.yaml': yamlDocs(operatorIdentities()),
    '0000_80_machine-config_04_deployment.yaml': yamlDocs([deployment]),
    '0000_80_machine-config_05_osimageurl.yaml': yamlDocs([osImageUrl]),
    '0000_80_machine-config_05_base-machineconfigs.yaml': yamlDocs([
      baseMachineConfig('master', facts),
      baseMachineConfig('worker', facts),
    ]),
    '0000_80_machine-config_06_clusteroperator.yaml': yamlDocs([clusterOperator]),
  };
}

/** The machine-config-operator's Deployment (upstream install/0000_80_machine-config_04_deployment.yaml). */
function operatorDeployment(facts: MachineConfigReleaseFacts): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'machine-config-operator', namespace: NS, annotations: { ...PROFILES } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'k8s-app': 'machine-config-operator' } },
      template: {
        metadata: { labels: { 'k8s-app': 'machine-config-operator' } },
        spec: {
          containers: [
            {
              name: 'machine-config-operator',
              image: facts.operatorImage,
              args: [
                'start',
                '--images-json=/etc/mco/images/images.json',
                '--payload-version=' + facts.version,
                '--operator-image=' + facts.operatorImage,
              ],
              env: [{ name: 'RELEASE_VERSION', value: facts.version }],
            },
          ],
          nodeSelector: { 'node-role.kubernetes.io/master': '' },
          priorityClassName: 'system-cluster-critical',
          serviceAccountName: 'machine-config-operator',
        },
      },
    },
  };
}

/** The ServiceAccounts of the operator and its operands, each bound to cluster-admin. */
function operatorIdentities(): Record<string, unknown>[] {
  // the operator's identity as upstream's install/ ships it: its own ServiceAccount bound to cluster-admin
  const serviceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'machine-config-operator', namespace: NS, annotations: { ...PROFILES } },
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'custom-account-openshift-machine-config-operator', annotations: { ...PROFILES } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'machine-config-operator', namespace: NS }],
  };
  // the identities of the operands the operator deploys (controller, daemon, server), bound as the operator's is
  const operandAccounts = ['machine-config-controller', 'machine-config-daemon', 'machine-config-server'].flatMap(
    (name) => [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NS, annotations: { ...PROFILES } } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `custom-account-${name}`, annotations: { ...PROFILES } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name, namespace: NS }],
      },
    ],
  );
  return [serviceAccount, binding, ...operandAccounts];
}
