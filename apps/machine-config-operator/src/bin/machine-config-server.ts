#!/usr/bin/env node
// machine-config-server entry point (wiring only; see src/server).
import { isUsageError, onShutdown, parseFlags, processLogger } from '@keelson/kube';
import { startMachineConfigServer, SECURE_PORT, INSECURE_PORT } from '../server/server.js';
import { parseCount, UsageError } from './args.js';

const USAGE = `Usage:
  machine-config-server start --apiserver-url URL [--kubeconfig FILE] [--cert FILE --key FILE]
                              [--secure-port 22623] [--insecure-port 22624] [--bootstrap-token-dir DIR] [--host ADDR]
  machine-config-server bootstrap [--server-basedir /etc/mcs/bootstrap] --apiserver-url URL [--cert FILE --key FILE] ...`;

/** The process logger; `--v N` sets its level (klog's `--v`). */
let log = processLogger('machine-config-server');

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd !== 'start' && cmd !== 'bootstrap') throw new UsageError(USAGE);
  const parsed = parseFlags(
    `machine-config-server ${cmd}`,
    {
      'apiserver-url': { type: 'string' },
      kubeconfig: { type: 'string' },
      cert: { type: 'string', default: '/etc/ssl/mcs/tls.crt' },
      key: { type: 'string', default: '/etc/ssl/mcs/tls.key' },
      'secure-port': { type: 'string', default: String(SECURE_PORT) },
      'insecure-port': { type: 'string', default: String(INSECURE_PORT) },
      'bootstrap-token-dir': { type: 'string' },
      'server-basedir': { type: 'string', default: '/etc/mcs/bootstrap' },
      host: { type: 'string' },
      'tls-cipher-suites': { type: 'string' },
      'tls-min-version': { type: 'string' },
      v: { type: 'string' },
    },
    rest,
    USAGE,
  );
  if (parsed.help) return;
  const { values } = parsed;
  if (values.v !== undefined) log = processLogger('machine-config-server', values.v);
  const apiserverURL = values['apiserver-url'];
  if (apiserverURL === undefined) throw new UsageError(`--apiserver-url is required\n${USAGE}`);
  const kubeconfig = values.kubeconfig ?? process.env['KUBECONFIG'];
  const server = await startMachineConfigServer({
    apiserverURL,
    cert: values.cert,
    key: values.key,
    securePort: parseCount('secure-port', values['secure-port']),
    insecurePort: parseCount('insecure-port', values['insecure-port']),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    ...(values['bootstrap-token-dir'] !== undefined ? { bootstrapTokenDir: values['bootstrap-token-dir'] } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(cmd === 'bootstrap' ? { bootstrap: true, bootstrapDir: values['server-basedir'] } : {}),
    logger: log,
  });
  log.info('machine-config-server running', { https: server.secureUrl, http: server.insecureUrl });
  onShutdown(() => server.stop(), { logger: log });
}

main().catch((e: unknown) => {
  if (isUsageError(e)) process.stderr.write(`${e.message}\n`);
  else log.error('machine-config-server failed', { err: e });
  process.exitCode = isUsageError(e) ? e.exitCode : 1;
});
