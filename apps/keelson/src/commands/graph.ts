import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  availableUpdates,
  channelMembershipWarnings,
  channelVersionWarnings,
  compareVersionStrings,
  createGraphServer,
  createRiskRegistry,
  evaluateConditionalUpdates,
  Graph,
  readGraphFile,
  graphToDot,
  graphToMermaid,
  NoPathError,
  planPath,
  planToDot,
  planToMermaid,
  UpdateGraphClient,
  UpdateGraphError,
  type AvailableUpdates,
  type Condition,
  type UpdateGraphClientOptions,
  type ReleaseInput,
  readReleasesDir,
} from '@keelson/update-graph';
import { releasesFromPayloads, releasesFromRepositories } from './graph-releases.js';
import {
  addOutputOption,
  CliError,
  formatTable,
  outputFormat,
  printResult,
  renderStructured,
  usageError,
  warn,
  writeOut,
  type OutputFlags,
} from '../output.js';
import { parseDuration } from '../flags.js';

export { MANIFESTREF_KEY, releaseInputFromPayload } from './graph-releases.js';

interface SourceOptions {
  upstream?: string;
  graph?: string[];
  channel?: string[];
  arch?: string;
  ca?: string;
  proxy?: string;
  timeout?: string;
}

function clientOptions(o: Pick<SourceOptions, 'ca' | 'proxy' | 'timeout'>): UpdateGraphClientOptions {
  const opts: { ca?: string; proxy?: string; timeoutMs?: number } = {};
  if (o.ca !== undefined) {
    try {
      opts.ca = readFileSync(o.ca, 'utf8');
    } catch (e) {
      throw usageError(`--ca ${o.ca}: ${(e as Error).message}`);
    }
  }
  const proxy = o.proxy ?? process.env['HTTPS_PROXY'] ?? process.env['https_proxy'];
  if (proxy !== undefined && proxy !== '') opts.proxy = proxy;
  if (o.timeout !== undefined) opts.timeoutMs = parseDuration('--timeout', o.timeout);
  return opts;
}

/** `--timeout` for PromQL queries (the same duration as the update-service timeout); nothing when not given. */
function promqlTimeout(timeout: string | undefined): { timeoutMs?: number } {
  return timeout === undefined ? {} : { timeoutMs: parseDuration('--timeout', timeout) };
}

function loadGraphFile(file: string): Graph {
  try {
    // size-capped (16 MiB, like a graph fetched from an update service) before anything is read
    return readGraphFile(file);
  } catch (e) {
    // a file named on the command line that cannot be opened is a usage error, like the other commands' inputs
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string')
      throw usageError(`--graph ${file}: ${(e as Error).message}`);
    throw new CliError(`--graph ${file}: ${(e as Error).message}`);
  }
}

function wrap(e: unknown): never {
  if (e instanceof CliError) throw e;
  if (e instanceof UpdateGraphError) throw new CliError(e.hint ? `${e.message}\nhint: ${e.hint}` : e.message);
  throw e;
}

/** Graphs from --graph files, or one fetched graph per --channel from --upstream. */
async function loadGraphs(o: SourceOptions, version: string): Promise<Graph[]> {
  if (o.graph && o.graph.length > 0) {
    if (o.upstream !== undefined) throw usageError('use either --graph or --upstream, not both');
    return o.graph.map(loadGraphFile);
  }
  if (o.upstream === undefined)
    throw usageError('a graph source is required: --graph FILE or --upstream URL --channel C');
  if (!o.channel || o.channel.length === 0) throw usageError('--upstream needs --channel');
  const client = new UpdateGraphClient(clientOptions(o));
  try {
    const out: Graph[] = [];
    for (const c of o.channel)
      out.push((await client.fetchGraph({ upstream: o.upstream, channel: c, version, arch: o.arch ?? 'amd64' })).graph);
    return out;
  } catch (e) {
    return wrap(e);
  } finally {
    await client.close();
  }
}

const table = (rows: string[][]): string => formatTable(rows, { indent: '  ', gap: '   ' });

function formatUpdates(
  source: string,
  channel: string,
  r: AvailableUpdates,
  recommended: Record<string, Condition | undefined>,
  wide = false,
): string {
  const lines: string[] = [source, `Channel: ${channel}`, ''];
  const updates = [...r.updates].sort((a, b) => compareVersionStrings(b.version, a.version));
  if (updates.length === 0 && r.conditionalUpdates.length === 0) {
    lines.push(
      'No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.',
    );
    return `${lines.join('\n')}\n`;
  }
  if (updates.length > 0) {
    const rows = wide
      ? [
          ['VERSION', 'IMAGE', 'CHANNELS', 'URL'],
          ...updates.map((u) => [u.version, u.image, (u.channels ?? []).join(','), u.url ?? '']),
        ]
      : [['VERSION', 'IMAGE'], ...updates.map((u) => [u.version, u.image])];
    lines.push('Recommended updates:', '', table(rows), '');
  } else {
    lines.push('No recommended updates.', '');
  }
  const cond = [...r.conditionalUpdates].sort((a, b) => compareVersionStrings(b.release.version, a.release.version));
  if (cond.length > 0) {
    lines.push('Updates with known issues:', '');
    for (const c of cond) {
      const rec = recommended[c.release.version];
      lines.push(`  Version: ${c.release.version}`, `  Image: ${c.release.image}`);
      if (rec)
        lines.push(
          `  Recommended: ${rec.status}`,
          `  Reason: ${rec.reason}`,
          `  Message: ${rec.message.replace(/\n/g, '\n    ')}`,
        );
      else
        lines.push(`  Reason: ${c.risks.length === 1 ? (c.risks[0]?.name ?? '') : 'MultipleReasons'} (not evaluated)`);
      for (const risk of c.risks) lines.push(`  Risk: ${risk.name} ${risk.url}`, `    ${risk.message}`);
      lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

const collect = (v: string, prev: string[] | undefined): string[] => [
  ...(prev ?? []),
  ...v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== ''),
];
const repeat = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** Registers `keelson graph …`: updates, path, draw, serve (see @keelson/update-graph README). */
export function registerGraphCommands(program: Command): void {
  const graph = program
    .command('graph')
    .description('Update graphs: available updates, upgrade paths, drawing, and a local update service');

  registerUpdates(graph);
  registerPath(graph);
  registerDraw(graph);
  registerServe(graph);
}

/** The flags of `keelson graph updates`. */
type UpdatesFlags = Omit<SourceOptions, 'channel'> &
  OutputFlags & {
    channel: string;
    version: string;
    id?: string;
    prometheus?: string;
    tokenFile?: string;
    prometheusCa?: string;
    acceptRisks?: string[];
  };

/** `keelson graph updates`. */
function registerUpdates(graph: Command): void {
  const updates = graph
    .command('updates')
    .description('List available updates for a version (like `oc adm upgrade`)')
    .requiredOption('--channel <channel>', 'update channel, e.g. stable-4.18')
    .requiredOption('--version <version>', 'current cluster version')
    .option('--upstream <url>', 'update service URL (…/graph)')
    .option('--graph <file>', 'read the graph from a JSON file instead', repeat)
    .option('--arch <arch>', 'architecture (amd64, arm64, …, Multi)', 'amd64')
    .option('--id <uuid>', 'cluster ID sent as id=')
    .option('--ca <file>', 'PEM CA bundle for the update service')
    .option('--proxy <url>', 'HTTP proxy (default: $HTTPS_PROXY)')
    .option(
      '--timeout <duration>',
      'deadline of each update-service request, e.g. 30s or 2m (default 60s; connect 30s)',
    )
    .option('--prometheus <url>', 'evaluate PromQL risks against this Prometheus/Thanos URL')
    .option('--token-file <file>', 'bearer token file for --prometheus')
    .option('--prometheus-ca <file>', 'CA bundle for --prometheus')
    .option('--accept-risks <names>', 'risk names accepted by the admin (comma list)', collect);
  addOutputOption(updates, { formats: ['table', 'wide', 'json', 'yaml'], aliases: ['format'] }).action(
    (o: UpdatesFlags) => showUpdates(o, updates),
  );
}

/** `keelson graph updates`'s action: the updates of the graph file or update service, risks evaluated by --prometheus. */
async function showUpdates(o: UpdatesFlags, cmd: Command): Promise<void> {
  const format = outputFormat(o, cmd);
  if (o.timeout !== undefined) parseDuration('--timeout', o.timeout);
  const channel = o.channel;
  for (const w of channelVersionWarnings(channel, o.version)) warn(w);
  const { result, source } = await loadUpdates(o, channel);
  const recommended: Record<string, Condition | undefined> = {};
  if (o.prometheus !== undefined && result.conditionalUpdates.length > 0) {
    const reg = createRiskRegistry(
      {
        url: o.prometheus,
        ...(o.tokenFile !== undefined ? { tokenFile: o.tokenFile } : {}),
        ...(o.prometheusCa !== undefined ? { ca: readFileSync(o.prometheusCa, 'utf8') } : {}),
        // --timeout bounds each PromQL query too (default: the CVO's 5 minutes)
        ...promqlTimeout(o.timeout),
      },
      { minBetweenMatchesMs: -1 },
    );
    const ev = await evaluateConditionalUpdates(result.conditionalUpdates, {
      registry: reg,
      updates: result.updates,
      acceptRisks: o.acceptRisks ?? [],
    });
    for (const c of ev.conditionalUpdates) recommended[c.release.version] = c.conditions[0];
  }
  await printResult(format, {
    data: () => ({
      current: result.current,
      updates: result.updates,
      conditionalUpdates: result.conditionalUpdates.map((c) => ({
        ...c,
        ...(recommended[c.release.version] ? { conditions: [recommended[c.release.version]] } : {}),
      })),
    }),
    table: () => formatUpdates(source, channel, result, recommended),
    wide: () => formatUpdates(source, channel, result, recommended, true),
  });
}

/** `keelson graph path`. */
function registerPath(graph: Command): void {
  const path = graph
    .command('path <from> <to>')
    .description('Plan the shortest safe update path across minors')
    .option('--graph <file>', 'graph JSON file (repeat for several channels)', repeat)
    .option('--upstream <url>', 'update service URL')
    .option('--channel <channel>', 'channel(s) to fetch from --upstream (repeat or comma list)', collect)
    .option('--arch <arch>', 'architecture', 'amd64')
    .option('--ca <file>', 'PEM CA bundle for the update service')
    .option('--proxy <url>', 'HTTP proxy')
    .option(
      '--timeout <duration>',
      'deadline of each update-service request, e.g. 30s or 2m (default 60s; connect 30s)',
    )
    .option('--accept-risks <names>', 'conditional-update risks you accept (comma list)', collect);
  // `text` is the former name of the table
  addOutputOption(path, {
    formats: ['table', 'wide', 'json', 'yaml', 'dot', 'mermaid', 'text'],
    aliases: ['format'],
  }).action(async (from: string, to: string, o: SourceOptions & OutputFlags & { acceptRisks?: string[] }) => {
    const format = outputFormat(o, path);
    const graphs = await loadGraphs(o, from);
    let plan;
    try {
      const [only, ...more] = graphs;
      plan = planPath(only !== undefined && more.length === 0 ? only : graphs, from, to, {
        acceptRisks: o.acceptRisks ?? [],
      });
    } catch (e) {
      if (e instanceof NoPathError) throw new CliError(e.message);
      return wrap(e);
    }
    const found = plan;
    if (format === 'dot') return writeOut(planToDot(found));
    if (format === 'mermaid') return writeOut(planToMermaid(found));
    const text = (): string => {
      const lines = [
        `Update path ${from} → ${to}: ${found.hops.length} hop(s)${found.conditionalHops ? `, ${found.conditionalHops} conditional` : ''}`,
      ];
      found.hops.forEach((h, i) => {
        lines.push(`  ${i + 1}. ${h.explanation}`);
        lines.push(`     image: ${h.image}`);
      });
      return `${lines.join('\n')}\n`;
    };
    return printResult(format === 'text' ? 'table' : format, { data: () => found, table: text });
  });
}

/** `keelson graph draw`. */
function registerDraw(graph: Command): void {
  const draw = graph
    .command('draw')
    .description('Draw a graph as DOT, Mermaid or JSON')
    .option('--graph <file>', 'graph JSON file', repeat)
    .option('--upstream <url>', 'update service URL')
    .option('--channel <channel>', 'channel to fetch', collect)
    .option('--version <version>', 'version sent to the update service', '0.0.0')
    .option('--arch <arch>', 'architecture', 'amd64')
    .option('--ca <file>', 'PEM CA bundle')
    .option('--proxy <url>', 'HTTP proxy')
    .option('--only <prefixes>', 'only versions starting with these prefixes (comma list, e.g. 4.7.)', collect);
  addOutputOption(draw, { formats: ['dot', 'mermaid', 'json', 'yaml'], aliases: ['format'] }).action(
    async (o: SourceOptions & OutputFlags & { version: string; only?: string[] }) => {
      const format = outputFormat(o, draw);
      const [g] = await loadGraphs(o, o.version);
      if (g === undefined) throw usageError('no graph loaded');
      const opts = o.only ? { versionPrefixes: o.only } : {};
      if (format === 'dot') await writeOut(graphToDot(g, opts));
      else if (format === 'mermaid') await writeOut(graphToMermaid(g, opts));
      else await writeOut(await renderStructured(g.toDocument(), format === 'yaml' ? 'yaml' : 'json'));
    },
  );
}

/** A progress line on a TTY's stderr while a repository is scraped; nothing otherwise. */
function scrapeProgress(): ((repository: string, done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return (repository, done, total) => {
    process.stderr.write(
      `\rscraping ${repository}: ${String(done)}/${String(total)} images${done === total ? '\n' : ''}`,
    );
  };
}

/** `keelson graph serve`. */
function registerServe(graph: Command): void {
  graph
    .command('serve')
    .description(
      'Serve an update graph built from release metadata and cincinnati-graph-data (OpenShift Update Service API)',
    )
    .option('--releases <dir>', 'directory of release-metadata JSON files (with "payload")')
    .option(
      '--payload <source>',
      'release payload (directory, OCI layout, archive or docker://image), read like graph-builder scrapes release images (repeatable)',
      repeat,
    )
    .option(
      '--repository <host/repo>',
      "registry repository whose every tag is a release image, scraped like graph-builder's release-scrape-dockerv2 (repeatable)",
      repeat,
    )
    .option('--graph-data <dir>', 'cincinnati-graph-data directory')
    .option('--port <port>', 'port (0 = any free port)', '8080')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--prefix <path>', 'path prefix, e.g. /api/upgrades_info', '')
    .action(
      async (o: {
        releases?: string;
        payload?: string[];
        repository?: string[];
        graphData?: string;
        port: string;
        host: string;
        prefix: string;
      }) => {
        const port = Number(o.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw usageError(`--port must be 0-65535, got ${o.port}`);
        if (o.releases === undefined && (o.payload ?? []).length === 0 && (o.repository ?? []).length === 0)
          throw usageError('a release source is required: --releases DIR, --payload SOURCE and/or --repository REPO');
        const warnings: string[] = [];
        let srv;
        try {
          const releases: ReleaseInput[] = o.releases !== undefined ? readReleasesDir(o.releases) : [];
          const fromPayloads = [
            ...(await releasesFromPayloads(o.payload ?? [], warnings)),
            ...(await releasesFromRepositories(o.repository ?? [], warnings, scrapeProgress())),
          ];
          const seen = new Map(releases.map((r) => [r.version, r.payload]));
          for (const r of fromPayloads) {
            const other = seen.get(r.version);
            if (other !== undefined)
              throw new CliError(
                `release ${r.version} appears twice (${other} and ${r.payload}); give each version once`,
              );
            seen.set(r.version, r.payload);
            releases.push(r);
          }
          srv = createGraphServer({
            releases,
            ...(o.graphData !== undefined ? { graphData: o.graphData } : {}),
            prefix: o.prefix,
          });
        } catch (e) {
          return wrap(e);
        }
        for (const w of [...warnings, ...srv.warnings]) warn(w);
        const url = await srv.listen(port, o.host);
        process.stdout.write(`serving ${srv.graph.nodes.length} releases at ${url}${o.prefix}/v1/graph\n`);
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            void srv.close().then(resolve);
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
      },
    );
}

/** The available updates from `--graph FILE` or `--upstream URL`, and the source line naming it. */
async function loadUpdates(o: UpdatesFlags, channel: string): Promise<{ result: AvailableUpdates; source: string }> {
  try {
    const file = o.graph?.[0];
    if (file !== undefined) {
      if (o.upstream !== undefined) throw usageError('use either --graph or --upstream, not both');
      const g = loadGraphFile(file);
      for (const w of channelMembershipWarnings(g, channel, o.version)) warn(w);
      return {
        result: availableUpdates(g, o.version, { channel, currentArch: o.arch ?? 'amd64' }),
        source: `Graph: ${file}`,
      };
    }
    if (o.upstream === undefined) throw usageError('a graph source is required: --upstream URL or --graph FILE');
    const client = new UpdateGraphClient(clientOptions(o));
    try {
      const result = await client.fetch({
        upstream: o.upstream,
        channel,
        version: o.version,
        arch: o.arch ?? 'amd64',
        ...(o.id !== undefined ? { id: o.id } : {}),
      });
      return { result, source: `Upstream: ${o.upstream}` };
    } finally {
      await client.close();
    }
  } catch (e) {
    return wrap(e);
  }
}
