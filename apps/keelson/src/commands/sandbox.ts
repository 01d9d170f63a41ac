import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildKubeconfig, kubeconfigYaml, startSandbox, type SandboxOptions } from '@keelson/kube-sandbox';
import type { Command } from 'commander';
import { CliError } from '../errors.js';

/** What `sandbox start` records so that `sandbox kubeconfig` can find the running server. */
interface SandboxState {
  url: string;
  token: string;
  caCert?: string;
  pid: number;
}

function defaultStateDir(): string {
  return process.env['KEELSON_SANDBOX_DIR'] ?? join(homedir(), '.keelson', 'sandbox');
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port must be an integer between 0 and 65535, got "${v}"`, 2);
  return n;
}

async function readState(dir: string): Promise<SandboxState> {
  const file = join(dir, 'sandbox.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`no running sandbox recorded in ${file}; start one with "keelson sandbox start" (or pass --state-dir)`);
  }
  try {
    const s = JSON.parse(text) as SandboxState;
    if (typeof s.url !== 'string' || typeof s.token !== 'string') throw new Error('missing url/token');
    return s;
  } catch (e) {
    throw new CliError(`${file} is not a sandbox state file (${(e as Error).message}); delete it and start the sandbox again`);
  }
}

/** Registers `keelson sandbox start` and `keelson sandbox kubeconfig`. */
export function registerSandboxCommands(program: Command): void {
  const sandbox = program.command('sandbox').description('An embedded Kubernetes API server for tests and rehearsals (kubectl-compatible)');
  sandbox
    .command('start')
    .description('Start the sandbox API server on 127.0.0.1 and serve until interrupted (SIGINT/SIGTERM)')
    .option('--port <port>', 'TCP port on 127.0.0.1 (0 = any free port)', '0')
    .option('--no-tls', 'serve plain HTTP instead of HTTPS with a generated CA')
    .option('--token <token>', 'bearer token of the admin identity (random when omitted)')
    .option('--state-dir <dir>', 'where sandbox.json and kubeconfig are written', defaultStateDir())
    .option('--kubeconfig <file>', 'also write the kubeconfig to this file')
    .option('--persist <dir>', 'load/save a JSON snapshot of all objects in this directory')
    .option('--simulate-pods', 'create ready pods for Deployments/ReplicaSets/DaemonSets on ready nodes')
    .option('--nodes <names>', 'comma-separated Ready nodes to create at start', '')
    .action(async (o: { port: string; tls: boolean; token?: string; stateDir: string; kubeconfig?: string; persist?: string; simulatePods?: boolean; nodes: string }) => {
      const opts: SandboxOptions = { port: parsePort(o.port), tls: o.tls, simulatePods: o.simulatePods === true };
      if (o.token) opts.token = o.token;
      if (o.persist) opts.persistDir = resolve(o.persist);
      const nodes = o.nodes.split(',').map((s) => s.trim()).filter((s) => s !== '');
      if (nodes.length) opts.nodes = nodes;
      const sb = await startSandbox(opts);
      const dir = resolve(o.stateDir);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const state: SandboxState = { url: sb.url, token: sb.token, pid: process.pid };
      if (sb.caCert) state.caCert = sb.caCert;
      await writeFile(join(dir, 'sandbox.json'), JSON.stringify(state, null, 2), { mode: 0o600 });
      const kc = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
      if (o.kubeconfig) await sb.writeKubeconfig(resolve(o.kubeconfig));
      process.stdout.write(`sandbox serving at ${sb.url}\nkubeconfig: ${o.kubeconfig ? resolve(o.kubeconfig) : kc}\n`);
      await new Promise<void>((res) => {
        const done = (): void => {
          process.off('SIGINT', done);
          process.off('SIGTERM', done);
          res();
        };
        process.on('SIGINT', done);
        process.on('SIGTERM', done);
      });
      await sb.stop();
      process.stdout.write('sandbox stopped\n');
    });
  sandbox
    .command('kubeconfig')
    .description('Print (or write with -o) a kubeconfig for the sandbox started with "keelson sandbox start"')
    .option('--state-dir <dir>', 'state directory of the running sandbox', defaultStateDir())
    .option('-o, --output <file>', 'write to this file (mode 0600) instead of stdout')
    .option('--namespace <ns>', 'default namespace of the context')
    .action(async (o: { stateDir: string; output?: string; namespace?: string }) => {
      const s = await readState(resolve(o.stateDir));
      const kcOpts: Parameters<typeof buildKubeconfig>[0] = { server: s.url, token: s.token };
      if (s.caCert) kcOpts.caCert = s.caCert;
      if (o.namespace) kcOpts.namespace = o.namespace;
      const yaml = kubeconfigYaml(buildKubeconfig(kcOpts));
      if (o.output) {
        await mkdir(resolve(o.output, '..'), { recursive: true });
        await writeFile(resolve(o.output), yaml, { mode: 0o600 });
        process.stdout.write(`${resolve(o.output)}\n`);
      } else process.stdout.write(yaml);
    });
}
