#!/usr/bin/env node
// machine-config-daemon entry point (wiring only; see src/daemon and src/virtual).
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import {
  aborted,
  isUsageError,
  Manager,
  onShutdown,
  parseFlags,
  parseListenFlag,
  processLogger,
  type KubeClient,
} from '@keelson/kube';
import { clientFrom } from '../common/runtime.js';
import { startMachineConfigDaemon } from '../daemon/start.js';
import type { DaemonContext } from '../daemon/context.js';
import { DEFAULT_METRICS_ADDRESS } from '../daemon/metrics.js';
import { runOnceFrom } from '../daemon/once-from.js';
import { runFirstboot } from '../daemon/firstboot.js';
import { CommandHost } from '../daemon/host.js';
import { hostOsDriver } from '../daemon/os.js';
import { ChrootHostExec } from '../daemon/host-exec.js';
import { DEFAULT_DRAIN_TIMEOUTS } from '../daemon/drain.js';
import { startVirtualNodes } from '../virtual/harness.js';
import { parseCount, parseDuration, UsageError } from './args.js';

const USAGE = `Usage:
  machine-config-daemon start [--node-name NAME] [--root-mount DIR] [--kubeconfig FILE] [--skip-reboot]
                              [--metrics-listen-address 127.0.0.1:8797]
  machine-config-daemon start --once-from FILE [--root-mount DIR] [--skip-reboot]
  machine-config-daemon start --virtual-nodes N --kubeconfig FILE [--pool worker] [--reboot-duration 30s]
                              [--virtual-root DIR] [--server-url URL [--server-ca FILE]] [--name-prefix P] [--first-index I] [--zones a,b,c]
  machine-config-daemon firstboot-complete-machineconfig [--root-mount DIR]`;

/** The process logger; `start --v N` sets its level (klog's `--v`). */
let log = processLogger('machine-config-daemon');

/** The flags of `machine-config-daemon start`. */
const START_FLAGS = {
  'node-name': { type: 'string' },
  'root-mount': { type: 'string', default: '/' },
  kubeconfig: { type: 'string' },
  'virtual-nodes': { type: 'string' },
  pool: { type: 'string', default: 'worker' },
  'reboot-duration': { type: 'string', default: '0s' },
  'virtual-root': { type: 'string', default: '/var/tmp/keelson-virtual-nodes' },
  'server-url': { type: 'string' },
  'server-ca': { type: 'string' },
  'name-prefix': { type: 'string' },
  'first-index': { type: 'string', default: '0' },
  zones: { type: 'string' },
  'skip-reboot': { type: 'boolean', default: false },
  'once-from': { type: 'string' },
  'metrics-listen-address': { type: 'string', default: DEFAULT_METRICS_ADDRESS },
  v: { type: 'string' },
} as const;

async function start(argv: string[]): Promise<void> {
  const parsed = parseFlags('machine-config-daemon start', START_FLAGS, argv, USAGE);
  if (parsed.help) return;
  const { values } = parsed;
  if (values.v !== undefined) log = processLogger('machine-config-daemon', values.v);
  if (values['once-from'] !== undefined) {
    await onceFrom(values['once-from'], values['root-mount'], values['skip-reboot']);
    return;
  }
  const kubeconfig = values.kubeconfig ?? process.env['KUBECONFIG'];
  if (values['virtual-nodes'] !== undefined) {
    const n = parseCount('virtual-nodes', values['virtual-nodes']);
    const pool = values.pool;
    const prefix = values['name-prefix'] ?? `virtual-${pool}-`;
    const zones = (values.zones ?? '').split(',').filter((z) => z !== '');
    const first = parseCount('first-index', values['first-index']);
    const nodes = Array.from({ length: n }, (_, i) => ({
      name: `${prefix}${first + i}`,
      role: pool,
      pool,
      ...(zones.length > 0 ? { zone: zones[i % zones.length] ?? '' } : {}),
    }));
    const client = clientFrom(kubeconfig, { userAgent: 'machine-config-daemon-virtual' });
    await runManaged(client, 'virtual-nodes', () =>
      startVirtualNodes({
        client,
        nodes,
        rootDir: values['virtual-root'],
        rebootDurationMs: parseDuration('reboot-duration', values['reboot-duration']),
        ...(values['server-url'] !== undefined ? { serverUrl: values['server-url'] } : {}),
        ...(values['server-ca'] !== undefined ? { serverCA: readFileSync(values['server-ca'], 'utf8') } : {}),
        logger: log,
        onEvent: (e) => {
          log.info('virtual node event', { node: e.node, phase: e.phase, config: e.config, message: e.message });
        },
      }),
    );
    log.info('virtual nodes running', { count: n, pool, root: values['virtual-root'] });
    return;
  }
  const nodeName = values['node-name'] ?? process.env['NODE_NAME'] ?? hostname();
  let metrics: { host: string; port: number };
  try {
    metrics = parseListenFlag('metrics-listen-address', values['metrics-listen-address'], '127.0.0.1');
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${USAGE}`, { flag: '--metrics-listen-address', cause: e });
  }
  const client = clientFrom(kubeconfig, { userAgent: 'machine-config-daemon' });
  const d = await runManaged(client, 'machine-config-daemon', (manager) =>
    startMachineConfigDaemon({
      manager,
      nodeName,
      rootMount: values['root-mount'],
      client,
      logger: log,
      drainTimeouts: DEFAULT_DRAIN_TIMEOUTS,
      metrics,
      skipReboot: values['skip-reboot'],
    }),
  );
  log.info('daemon started', {
    node: nodeName,
    root: values['root-mount'],
    hostExec: values['root-mount'] === '/' ? 'direct' : 'chroot',
    metricsUrl: d.metricsUrl,
  });
}

/**
 * Runs a daemon component on `@keelson/kube`'s Manager (the operators' runtime, without a Lease: every node runs
 * its daemon): the SIGTERM handler is installed first, so a signal during startup still stops cleanly; on stop the
 * component ends, then the client closes. A component that fails to start closes the client and fails the process.
 * `start` gets the Manager: the component takes its informers from its shared cache (stopped after the component).
 */
async function runManaged<T extends { stop(): Promise<void> }>(
  client: KubeClient,
  name: string,
  start: (mgr: Manager) => Promise<T>,
): Promise<T> {
  const mgr = new Manager({ client, logger: log, health: false });
  onShutdown(() => mgr.stop(), { logger: log });
  let running: T;
  try {
    running = await start(mgr);
  } catch (e) {
    await mgr.stop();
    throw e;
  }
  mgr.add({
    name,
    needLeaderElection: false,
    start: async (signal) => {
      await aborted(signal);
      await running.stop();
    },
  });
  await mgr.start();
  return running;
}

/** A context without cluster access (firstboot, --once-from): host commands through the root's HostExec. */
function hostContext(rootMount: string, skipReboot = false): DaemonContext {
  const exec = new ChrootHostExec(rootMount);
  return {
    nodeName: hostname(),
    root: exec.root,
    host: new CommandHost(exec),
    os: hostOsDriver(exec),
    logger: log,
    drainTimeouts: DEFAULT_DRAIN_TIMEOUTS,
    signal: new AbortController().signal,
    skipReboot,
  };
}

async function onceFrom(file: string, rootMount: string, skipReboot: boolean): Promise<void> {
  const r = await runOnceFrom(hostContext(rootMount, skipReboot), file);
  log.info('once-from finished', { file, config: r.config, rebooted: r.rebooted && !skipReboot, actions: r.actions });
}

async function firstboot(argv: string[]): Promise<void> {
  const parsed = parseFlags(
    'machine-config-daemon firstboot-complete-machineconfig',
    { 'root-mount': { type: 'string', default: '/' }, 'persist-nics': { type: 'boolean' } },
    argv,
    USAGE,
  );
  if (parsed.help) return;
  const { values } = parsed;
  const r = await runFirstboot(hostContext(values['root-mount']));
  log.info('firstboot finished', { skipped: r.skipped, rebooted: r.rebooted, config: r.config });
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'start') await start(rest);
  else if (cmd === 'firstboot-complete-machineconfig') await firstboot(rest);
  else throw new UsageError(USAGE);
}

main().catch((e: unknown) => {
  if (isUsageError(e)) process.stderr.write(`${e.message}\n`);
  else log.error('machine-config-daemon failed', { err: e });
  process.exitCode = isUsageError(e) ? e.exitCode : 1;
});
