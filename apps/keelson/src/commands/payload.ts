import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isNotFound } from '@keelson/kube';
import {
  checkClusterSettings,
  clusterCapabilities,
  diffPayloads,
  filterManifests,
  openPayload,
  PayloadError,
  PayloadIntegrityError,
  verificationConfigFromManifests,
  verifyRelease,
  writePayloadFiles,
  componentVersions,
  DEFAULT_CLUSTER_PROFILE,
  type ClusterFacts,
  type FeatureGateObject,
  type Keyring,
  type OpenOptions,
  type ReleasePayload,
  type SignatureStore,
} from '@keelson/release-payload';
import {
  addOutputOption,
  CliError,
  formatTable,
  outputFormat,
  printResult,
  usageError,
  warn,
  type OutputFlags,
} from '../output.js';
import { parseDuration } from '../flags.js';
import { liveManifestFacts } from '../plan/cluster-facts.js';
import { clientFromKubeconfig, getClusterVersion } from '../upgrade/cluster.js';

interface SourceOpts {
  arch?: string;
  authFile?: string;
  cacheDir?: string;
  plainHttp?: boolean;
  caFile?: string;
  certDir?: string;
  tlsVerify?: string | boolean;
  insecure?: boolean;
  releaseImage?: string;
  progress?: boolean;
  timeout?: string;
}

function addSourceOptions(c: Command): Command {
  return c
    .option('--arch <arch>', 'architecture to pick from a manifest list / index (default: this machine)')
    .option('--auth-file <file>', 'docker config.json / pull secret with registry credentials')
    .option('--cache-dir <dir>', 'content-addressed blob cache (default ~/.cache/keelson/blobs)')
    .option(
      '--plain-http',
      'talk plain HTTP to the registry (automatic for localhost / 127.0.0.1 registries without TLS)',
    )
    .option('--ca-file <file>', 'PEM bundle of extra CAs trusted for the registry (e.g. a mirror with a private CA)')
    .option(
      '--cert-dir <dir>',
      'registry certificate directory like skopeo: *.crt CAs, *.cert/*.key client pair (default /etc/containers/certs.d/<host:port>)',
    )
    .option(
      '--tls-verify [bool]',
      'verify the registry TLS certificate (default true); --tls-verify=false allows unverified TLS and plain HTTP',
    )
    .option('--insecure', 'same as --tls-verify=false')
    .option(
      '--release-image <pullspec>',
      'release image used when rendering the CVO manifests/ templates (default: the image reference; "" for a directory, as upstream)',
    )
    .option('--progress', 'always report download progress on stderr (default: only on a terminal)')
    .option(
      '--timeout <duration>',
      'registry connect and idle deadline, e.g. 30s or 2m (default 30s, like oc and skopeo)',
    );
}

/**
 * Download progress on stderr: on a terminal one line rewritten in place (like skopeo); with --progress and no
 * terminal, a line every 250 ms (logs).
 */
function progressReporter(force: boolean | undefined): ((done: number, total: number) => void) | undefined {
  const tty = process.stderr.isTTY;
  if (!force && !tty) return undefined;
  let last = 0;
  let lastDone = -1;
  return (done, total) => {
    const now = Date.now();
    if (done === lastDone || (now - last < 250 && done < total)) return;
    last = now;
    lastDone = done;
    const mb = (n: number) => (n / 1048576).toFixed(1);
    const pct = total > 0 ? ` (${Math.min(100, Math.floor((done / total) * 100))}%)` : '';
    const line = `downloaded ${mb(done)} / ${mb(total)} MiB${pct}`;
    if (tty) process.stderr.write(`\r\x1b[K${line}${done >= total ? '\n' : ''}`);
    else process.stderr.write(`${line}\n`);
  };
}

async function load(source: string, o: SourceOpts): Promise<ReleasePayload> {
  const opts: OpenOptions = {};
  if (o.arch) opts.platform = { architecture: o.arch };
  if (o.authFile) opts.authFile = o.authFile;
  if (o.cacheDir) opts.cacheDir = o.cacheDir;
  if (o.plainHttp) opts.plainHttp = true;
  if (o.caFile) opts.caFile = o.caFile;
  if (o.certDir) opts.certDir = o.certDir;
  if (o.tlsVerify !== undefined && o.tlsVerify !== true) {
    const v = String(o.tlsVerify).toLowerCase();
    if (v !== 'true' && v !== 'false')
      throw new CliError(`--tls-verify: expected true or false, got ${JSON.stringify(o.tlsVerify)}`, 2);
    if (v === 'false') opts.tlsVerify = false;
  }
  if (o.insecure) opts.tlsVerify = false;
  if (o.releaseImage !== undefined) opts.releaseImage = o.releaseImage;
  if (o.timeout !== undefined) opts.connectTimeoutMs = opts.idleTimeoutMs = parseDuration('--timeout', o.timeout);
  opts.onRetry = (r) => {
    warn(`retrying ${r.url} in ${r.delayMs / 1000} s (attempt ${r.attempt} of ${r.attempts}) after: ${r.reason}`);
  };
  const p = progressReporter(o.progress);
  if (p) opts.onProgress = p;
  try {
    const payload = await openPayload(source, opts);
    for (const w of payload.warnings) warn(w);
    return payload;
  } catch (e) {
    if (e instanceof PayloadIntegrityError) throw new CliError(e.message, 1);
    if (e instanceof PayloadError) throw new CliError(`${e.code}: ${e.message}`, 1);
    throw e;
  }
}

function list(v: string | undefined): string[] | undefined {
  return v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

const pad = (rows: string[][]): string => formatTable(rows);
const READ_FORMATS = { formats: ['table', 'wide', 'json', 'yaml'], aliases: ['json'] } as const;

interface FilterOpts {
  profile?: string;
  capabilities?: string;
  baselineCapabilitySet?: string;
  featureSet?: string;
  featureGates?: string;
  exclude?: string;
  explain?: boolean;
  kubeconfig?: string | boolean;
}

/**
 * `--kubeconfig`: what the cluster's CVO filters with (FeatureGate `cluster`, ClusterVersion capabilities and
 * overrides); the flags given on the command line replace the cluster's values.
 */
async function readClusterFacts(kubeconfig: string | boolean | undefined): Promise<ClusterFacts | undefined> {
  if (kubeconfig === undefined || kubeconfig === false) return undefined;
  try {
    const client = await clientFromKubeconfig(typeof kubeconfig === 'string' ? kubeconfig : undefined);
    const [cv, fg] = await Promise.all([
      getClusterVersion(client),
      client
        .request<FeatureGateObject>('GET', '/apis/config.openshift.io/v1/featuregates/cluster')
        .catch((e: unknown) => {
          if (isNotFound(e)) return undefined;
          throw e;
        }),
    ]);
    return liveManifestFacts(cv, fg);
  } catch (e) {
    throw new CliError(`--kubeconfig: cannot read the cluster: ${(e as Error).message}`, 1);
  }
}

function facts(o: FilterOpts, live?: ClusterFacts): ClusterFacts {
  const settings = {
    capabilities: list(o.capabilities) ?? [],
    ...(o.featureSet !== undefined ? { featureSet: o.featureSet } : {}),
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
  };
  for (const w of checkClusterSettings(settings)) warn(w.message);
  const gates = list(o.featureGates) ?? [...(live?.enabledFeatureGates ?? [])];
  const spec: Parameters<typeof clusterCapabilities>[0] = { enabledFeatureGates: gates };
  if (o.capabilities !== undefined) {
    spec.baselineCapabilitySet = o.baselineCapabilitySet ?? 'None';
    spec.additionalEnabledCapabilities = list(o.capabilities) ?? [];
  } else if (o.baselineCapabilitySet !== undefined) spec.baselineCapabilitySet = o.baselineCapabilitySet;
  let capabilities;
  try {
    capabilities =
      o.capabilities === undefined && o.baselineCapabilitySet === undefined && live?.capabilities !== undefined
        ? live.capabilities
        : clusterCapabilities(spec);
  } catch (e) {
    throw new CliError(`--baseline-capability-set: ${(e as Error).message}`, 2);
  }
  const f: ClusterFacts = {
    profile: o.profile ?? DEFAULT_CLUSTER_PROFILE,
    featureSet: o.featureSet === 'Default' ? '' : (o.featureSet ?? live?.featureSet ?? ''),
    enabledFeatureGates: gates,
    capabilities,
    ...(live?.overrides !== undefined ? { overrides: live.overrides } : {}),
  };
  if (o.exclude !== undefined) f.excludeIdentifier = o.exclude;
  return f;
}

/** Registers `keelson payload info|extract|manifests|diff|verify`. */
export function registerPayloadCommands(payload: Command): void {
  registerInfo(payload);
  addSourceOptions(
    payload
      .command('extract <source>')
      .description('Extract manifests/ and release-manifests/ of a payload into a directory')
      .requiredOption('--to <dir>', 'destination directory')
      .option('--strict', 'refuse (exit 1, nothing written) when a symbolic link of the payload leads to no file'),
  ).action(async (source: string, o: SourceOpts & { to: string; strict?: boolean }) => {
    const p = await load(source, o); // prints a warning per skipped link
    const skipped = p.files.skippedLinks?.length ?? 0;
    if (skipped > 0 && o.strict === true) {
      throw new CliError(
        `refusing to extract: ${skipped} symbolic link${skipped === 1 ? '' : 's'} of the payload lead${skipped === 1 ? 's' : ''} to no file (--strict); nothing was written`,
        1,
      );
    }
    const n = await writePayloadFiles(p.files, o.to);
    const note = skipped > 0 ? ` (skipped ${skipped} symbolic link${skipped === 1 ? '' : 's'})` : '';
    process.stdout.write(`extracted ${n} files of ${p.metadata.version} to ${o.to}${note}\n`);
    if (skipped > 0)
      warn(
        `skipped ${skipped} symbolic link${skipped === 1 ? ' that leads' : 's that lead'} to no file; use --strict to refuse`,
      );
  });
  registerManifests(payload);
  registerDiff(payload);
  registerVerify(payload);
}

function registerInfo(payload: Command): void {
  const cmd = payload
    .command('info <source>')
    .description(
      'Show a release payload in the layout of oc adm release info: name, digest, created, OS/arch, release metadata, component versions, images',
    )
    .option(
      '--pullspecs',
      'list the images with their pull specs instead of their digests (oc adm release info --pullspecs)',
    )
    .option(
      '--commits',
      'list the images with the source repository and commit of their image-references annotations (oc adm release info --commits)',
    );
  addOutputOption(addSourceOptions(cmd), READ_FORMATS).action(
    async (source: string, o: SourceOpts & OutputFlags & { pullspecs?: boolean; commits?: boolean }) => {
      const format = outputFormat(o, cmd);
      if (o.pullspecs === true && o.commits === true) throw new CliError('--pullspecs and --commits are exclusive', 2);
      const p = await load(source, o);
      const included = filterManifests(p, facts({}));
      const versions = componentVersions(p);
      const images = o.commits === true ? 'commits' : o.pullspecs === true ? 'pullspecs' : 'digests';
      await printResult(format, {
        data: () => ({
          name: p.metadata.version,
          digest: p.image?.digest ?? null,
          created: p.image?.created ?? p.imageReferences.creationTimestamp ?? null,
          os: p.image?.os ?? null,
          architecture: p.metadata.architecture ?? p.image?.architecture ?? null,
          releaseImage: p.releaseImage,
          manifests: p.manifests.length,
          includedManifests: included.included.length,
          versionHash: included.versionHash,
          metadata: {
            previous: sortSemanticVersions(p.metadata.previous),
            next: p.metadata.next,
            url: p.metadata.url ?? null,
            channels: p.metadata.channels,
            metadata: p.metadata.metadata,
          },
          componentVersions: versions,
          images: p.images,
        }),
        table: () => infoTable(p, included, versions, false, images),
        wide: () => infoTable(p, included, versions, true, images),
      });
    },
  );
}

/** oc's text/tabwriter with padding 1: every column but the last padded to its widest cell plus one space. */
function tabwrite(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 1)))
      .join('')
      .trimEnd(),
  );
}

/** Versions in SemVer order, or as given when one is not SemVer (oc's sortSemanticVersions). */
export function sortSemanticVersions(versions: readonly string[]): string[] {
  const re = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
  const parsed = versions.map((v) => re.exec(v));
  if (parsed.some((m) => m === null)) return [...versions];
  const cmpPre = (a: string | undefined, b: string | undefined): number => {
    if (a === b) return 0;
    if (a === undefined) return 1;
    if (b === undefined) return -1;
    const x = a.split('.');
    const y = b.split('.');
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
      const p = x[i];
      const q = y[i];
      if (p === undefined) return -1;
      if (q === undefined) return 1;
      const np = /^\d+$/.test(p);
      const nq = /^\d+$/.test(q);
      if (np && nq && Number(p) !== Number(q)) return Number(p) - Number(q);
      if (np !== nq) return np ? -1 : 1;
      if (p !== q) return p < q ? -1 : 1;
    }
    return 0;
  };
  return versions
    .map((v, i) => ({ v, m: parsed[i] as RegExpExecArray }))
    .sort(
      (a, b) =>
        Number(a.m[1]) - Number(b.m[1]) ||
        Number(a.m[2]) - Number(b.m[2]) ||
        Number(a.m[3]) - Number(b.m[3]) ||
        cmpPre(a.m[4], b.m[4]),
    )
    .map((x) => x.v);
}

/** `registry/repo@digest` of the image the payload was read from (oc's "Pull From"). */
function pullFrom(image: NonNullable<ReleasePayload['image']>): string {
  const ref = image.reference.replace(/^docker:\/\//, '').replace(/@sha256:[0-9a-f]{64}$/, '');
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return `${colon > slash ? ref.slice(0, colon) : ref}@${image.digest}`;
}

/** The images section: NAME DIGEST (default), NAME PULL SPEC, or NAME REPO COMMIT, in image-references order. */
function imageRows(p: ReleasePayload, mode: 'digests' | 'pullspecs' | 'commits'): string[] {
  const tags = p.imageReferences.tags.filter((t) => t.fromKind === 'DockerImage');
  if (mode === 'commits')
    return tabwrite([
      ['  NAME', 'REPO', 'COMMIT'],
      ...tags.map((t) => [
        `  ${t.name}`,
        t.annotations['io.openshift.build.source-location'] ?? '',
        t.annotations['io.openshift.build.commit.id'] ?? '',
      ]),
    ]);
  if (mode === 'pullspecs') return tabwrite([['  NAME', 'PULL SPEC'], ...tags.map((t) => [`  ${t.name}`, t.pullSpec])]);
  return tabwrite([
    ['  NAME', 'DIGEST'],
    ...tags.map((t) => [`  ${t.name}`, /@(sha256:[0-9a-f]{64})$/.exec(t.pullSpec)?.[1] ?? t.pullSpec]),
  ]);
}

/** `oc adm release info`'s layout (pkg/cli/admin/release/info.go, describeReleaseInfo); `-o wide` adds Keelson's figures. */
function infoTable(
  p: ReleasePayload,
  included: ReturnType<typeof filterManifests>,
  versions: Record<string, string>,
  wide: boolean,
  images: 'digests' | 'pullspecs' | 'commits',
): string {
  const head: string[][] = [['Name:', p.metadata.version]];
  if (p.image) head.push(['Digest:', p.image.digest]);
  const created = p.image?.created ?? p.imageReferences.creationTimestamp;
  if (created) head.push(['Created:', new Date(created).toISOString().replace(/\.\d+Z$/, 'Z')]);
  if (p.image?.os || p.image?.architecture || p.metadata.architecture)
    head.push([
      'OS/Arch:',
      `${p.image?.os ?? 'linux'}/${p.metadata.architecture === 'Multi' ? 'multi' : (p.image?.architecture ?? 'unknown')}`,
    ]);
  head.push(['Manifests:', String(p.manifests.length)]);
  if (wide)
    head.push(
      ['Included:', `${included.included.length} for profile ${DEFAULT_CLUSTER_PROFILE}, default feature set`],
      ['Version hash:', included.versionHash],
      ['Release image:', p.releaseImage === '' ? '""' : p.releaseImage],
    );
  const lines = tabwrite(head);
  if (p.image) lines.push('', `Pull From: ${pullFrom(p.image)}`);
  lines.push(
    '',
    'Release Metadata:',
    ...tabwrite([
      ['  Version:', p.metadata.version],
      ['  Upgrades:', p.metadata.previous.length > 0 ? sortSemanticVersions(p.metadata.previous).join(', ') : '<none>'],
    ]),
  );
  const meta = Object.entries(p.metadata.metadata)
    .filter(
      ([, v]) =>
        v !== '' &&
        !(Array.isArray(v) && v.length === 0) &&
        !(typeof v === 'object' && v !== null && Object.keys(v).length === 0),
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (meta.length > 0)
    lines.push(
      '  Metadata:',
      ...tabwrite(meta.map(([k, v]) => [`    ${k}:`, typeof v === 'string' ? v : JSON.stringify(v)])),
    );
  const comps = Object.entries(versions).sort(([a], [b]) => a.localeCompare(b));
  if (comps.length > 0) lines.push('', 'Component Versions:', ...tabwrite(comps.map(([k, v]) => [`  ${k}`, v])));
  lines.push('', 'Images:', ...imageRows(p, images));
  return `${lines.join('\n')}\n\n`;
}

function registerManifests(payload: Command): void {
  const cmd = payload
    .command('manifests <source>')
    .description('List the manifests a cluster would apply; --explain also lists excluded ones and why')
    .option('--profile <profile>', 'cluster profile', DEFAULT_CLUSTER_PROFILE)
    .option(
      '--capabilities <list>',
      'enabled capabilities (comma list; baseline None unless --baseline-capability-set)',
    )
    .option('--baseline-capability-set <set>', 'baseline capability set (None, v4.11 ... v4.18, vCurrent)')
    .option(
      '--feature-set <set>',
      'cluster feature set (Default, TechPreviewNoUpgrade, DevPreviewNoUpgrade, CustomNoUpgrade, OKD)',
    )
    .option('--feature-gates <list>', 'enabled feature gates (comma list)')
    .option('--exclude <identifier>', 'exclude identifier (exclude.release.openshift.io/<identifier>)')
    .option('--explain', 'also list excluded manifests with the reason')
    .option(
      '--kubeconfig [file]',
      "filter as this cluster's CVO does: feature set and gates of FeatureGate cluster, capabilities and overrides of ClusterVersion version (the flags above replace them; file: KUBECONFIG or ~/.kube/config when omitted)",
    );
  addOutputOption(addSourceOptions(cmd), READ_FORMATS).action(
    async (source: string, o: SourceOpts & FilterOpts & OutputFlags) => {
      const format = outputFormat(o, cmd);
      const clusterFacts = facts(o, await readClusterFacts(o.kubeconfig));
      const p = await load(source, o);
      const r = filterManifests(p, clusterFacts);
      const name = (m: (typeof r.included)[number]) => (m.namespace ? `${m.namespace}/${m.name}` : m.name);
      const row = (m: (typeof r.included)[number], wide: boolean) => [
        `${m.dir}/${m.filename}`,
        ...(wide ? [m.gvk.group === '' ? m.gvk.version : `${m.gvk.group}/${m.gvk.version}`] : []),
        m.gvk.kind,
        name(m),
      ];
      const table = (wide: boolean): string => {
        const head = ['FILE', ...(wide ? ['APIVERSION'] : []), 'KIND', 'NAME'];
        const cells = (m: (typeof r.included)[number]): string[] => {
          const c = row(m, wide);
          return r.deletions.includes(m) ? [...c.slice(0, -1), `${c.at(-1) ?? ''} (delete)`] : c;
        };
        const lines = [pad([head, ...r.included.map(cells)])];
        lines.push('', `${r.included.length} included, ${r.excluded.length} excluded; version hash ${r.versionHash}`);
        if (o.explain && r.excluded.length > 0) {
          lines.push('', 'Excluded:');
          lines.push(
            pad([
              [...head, 'REASON'],
              ...r.excluded.map((e) => [...row(e.manifest, wide), `${e.reason.rule}: ${e.reason.message}`]),
            ]),
          );
        }
        return lines.join('\n') + '\n';
      };
      await printResult(format, {
        data: () => {
          const out: Record<string, unknown> = {
            versionHash: r.versionHash,
            included: r.included.map((m) => ({
              file: `${m.dir}/${m.filename}`,
              id: m.id,
              kind: m.gvk.kind,
              namespace: m.namespace,
              name: m.name,
              delete: r.deletions.includes(m),
            })),
          };
          if (o.explain)
            out['excluded'] = r.excluded.map((e) => ({
              file: `${e.manifest.dir}/${e.manifest.filename}`,
              id: e.manifest.id,
              rule: e.reason.rule,
              reason: e.reason.message,
            }));
          return out;
        },
        table: () => table(false),
        wide: () => table(true),
      });
    },
  );
}

function diffTable(d: ReturnType<typeof diffPayloads>, wide: boolean): string {
  const L: string[] = [];
  L.push(`Version: ${d.version.from} -> ${d.version.to}${d.version.changed ? '' : ' (unchanged)'}`);
  if (d.previous.added.length || d.previous.removed.length)
    L.push(`Previous: +[${d.previous.added.join(', ')}] -[${d.previous.removed.join(', ')}]`);
  for (const c of d.osImages) L.push(`OS image ${c.name}: ${c.from ?? '<none>'} -> ${c.to ?? '<none>'}`);
  if (d.componentVersions.length) {
    L.push('', 'Component versions:');
    for (const c of d.componentVersions) L.push(`  ${c.name}: ${c.from ?? '<none>'} -> ${c.to ?? '<none>'}`);
  }
  L.push(
    '',
    `Manifests: ${d.manifests.added.length} added, ${d.manifests.removed.length} removed, ${d.manifests.changed.length} changed, ${d.manifests.unchanged} unchanged`,
  );
  for (const m of d.manifests.added) L.push(`  + ${m.id} (${m.dir}/${m.filename})`);
  for (const m of d.manifests.removed) L.push(`  - ${m.id} (${m.dir}/${m.filename})`);
  const limit = wide ? Infinity : 20;
  for (const c of d.manifests.changed) {
    L.push(`  ~ ${c.id} (${c.toFile})`);
    for (const v of c.changes.slice(0, limit))
      L.push(
        `      ${v.path}: ${'from' in v ? JSON.stringify(v.from) : '<absent>'} -> ${'to' in v ? JSON.stringify(v.to) : '<absent>'}`,
      );
    if (c.changes.length > limit) L.push(`      ... ${c.changes.length - limit} more (-o wide shows all)`);
  }
  if (d.images.length) {
    L.push('', `Images: ${d.images.length} changed`);
    for (const i of d.images) L.push(`  ${i.name}: ${i.from ?? '<none>'} -> ${i.to ?? '<none>'}`);
  }
  return L.join('\n') + '\n';
}

function registerDiff(payload: Command): void {
  const cmd = payload
    .command('diff <a> <b>')
    .description('Semantic difference between two payloads (manifests, images, OS image, versions)');
  addOutputOption(addSourceOptions(cmd), READ_FORMATS).action(
    async (a: string, b: string, o: SourceOpts & OutputFlags) => {
      const format = outputFormat(o, cmd);
      const [pa, pb] = [await load(a, o), await load(b, o)];
      const d = diffPayloads(pa, pb);
      const brief = (m: { dir: string; filename: string; id: string }) => ({
        file: `${m.dir}/${m.filename}`,
        id: m.id,
      });
      await printResult(format, {
        data: () => ({
          ...d,
          manifests: { ...d.manifests, added: d.manifests.added.map(brief), removed: d.manifests.removed.map(brief) },
        }),
        table: () => diffTable(d, false),
        wide: () => diffTable(d, true),
      });
    },
  );
}

interface VerifyOpts extends SourceOpts, OutputFlags {
  keyring: string[];
  store: string[];
  digest?: string;
  payloadConfig?: boolean;
}

function registerVerify(payload: Command): void {
  const cmd = payload
    .command('verify <source>')
    .description('Verify release signatures (atomic container signatures) against keyrings from signature stores')
    .option('--keyring <file>', 'OpenPGP public keyring (armored or binary); repeatable', collect, [] as string[])
    .option('--store <url>', 'signature store URL (https, http or file); repeatable', collect, [] as string[])
    .option('--digest <sha256:...>', 'release digest (required for directories; default: the image manifest digest)')
    .option('--payload-config', "use the keys and stores of the payload's own verification ConfigMap");
  addOutputOption(addSourceOptions(cmd), READ_FORMATS).action(async (source: string, o: VerifyOpts) => {
    const format = outputFormat(o, cmd);
    if (!o.payloadConfig && (o.keyring.length === 0 || o.store.length === 0))
      throw usageError('pass at least one --keyring and one --store (or --payload-config)');
    const p = await load(source, o);
    const digest = o.digest ?? p.image?.digest;
    if (!digest) throw usageError('the source has no image digest (a directory?): pass --digest sha256:<hex>');
    const keyrings: Keyring[] = o.keyring.map((f) => {
      try {
        return { name: f, data: new Uint8Array(readFileSync(f)) };
      } catch (e) {
        throw usageError(`--keyring ${f}: ${(e as Error).message}`);
      }
    });
    const stores: SignatureStore[] = o.store.map((url) => ({ url }));
    if (o.payloadConfig) {
      const cfg = verificationConfigFromManifests(p.manifests);
      if (!cfg)
        throw new CliError('the payload has no ConfigMap annotated release.openshift.io/verification-config-map', 1);
      keyrings.push(...cfg.keyrings);
      stores.push(...cfg.stores);
    }
    if (keyrings.length === 0 || stores.length === 0)
      throw usageError('pass at least one --keyring and one --store (or --payload-config)');
    const r = await verifyRelease({ digest, keyrings, stores });
    const text = (): string => {
      const lines: string[] = [];
      if (r.verified) {
        lines.push(`verified ${digest}`);
        for (const s of r.signatures)
          lines.push(
            `  key ${s.fingerprint} (keyring ${s.keyring}) signature ${s.index} from ${s.store} for ${s.dockerReference}`,
          );
      } else {
        lines.push(`NOT verified ${digest}:`);
        for (const f of r.failures)
          lines.push(
            `  ${[f.store, f.index ? `signature ${f.index}` : undefined, f.keyring ? `keyring ${f.keyring}` : undefined].filter(Boolean).join(' ')}${f.store || f.keyring ? ': ' : ''}${f.reason}`,
          );
      }
      return lines.join('\n') + '\n';
    };
    await printResult(format, { data: () => r, table: text });
    if (!r.verified) throw new CliError(`release ${digest} could not be verified`, 1);
  });
}
