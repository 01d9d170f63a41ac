import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildKubeconfig, kubeconfigYaml, startSandbox, type SandboxOptions } from '@keelson/kube-sandbox';
import type { Command } from 'commander';
import {
  addOutputOption,
  CliError,
  outputFormat,
  renderStructured,
  usageError,
  writeOut,
  type OutputFlags,
} from '../output.js';

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
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw usageError(`--port must be an integer between 0 and 65535, got "${v}"`);
  return n;
}

async function readState(dir: string): Promise<SandboxState> {
  const file = join(dir, 'sandbox.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(
      `no running sandbox recorded in ${file}; start one with "keelson sandbox start" (or pass --state-dir)`,
    );
  }
  try {
    const s = JSON.parse(text) as SandboxState;
    if (typeof s.url !== 'string' || typeof s.token !== 'string') throw new Error('missing url/token');
    return s;
  } catch (e) {
    throw new CliError(
      `${file} is not a sandbox state file (${(e as Error).message}); delete it and start the sandbox again`,
    );
  }
}

/** Whether a process with this pid exists (signal 0 checks without signalling). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether something accepts TCP connections at the URL's host and port (2 s deadline). */
function listening(url: string): Promise<boolean> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname, port, timeout: 2000 });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.once('connect', () => {
      done(true);
    });
    s.once('timeout', () => {
      done(false);
    });
    s.once('error', () => {
      done(false);
    });
  });
}

/** Refuses a recorded sandbox that no longer runs (killed, crashed, machine restarted). */
async function ensureRunning(s: SandboxState, file: string): Promise<void> {
  const why = !processAlive(s.pid)
    ? `its process ${s.pid} has exited`
    : !(await listening(s.url))
      ? `nothing listens at ${s.url}`
      : undefined;
  if (why !== undefined)
    throw new CliError(
      `the sandbox recorded in ${file} is not running (${why}); start it again with "keelson sandbox start"`,
    );
}

/** Registers `keelson sandbox start` and `keelson sandbox kubeconfig`. */
export function registerSandboxCommands(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('An embedded Kubernetes API server for tests and rehearsals (kubectl-compatible)');
  sandbox
    .command('start')
    .description('Start the sandbox API server on 127.0.0.1 and serve until interrupted (SIGINT/SIGTERM)')
    .option('--port <port>', 'TCP port on 127.0.0.1 (0 = any free port)', '0')
    .option('--no-tls', 'serve plain HTTP instead of HTTPS with a generated CA')
    .option('--token <token>', 'bearer token of the admin identity (random when omitted)')
    .option('--state-dir <dir>', 'where sandbox.json and kubeconfig are written', defaultStateDir())
    .option('--kubeconfig <file>', 'also write the kubeconfig to this file')
    .option(
      '--persist <dir>',
      'keep the objects durably in this directory (write-ahead log + snapshot; acknowledged writes survive kill -9)',
    )
    .option('--simulate-pods', 'create ready pods for Deployments/ReplicaSets/DaemonSets on ready nodes')
    .option('--nodes <names>', 'comma-separated Ready nodes to create at start', '')
    .action(
      async (o: {
        port: string;
        tls: boolean;
        token?: string;
        stateDir: string;
        kubeconfig?: string;
        persist?: string;
        simulatePods?: boolean;
        nodes: string;
      }) => {
        const opts: SandboxOptions = { port: parsePort(o.port), tls: o.tls, simulatePods: o.simulatePods === true };
        if (o.token) opts.token = o.token;
        if (o.persist) opts.persistDir = resolve(o.persist);
        const nodes = o.nodes
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        if (nodes.length) opts.nodes = nodes;
        const sb = await startSandbox(opts);
        const dir = resolve(o.stateDir);
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const state: SandboxState = { url: sb.url, token: sb.token, pid: process.pid };
        if (sb.caCert) state.caCert = sb.caCert;
        await writeFile(join(dir, 'sandbox.json'), JSON.stringify(state, null, 2), { mode: 0o600 });
        const kc = await sb.writeKubeconfig(join(dir, 'kubeconfig'));
        if (o.kubeconfig) await sb.writeKubeconfig(resolve(o.kubeconfig));
        process.stdout.write(
          `sandbox serving at ${sb.url}\nkubeconfig: ${o.kubeconfig ? resolve(o.kubeconfig) : kc}\n`,
        );
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
        // the state file stands for a running server: `sandbox kubeconfig` then says none is running
        await rm(join(dir, 'sandbox.json'), { force: true });
        process.stdout.write('sandbox stopped\n');
      },
    );
  const kubeconfig = sandbox
    .command('kubeconfig')
    .description('Print (or write with --to) a kubeconfig for the running sandbox started with "keelson sandbox start"')
    .option('--state-dir <dir>', 'state directory of the running sandbox', defaultStateDir())
    .option('--to <file>', 'write to this file (mode 0600) instead of stdout')
    .option('--namespace <ns>', 'default namespace of the context');
  addOutputOption(kubeconfig, { formats: ['yaml', 'json'] }).action(
    async (o: OutputFlags & { stateDir: string; to?: string; namespace?: string }) => {
      const format = outputFormat(o, kubeconfig);
      const dir = resolve(o.stateDir);
      const s = await readState(dir);
      await ensureRunning(s, join(dir, 'sandbox.json'));
      const kcOpts: Parameters<typeof buildKubeconfig>[0] = { server: s.url, token: s.token };
      if (s.caCert) kcOpts.caCert = s.caCert;
      if (o.namespace) kcOpts.namespace = o.namespace;
      const kc = buildKubeconfig(kcOpts);
      const text = format === 'json' ? await renderStructured(kc, 'json') : kubeconfigYaml(kc);
      if (o.to) {
        await mkdir(resolve(o.to, '..'), { recursive: true });
        await writeFile(resolve(o.to), text, { mode: 0o600 });
        await writeOut(`${resolve(o.to)}\n`);
      } else await writeOut(text);
    },
  );
}
