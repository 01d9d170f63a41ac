/**
 * What the top-level help lists for each command area, known without loading the area: `keelson --help`,
 * `--version` and an unknown command answer from this table alone (each area's module, and what it imports, is
 * loaded only when one of its commands runs). test/command-index.test.ts checks the table against the areas'
 * real registrations, so a description changed there and not here fails the test.
 */
export interface AreaSummary {
  /** The command name. */
  name: string;
  /** How the help lists it: name, `[options]` when it has options, its arguments. */
  term: string;
  description: string;
}

export const AREA_SUMMARIES: readonly AreaSummary[] = [
  { name: 'payload', term: 'payload', description: 'Release payloads: info, extract, manifests, graph, diff, verify' },
  {
    name: 'ignition',
    term: 'ignition',
    description: 'Ignition configs: validate, merge, translate between spec versions',
  },
  {
    name: 'butane',
    term: 'butane [options] [file]',
    description:
      'Translate a Butane config (variant fcos or openshift) to Ignition or a MachineConfig, like coreos/butane',
  },
  { name: 'mc', term: 'mc', description: 'MachineConfigs: render a pool exactly as the Machine Config Operator' },
  {
    name: 'os',
    term: 'os',
    description: 'rpm-ostree / ostree: OS deployments, and the OS commands a MachineConfig update runs',
  },
  {
    name: 'graph',
    term: 'graph',
    description: 'Update graphs: available updates, upgrade paths, drawing, and a local update service',
  },
  {
    name: 'mcp',
    term: 'mcp [options]',
    description: 'MachineConfigPools: the `oc get mcp` table, and `why` a pool or node is not done',
  },
  {
    name: 'rehearse',
    term: 'rehearse [options]',
    description:
      'Rehearse a whole OpenShift update on this machine: embedded API server, the Keelson CVO and MCO, simulated operators, virtual nodes',
  },
  {
    name: 'sandbox',
    term: 'sandbox',
    description: 'An embedded Kubernetes API server for tests and rehearsals (kubectl-compatible)',
  },
  {
    name: 'upgrade',
    term: 'upgrade [options]',
    description:
      'Check on or request a cluster update (the `oc adm upgrade` counterpart); without flags prints the update status and the recommended updates',
  },
  {
    name: 'simulate',
    term: 'simulate',
    description: 'Simulators for tests and rehearsals (they report, they do not operate)',
  },
];
