/** Flag parsing of `cluster-version-operator start|render` (upstream flag names). */
import { hostname } from 'node:os';
import {
  parseDurationFlag,
  parseFlags,
  parseGoBool,
  parseVerbosityFlag,
  UsageError,
  type FlagValues,
} from '@keelson/kube';
import { CvoError } from './errors.js';
import { DEFAULT_PROMQL_TARGET, validatePromQLTarget, type PromQLTarget } from './cluster/promql.js';
import { resolvePromQLTarget, type CvoOptions } from './operator/start.js';

/** Usage text. */
export const USAGE = `Usage:
  cluster-version-operator start --release-image IMAGE --payload-dir DIR [flags]
  cluster-version-operator render --output-dir DIR --release-image IMAGE [--payload-dir DIR]
      [--feature-gate-manifest-path FILE] [--cluster-version-manifest-path FILE]

start flags:
  --release-image IMAGE        pull spec of this operator's own release (required)
  --payload-dir DIR            the release payload root on disk (manifests/, release-manifests/; default /)
  --payload-retrieval MODE     pod: a version-<v>-<rand> Pod on this node copies the payload out of the release
                               image (upstream; default in a cluster); direct: pull it here, honouring the cluster's
                               ImageDigestMirrorSet/ImageTagMirrorSet/ImageContentSourcePolicy mirrors, Proxy and
                               trusted CAs (default out of a cluster)
  --payload-cache DIR          pod: where this process sees the node's /etc/cvo/updatepayloads (default that path);
                               direct: the digest-keyed cache (default $TMPDIR/cvo-payloads)
  --kubeconfig FILE            kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)
  --listen HOST:PORT           metrics and health address over HTTPS (default 0.0.0.0:9099); --listen= serves
                               nothing
  --serving-cert-file FILE     TLS certificate for --listen (required unless --listen=)
  --serving-key-file FILE      TLS key for --listen (required unless --listen=)
  --update-service URL         update service, overrides spec.upstream
  --node-name NAME             node this operator runs on, where the retrieval Pod runs (default NODE_NAME;
                               required in cluster, the hostname when --kubeconfig is given)
  --metrics-url URL            PromQL service for conditional update risks
                               (default https://thanos-querier.openshift-monitoring.svc.cluster.local:9091)
  --metrics-token-file FILE    bearer token for --metrics-url, re-read per query
                               (default /var/run/secrets/kubernetes.io/serviceaccount/token)
  --metrics-ca-bundle-file FILE
                               service CA bundle for --metrics-url (default /etc/tls/service-ca/service-ca.crt)
  --metrics-namespace NS       namespace of the PromQL Service (default openshift-monitoring)
  --metrics-service NAME       the PromQL Service, whose ClusterIP is queried unless --use-dns-for-services
                               (default thanos-querier)
  --use-dns-for-services       connect to --metrics-url's host name instead of the Service's ClusterIP
  --promql-target URL          Keelson: query this PromQL endpoint directly (no token or CA unless given)
  --enable-auto-update         update to the newest available release automatically
  --always-enable-capabilities CAPS
                               capabilities always implicitly enabled (comma-separated, repeatable)
  --time-scale F               multiply every upstream interval by F (e.g. 0.01)
  --reconcile-interval DUR     base resync period (default 2m)
  --status-interval DUR        status write throttle (default 15s)
  --lease-duration DUR         leader election lease duration (default 137s)
  --renew-deadline DUR         leader election renew deadline (default 107s)
  --retry-period DUR           leader election retry period (default 26s)
  --v N                        log verbosity (>= 4 logs debug)

Boolean flags also take Go's --flag=true / --flag=false.

render flags:
  --output-dir DIR             writes DIR/manifests and DIR/bootstrap
  --payload-dir DIR            payload root: manifests/, release-manifests/, bootstrap/ (default /)
  --feature-gate-manifest-path FILE
                               FeatureGate manifest: spec.featureSet and the gates its status enables
  --cluster-version-manifest-path FILE
                               ClusterVersion manifest: spec.overrides exclude unmanaged manifests

environment (start):
  NODE_NAME                    default of --node-name
  CLUSTER_PROFILE              cluster profile (default self-managed-high-availability)
  EXCLUDE_MANIFESTS            skip manifests annotated exclude.release.openshift.io/<value>: "true"
`;

/**
 * A duration flag as Go's `time.ParseDuration` (`137s`, `1m30s`, `250ms`; `@keelson/kube` `parseGoDuration`), in
 * milliseconds. A bare number is a usage error (not milliseconds), as are zero and negative durations.
 */
export function parseDuration(flag: string, s: string): number {
  try {
    return parseDurationFlag(flag, s, 'positive');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new CvoError(
      'InvalidFlag',
      flag,
      e.reason === 'must be a positive duration'
        ? `${flag} ${JSON.stringify(s)}: must be a positive duration`
        : `${flag} ${JSON.stringify(s)}: ${e.reason} (a duration like 250ms, 10s, 1m30s or 1h)`,
      { cause: e },
    );
  }
}

/** klog's `--v` (a non-negative integer, `@keelson/kube` `parseVerbosityFlag`): anything else is a bad flag. */
function parseVerbosity(s: string): number {
  try {
    return parseVerbosityFlag(s);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new CvoError('InvalidFlag', '--v', e.message, { cause: e });
  }
}

const BOOL_FLAGS = new Set(['enable-auto-update', 'use-dns-for-services']);

/**
 * Go's `pflag` boolean syntax `--flag=true|false` (strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, …),
 * which upstream's Deployment uses (`--enable-auto-update=false`): rewritten to `--flag` or dropped.
 */
export function goBoolArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    const m = /^--([a-z-]+)=(.*)$/.exec(a);
    if (!m || !BOOL_FLAGS.has(m[1] ?? '')) {
      out.push(a);
      continue;
    }
    const val = m[2] ?? '';
    const b = parseGoBool(val);
    if (b === true) out.push(`--${m[1]}`);
    else if (b === undefined)
      throw new CvoError(
        'InvalidFlag',
        `--${m[1]}`,
        `invalid argument ${JSON.stringify(val)} for "--${m[1]}" flag: strconv.ParseBool: parsing ${JSON.stringify(val)}: invalid syntax`,
      );
  }
  return out;
}

/** The PromQL target flags given (undefined: none), validated as upstream's ValidateAndComplete. */
function promqlFlags(v: Record<string, string | boolean | string[] | undefined>): Partial<PromQLTarget> | undefined {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? v[k] : undefined);
  const p: Partial<PromQLTarget> = {};
  const url = str('metrics-url');
  if (url !== undefined) p.url = url;
  const token = str('metrics-token-file');
  if (token !== undefined) p.tokenFile = token;
  const ca = str('metrics-ca-bundle-file');
  if (ca !== undefined) p.caBundleFile = ca;
  if (v['use-dns-for-services'] === true) p.useDNS = true;
  const ns = str('metrics-namespace');
  const svc = str('metrics-service');
  if (ns !== undefined || svc !== undefined)
    p.service = {
      namespace: ns ?? DEFAULT_PROMQL_TARGET.service.namespace,
      name: svc ?? DEFAULT_PROMQL_TARGET.service.name,
    };
  const promqlTarget = str('promql-target');
  validatePromQLTarget(resolvePromQLTarget({ ...(promqlTarget !== undefined ? { promqlTarget } : {}), promql: p }));
  return Object.keys(p).length > 0 ? p : undefined;
}

/** Parsed command line. */
export type Command =
  | { command: 'start'; options: CvoOptions; verbosity: number }
  | {
      command: 'render';
      outputDir: string;
      releaseImage: string;
      payloadDir: string;
      featureGateManifestPath?: string;
      clusterVersionManifestPath?: string;
    }
  | { command: 'help' };

/**
 * upstream Options.ValidateAndComplete: metrics are served over HTTPS only, so a non-empty `--listen` (its default is
 * 0.0.0.0:9099) needs the serving pair; `--listen=` serves nothing (the bootstrap Pod).
 */
function validateListen(options: CvoOptions): void {
  if (options.listen === '') return; // unset: upstream's default 0.0.0.0:9099, which needs the pair too
  if (options.servingCertFile === undefined || options.servingCertFile === '')
    throw new CvoError(
      'InvalidFlag',
      '--serving-cert-file',
      '--listen was not set empty, so --serving-cert-file must be set',
    );
  if (options.servingKeyFile === undefined || options.servingKeyFile === '')
    throw new CvoError(
      'InvalidFlag',
      '--serving-key-file',
      '--listen was not set empty, so --serving-key-file must be set',
    );
}

/** The flags of `start` and `render` (upstream names; parsed by `@keelson/kube`'s {@link parseFlags}, commander). */
const FLAGS = {
  'release-image': { type: 'string' },
  'payload-dir': { type: 'string' },
  'payload-cache': { type: 'string' },
  'payload-retrieval': { type: 'string' },
  'node-name': { type: 'string' },
  kubeconfig: { type: 'string' },
  listen: { type: 'string' },
  'serving-cert-file': { type: 'string' },
  'serving-key-file': { type: 'string' },
  'update-service': { type: 'string' },
  'promql-target': { type: 'string' },
  'metrics-url': { type: 'string' },
  'metrics-token-file': { type: 'string' },
  'metrics-ca-bundle-file': { type: 'string' },
  'metrics-namespace': { type: 'string' },
  'metrics-service': { type: 'string' },
  'use-dns-for-services': { type: 'boolean' },
  'enable-auto-update': { type: 'boolean' },
  'always-enable-capabilities': { type: 'string', multiple: true },
  'time-scale': { type: 'string' },
  'reconcile-interval': { type: 'string' },
  'status-interval': { type: 'string' },
  'lease-duration': { type: 'string' },
  'renew-deadline': { type: 'string' },
  'retry-period': { type: 'string' },
  v: { type: 'string' },
  'output-dir': { type: 'string' },
  'feature-gate-manifest-path': { type: 'string' },
  'cluster-version-manifest-path': { type: 'string' },
} as const;

/** The flag values of `cmd`; a bad command line is a CvoError `InvalidFlag` followed by the usage text. */
function parseCvoFlags(cmd: string, rest: readonly string[]): FlagValues<typeof FLAGS> {
  try {
    const parsed = parseFlags(`cluster-version-operator ${cmd}`, FLAGS, goBoolArgs(rest));
    if (parsed.help) throw new UsageError('--help: not a flag here');
    return parsed.values;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new CvoError('InvalidFlag', cmd, `${e.reason}\n\n${USAGE}`, { cause: e });
  }
}

/** Parses argv (without node and script). */
export function parseCommandLine(argv: readonly string[]): Command {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') return { command: 'help' };
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help' };
  const v = parseCvoFlags(cmd, rest);
  const releaseImage = v['release-image'] ?? '';
  if (cmd === 'render') {
    if (v['output-dir'] === undefined)
      throw new CvoError('InvalidFlag', '--output-dir', 'render: --output-dir is required');
    if (releaseImage === '')
      throw new CvoError('InvalidFlag', '--release-image', 'render: --release-image is required');
    return {
      command: 'render',
      outputDir: v['output-dir'],
      releaseImage,
      payloadDir: v['payload-dir'] ?? '/',
      ...(v['feature-gate-manifest-path'] ? { featureGateManifestPath: v['feature-gate-manifest-path'] } : {}),
      ...(v['cluster-version-manifest-path'] ? { clusterVersionManifestPath: v['cluster-version-manifest-path'] } : {}),
    };
  }
  if (cmd !== 'start') throw new CvoError('InvalidFlag', cmd, `unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`);
  if (releaseImage === '')
    throw new CvoError(
      'InvalidFlag',
      '--release-image',
      'start: --release-image is required (the pull spec of the payload in --payload-dir)',
    );
  const options: CvoOptions = { releaseImage, payloadDir: v['payload-dir'] ?? '/' };
  if (v['payload-cache'] !== undefined) options.payloadCache = v['payload-cache'];
  const retrieval = v['payload-retrieval'];
  if (retrieval !== undefined) {
    if (retrieval !== 'pod' && retrieval !== 'direct')
      throw new CvoError(
        'InvalidFlag',
        '--payload-retrieval',
        `--payload-retrieval ${JSON.stringify(retrieval)}: expected pod or direct`,
      );
    options.payloadRetrieval = retrieval;
  }
  if (v.kubeconfig !== undefined) options.kubeconfig = v.kubeconfig;
  if (v.listen !== undefined) options.listen = v.listen;
  if (v['serving-cert-file'] !== undefined) options.servingCertFile = v['serving-cert-file'];
  if (v['serving-key-file'] !== undefined) options.servingKeyFile = v['serving-key-file'];
  if (v['update-service'] !== undefined) options.updateService = v['update-service'];
  if (v['promql-target'] !== undefined) options.promqlTarget = v['promql-target'];
  const promql = promqlFlags(v);
  if (promql !== undefined) options.promql = promql;
  const nodeName = v['node-name'] ?? process.env['NODE_NAME'] ?? '';
  if (nodeName !== '') options.nodeName = nodeName;
  // upstream Options.ValidateAndComplete; --kubeconfig is upstream's "testing only" mode, where the host name stands in
  else if (v.kubeconfig === undefined) throw new CvoError('InvalidFlag', '--node-name', 'node-name is required');
  else options.nodeName = hostname();
  validateListen(options);
  if (v['enable-auto-update'] === true) options.enableAutoUpdate = true;
  // upstream StringSliceVar: comma-separated values, the flag repeatable
  const always = (v['always-enable-capabilities'] ?? [])
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter((x) => x !== '');
  if (always.length > 0) options.alwaysEnableCapabilities = always;
  if (v['time-scale'] !== undefined) {
    const t = Number(v['time-scale']);
    if (!(t > 0))
      throw new CvoError(
        'InvalidFlag',
        '--time-scale',
        `--time-scale ${JSON.stringify(v['time-scale'])}: expected a positive number`,
      );
    options.timeScale = t;
  }
  const intervals: NonNullable<CvoOptions['intervals']> = {};
  if (v['reconcile-interval'] !== undefined)
    intervals.minimumReconcileIntervalMs = parseDuration('--reconcile-interval', v['reconcile-interval']);
  if (v['status-interval'] !== undefined)
    intervals.statusIntervalMs = parseDuration('--status-interval', v['status-interval']);
  if (v['lease-duration'] !== undefined)
    intervals.leaseDurationMs = parseDuration('--lease-duration', v['lease-duration']);
  if (v['renew-deadline'] !== undefined)
    intervals.renewDeadlineMs = parseDuration('--renew-deadline', v['renew-deadline']);
  if (v['retry-period'] !== undefined) intervals.retryPeriodMs = parseDuration('--retry-period', v['retry-period']);
  if (Object.keys(intervals).length > 0) options.intervals = intervals;
  return { command: 'start', options, verbosity: v.v !== undefined ? parseVerbosity(v.v) : 2 };
}
