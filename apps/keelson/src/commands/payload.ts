import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
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
}

function facts(o: FilterOpts): ClusterFacts {
  const settings = {
    capabilities: list(o.capabilities) ?? [],
    ...(o.featureSet !== undefined ? { featureSet: o.featureSet } : {}),
    ...(o.profile !== undefined ? { profile: o.profile } : {}),
  };
  for (const w of checkClusterSettings(settings)) warn(w.message);
  const gates = list(o.featureGates) ?? [];
  const spec: Parameters<typeof clusterCapabilities>[0] = { enabledFeatureGates: gates };
  if (o.capabilities !== undefined) {
    spec.baselineCapabilitySet = o.baselineCapabilitySet ?? 'None';
    spec.additionalEnabledCapabilities = list(o.capabilities) ?? [];
  } else if (o.baselineCapabilitySet !== undefined) spec.baselineCapabilitySet = o.baselineCapabilitySet;
  let capabilities;
  try {
    capabilities = clusterCapabilities(spec);
  } catch (e) {
    throw new CliError(`--baseline-capability-set: ${(e as Error).message}`, 2);
  }
  const f: ClusterFacts = {
    profile: o.profile ?? DEFAULT_CLUSTER_PROFILE,
    featureSet: o.featureSet === 'Default' ? '' : (o.featureSet ?? ''),
    enabledFeatureGates: gates,
    capabilities,
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
      'Show a release payload: name, digest, created, OS/arch, metadata, component versions, images (like oc adm release info)',
    );
  addOutputOption(addSourceOptions(cmd), READ_FORMATS).action(async (source: string, o: SourceOpts & OutputFlags) => {
    const format = outputFormat(o, cmd);
    const p = await load(source, o);
    const included = filterManifests(p, facts({}));
    const versions = componentVersions(p);
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
          previous: p.metadata.previous,
          next: p.metadata.next,
          url: p.metadata.url ?? null,
          channels: p.metadata.channels,
          metadata: p.metadata.metadata,
        },
        componentVersions: versions,
        images: p.images,
      }),
      table: () => infoTable(p, included, versions, false),
      wide: () => infoTable(p, included, versions, true),
    });
  });
}

function infoTable(
  p: ReleasePayload,
  included: ReturnType<typeof filterManifests>,
  versions: Record<string, string>,
  wide: boolean,
): string {
  const lines: string[] = [];
  lines.push(`Name:           ${p.metadata.version}`);
  if (p.image) lines.push(`Digest:         ${p.image.digest}`);
  const created = p.image?.created ?? p.imageReferences.creationTimestamp;
  if (created) lines.push(`Created:        ${created}`);
  if (p.image?.os || p.image?.architecture || p.metadata.architecture)
    lines.push(
      `OS/Arch:        ${p.image?.os ?? 'linux'}/${p.metadata.architecture ?? p.image?.architecture ?? 'unknown'}`,
    );
  lines.push(
    `Manifests:      ${p.manifests.length} (${included.included.length} included for profile ${DEFAULT_CLUSTER_PROFILE}, default feature set)`,
  );
  lines.push(`Version hash:   ${included.versionHash}`);
  if (wide) lines.push(`Release image:  ${p.releaseImage === '' ? '""' : p.releaseImage}`);
  if (p.metadata.url) lines.push(`Metadata URL:   ${p.metadata.url}`);
  lines.push('');
  lines.push(`Upgrades:       ${p.metadata.previous.length > 0 ? p.metadata.previous.join(', ') : '<none>'}`);
  if (p.metadata.channels.length > 0) lines.push(`Channels:       ${p.metadata.channels.join(', ')}`);
  const meta = Object.entries(p.metadata.metadata);
  if (meta.length > 0) {
    lines.push('', 'Metadata:');
    for (const [k, v] of meta) lines.push(`  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  const comps = Object.entries(versions);
  if (comps.length > 0) {
    lines.push('', 'Component Versions:');
    lines.push(pad(comps.sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [`  ${k}`, v])));
  }
  lines.push('', `Images (${Object.keys(p.images).length}):`);
  const rows = Object.entries(p.images)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([n, spec]) => [`  ${n}`, spec]);
  if (rows.length > 0) lines.push(pad([['  NAME', 'PULL SPEC'], ...rows]));
  return lines.join('\n') + '\n';
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
    .option('--explain', 'also list excluded manifests with the reason');
  addOutputOption(addSourceOptions(cmd), READ_FORMATS).action(
    async (source: string, o: SourceOpts & FilterOpts & OutputFlags) => {
      const format = outputFormat(o, cmd);
      const clusterFacts = facts(o);
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
