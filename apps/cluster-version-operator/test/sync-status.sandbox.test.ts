/**
 * Issue 18 defects 1b and 6, through a loopback proxy in front of the embedded API server:
 * - a ClusterVersion status write the server refuses (422, as kube-apiserver refused duplicate `channels`) never stops
 *   the payload being applied: status is written apart from the sync and retried (upstream `pkg/cvo/cvo.go`);
 * - a ClusterOperator that reports while a pass runs makes the next pass start when it ends, not after the backoff
 *   (upstream `SyncWorker.notify`, a channel with a buffer of one).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeClient, Logger } from '@keelson/kube';
import type { Sandbox } from '@keelson/kube-sandbox';
import { startClusterVersionOperator, type CvoEvent, type RunningCvo } from '../src/index.js';
import { OperatorReporterDouble, startCluster, waitFor, writeFixturePayload } from './helpers.js';

const IMAGE_A = 'quay.io/keelson/release@sha256:' + 'a'.repeat(64);
const CV_PATH = '/apis/config.openshift.io/v1/clusterversions/version';

/** What the proxy does with a request: pass it, answer it, or hold it until released. */
interface ProxyRules {
  refuseStatus: boolean;
  refused: number;
  /** When set, the next matching request is held until `release` is called. */
  hold?: { match: (method: string, url: string) => boolean; held?: () => void; release?: () => void };
}

function startProxy(target: URL, rules: ProxyRules): Promise<Server> {
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    if (rules.refuseStatus && req.method === 'PUT' && url.startsWith(`${CV_PATH}/status`)) {
      rules.refused++;
      req.resume();
      const message =
        'ClusterVersion.config.openshift.io "version" is invalid: status.availableUpdates[0].channels[1]: Duplicate value: "stable-4.18"';
      res.writeHead(422, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Invalid',
          code: 422,
          message,
        }),
      );
      return;
    }
    const h = rules.hold;
    if (h && !h.release && h.match(req.method ?? '', url)) {
      let released = false;
      h.release = () => {
        if (released) return;
        released = true;
        forward(req, res);
      };
      h.held?.();
      return;
    }
    forward(req, res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A logger that keeps every message (the notifications the operator logs at debug level). */
function recordingLogger(lines: string[], onLine: (line: string) => void = () => undefined): Logger {
  const push = (line: string): void => {
    lines.push(line);
    onLine(line);
  };
  const l: Logger = {
    debug: (m, f) => {
      push(`${m} ${JSON.stringify(f ?? {})}`);
    },
    info: (m, f) => {
      push(`${m} ${JSON.stringify(f ?? {})}`);
    },
    warn: (m, f) => {
      push(`${m} ${JSON.stringify(f ?? {})}`);
    },
    error: (m, f) => {
      push(`${m} ${JSON.stringify(f ?? {})}`);
    },
    child: () => l,
  };
  return l;
}

interface Env {
  sandbox: Sandbox;
  client: KubeClient;
  dir: string;
  proxy: Server;
  cvo: RunningCvo;
  reporter: OperatorReporterDouble;
  rules: ProxyRules;
  events: CvoEvent[];
  logs: string[];
}
let env: Env | undefined;

async function setup(
  rules: ProxyRules,
  silent: string[],
  intervals: { minimumReconcileIntervalMs?: number } = {},
  onLine?: (line: string) => void,
): Promise<Env> {
  const { sandbox, client, kubeconfig, dir } = await startCluster();
  const proxy = await startProxy(new URL(sandbox.url), rules);
  const proxied = join(dir, 'kubeconfig-proxied');
  await writeFile(
    proxied,
    (await readFile(kubeconfig, 'utf8'))
      .split(sandbox.url)
      .join(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`),
  );
  const payloadA = await writeFixturePayload(join(dir, 'payload-a'), '4.18.0');
  const reporter = new OperatorReporterDouble(client);
  for (const s of silent) reporter.silent.add(s);
  reporter.start();
  const events: CvoEvent[] = [];
  const logs: string[] = [];
  const cvo = await startClusterVersionOperator({
    kubeconfig: proxied,
    payloadDir: payloadA,
    releaseImage: IMAGE_A,
    payloadCache: join(dir, 'cache'),
    // every pass GETs its manifests (as upstream), so a test can hold a pass at one of them
    liveObjectCache: false,
    listen: '127.0.0.1:0',
    updateService: 'http://127.0.0.1:9/graph',
    timeScale: 0.002,
    intervals: { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500, ...intervals },
    logger: recordingLogger(logs, onLine),
    onEvent: (e) => events.push(e),
  });
  env = { sandbox, client, dir, proxy, cvo, reporter, rules, events, logs };
  return env;
}

afterEach(async () => {
  if (!env) return;
  const e = env;
  env = undefined;
  e.reporter.stop();
  e.rules.hold?.release?.();
  await e.cvo.stop();
  e.proxy.closeAllConnections();
  await new Promise<void>((r) => e.proxy.close(() => r()));
  await e.sandbox.stop();
  await rm(e.dir, { recursive: true, force: true });
});

interface CV {
  status?: { history?: { state: string; version: string }[]; conditions?: { type: string; status: string }[] };
}

describe('status written apart from the sync (issue 18 defect 1b)', () => {
  it('applies the whole payload while every ClusterVersion status write is refused, then writes status once accepted', async () => {
    const rules: ProxyRules = { refuseStatus: true, refused: 0 };
    const { client, events, logs } = await setup(rules, []);
    // the payload is applied although no status write is accepted (the ClusterOperators cannot report without a
    // desired version in status, so the pass ends waiting on them, after every other manifest was applied)
    await waitFor(
      () => Promise.resolve(events.some((e) => e.type === 'syncFinished' && e.done > 0)),
      30_000,
      'a pass that applied manifests',
    );
    expect(rules.refused).toBeGreaterThan(0);
    const deployments = await client.request<{ items: unknown[] }>('GET', '/apis/apps/v1/deployments');
    expect(deployments.items.length).toBeGreaterThan(0);
    expect((await client.request<CV>('GET', CV_PATH)).status?.history ?? []).toEqual([]);
    // the refusal is logged once at warn level (not once per retry)
    expect(logs.filter((l) => l.startsWith('writing ClusterVersion status failed; the sync continues')).length).toBe(1);
    // once the server accepts the write again, the retried write lands and the install completes
    rules.refuseStatus = false;
    const cv = await waitFor(
      async () => {
        const c = await client.request<CV>('GET', CV_PATH);
        return c.status?.history?.[0]?.state === 'Completed' ? c : undefined;
      },
      30_000,
      'install Completed',
    );
    expect(cv.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
  });
});

describe('pending wake-ups (issue 18 defect 6)', () => {
  it('a ClusterOperator that reports during a pass starts the next pass when it ends, not after the backoff', async () => {
    const rules: ProxyRules = { refuseStatus: false, refused: 0 };
    // The pass to hold is the one the spec change below starts: the hold is armed (synchronously, in the operator's
    // own log call) when the worker wakes for that work, so the pass's start has consumed that notification and only
    // the dns notification can start the pass after it.
    let armOnWork = false;
    let startedAtHold = -1;
    let heldResolve: () => void = () => undefined;
    const held = new Promise<void>((r) => {
      heldResolve = r;
    });
    const onLine = (line: string): void => {
      if (!armOnWork || !line.startsWith('sync worker woken') || !line.includes('"work"')) return;
      armOnWork = false;
      rules.hold = {
        match: (m, u) => m === 'GET' && u === '/api/v1/namespaces/openshift-ingress/configmaps/ingress-config',
        held: () => {
          startedAtHold = started();
          heldResolve();
        },
      };
    };
    // a 10-minute interval: the failure backoff is >= 75 s, far beyond this test's waits
    const { client, events, logs, reporter } = await setup(
      rules,
      ['dns', 'console'],
      { minimumReconcileIntervalMs: 600_000 },
      onLine,
    );
    const started = (): number => events.filter((e) => e.type === 'syncStarted').length;
    await waitFor(
      () => Promise.resolve(events.some((e) => e.type === 'syncFinished' && e.error !== undefined)),
      30_000,
      'a failed first pass',
    );
    armOnWork = true;
    await client.request('PATCH', CV_PATH, {
      body: { spec: { channel: 'stable-4.18' } },
      contentType: 'application/merge-patch+json',
    });
    await held;
    reporter.silent.delete('dns');
    await waitFor(
      () =>
        Promise.resolve(
          logs.some((l) => l.startsWith('Notify the sync worker') && l.includes('Cluster operator dns changed')),
        ),
      20_000,
      'the dns notification',
    );
    const finishedBefore = events.filter((e) => e.type === 'syncFinished').length;
    rules.hold?.release?.();
    // the held pass ends (still failing on console) ...
    await waitFor(
      () => Promise.resolve(events.filter((e) => e.type === 'syncFinished').length > finishedBefore),
      20_000,
      'the held pass to end',
    );
    // ... and the notification it received starts another pass at once
    const diagnose = (): string => JSON.stringify({ startedAtHold, events: events.slice(-8), logs: logs.slice(-12) });
    await waitFor(() => Promise.resolve(started() > startedAtHold), 20_000, 'a pass right after the held one').catch(
      (e: unknown) => {
        throw new Error(`${(e as Error).message}: ${diagnose()}`);
      },
    );
  });
});
