/** Flag parsing of `cluster-version-operator start|render` (upstream flag names). */
import { parseArgs } from 'node:util';
import { parseGoDuration } from '@keelson/kube';
import { CvoError } from './errors.js';
import type { CvoOptions } from './operator/start.js';

/** Usage text. */
export const USAGE = `Usage:
  cluster-version-operator start --release-image IMAGE --payload-dir DIR [flags]
  cluster-version-operator render --output-dir DIR --release-image IMAGE [--payload-dir DIR]

start flags:
  --release-image IMAGE        pull spec of this operator's own release (required)
  --payload-dir DIR            the release payload root on disk (manifests/, release-manifests/; default /)
  --payload-retrieval MODE     pod: a version-<v>-<rand> Pod on this node copies the payload out of the release
                               image (upstream; default in a cluster); direct: pull it here, honouring the cluster's
                               ImageDigestMirrorSet/ImageTagMirrorSet/ImageContentSourcePolicy mirrors, Proxy and
                               trusted CAs (default out of a cluster)
  --node-name NAME             the node this operator runs on (default NODE_NAME); where the retrieval Pod runs
  --payload-cache DIR          pod: where this process sees the node's /etc/cvo/updatepayloads (default that path);
                               direct: the digest-keyed cache (default $TMPDIR/cvo-payloads)
  --kubeconfig FILE            kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)
  --listen HOST:PORT           metrics and health address (default 0.0.0.0:9099)
  --serving-cert-file FILE     TLS certificate for --listen
  --serving-key-file FILE      TLS key for --listen
  --update-service URL         update service, overrides spec.upstream
  --promql-target URL          PromQL endpoint for conditional update risks
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

environment (start):
  NODE_NAME                    the node this operator runs on (when --node-name is not given)
  CLUSTER_PROFILE              cluster profile (default self-managed-high-availability)
  EXCLUDE_MANIFESTS            skip manifests annotated exclude.release.openshift.io/<value>: "true"
`;

/**
 * A duration flag as Go's `time.ParseDuration` (`137s`, `1m30s`, `250ms`; `@keelson/kube` `parseGoDuration`), in
 * milliseconds. A bare number is a usage error (not milliseconds), as are zero and negative durations.
 */
export function parseDuration(flag: string, s: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(s);
  } catch (e) {
    throw new CvoError(
      'InvalidFlag',
      flag,
      `${flag} ${JSON.stringify(s)}: ${(e as Error).message} (a duration like 250ms, 10s, 1m30s or 1h)`,
    );
  }
  if (!(ms > 0)) throw new CvoError('InvalidFlag', flag, `${flag} ${JSON.stringify(s)}: must be a positive duration`);
  return ms;
}

/** Parsed command line. */
export type Command =
  | { command: 'start'; options: CvoOptions; verbosity: number }
  | { command: 'render'; outputDir: string; releaseImage: string; payloadDir: string }
  | { command: 'help' };

/** Parses argv (without node and script). */
export function parseCommandLine(argv: readonly string[]): Command {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') return { command: 'help' };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      strict: true,
      options: {
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
      },
    });
  } catch (e) {
    throw new CvoError('InvalidFlag', cmd, `${(e as Error).message}\n\n${USAGE}`);
  }
  const v = parsed.values;
  const releaseImage = v['release-image'] ?? '';
  if (cmd === 'render') {
    if (v['output-dir'] === undefined)
      throw new CvoError('InvalidFlag', '--output-dir', 'render: --output-dir is required');
    if (releaseImage === '')
      throw new CvoError('InvalidFlag', '--release-image', 'render: --release-image is required');
    return { command: 'render', outputDir: v['output-dir'], releaseImage, payloadDir: v['payload-dir'] ?? '/' };
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
  if (v['node-name'] !== undefined) options.nodeName = v['node-name'];
  if (v.kubeconfig !== undefined) options.kubeconfig = v.kubeconfig;
  if (v.listen !== undefined) options.listen = v.listen;
  if (v['serving-cert-file'] !== undefined) options.servingCertFile = v['serving-cert-file'];
  if (v['serving-key-file'] !== undefined) options.servingKeyFile = v['serving-key-file'];
  if (v['update-service'] !== undefined) options.updateService = v['update-service'];
  if (v['promql-target'] !== undefined) options.promqlTarget = v['promql-target'];
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
  const verbosity = v.v !== undefined ? Number(v.v) : 2;
  return { command: 'start', options, verbosity: Number.isFinite(verbosity) ? verbosity : 2 };
}
