import { open as fsOpen, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readPayloadDirectory } from './dir.js';
import { asPayloadError, PayloadError } from './errors.js';
import type { ExtractLimits } from './layers.js';
import { readImageArchive } from './archive.js';
import { readOciLayout, type ImagePayload, type PlatformSelector } from './oci.js';
import { loadPayloadFromFiles, type LoadOptions, type ReleasePayload } from './payload.js';
import { readRegistryImage, type RegistryOptions } from './registry.js';

/** Options of {@link openPayload}. */
export interface OpenOptions extends LoadOptions, RegistryOptions {
  /** Image platform when the source is an index / manifest list (default linux + this machine's architecture). */
  platform?: PlatformSelector;
  /** Safety limits for archives and layers. */
  limits?: ExtractLimits;
  /** Progress callback for long reads (bytes or layers done / total). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Opens a release payload from wherever it is:
 * - an extracted directory (`manifests/` + `release-manifests/`),
 * - an OCI image layout directory (optionally `path:ref`), or `oci:<path>[:ref]`,
 * - an `oci-archive` / `docker-archive` tarball (optionally prefixed `oci-archive:` / `docker-archive:`),
 * - a registry image `docker://host/repo:tag|@sha256:…` (or a bare `host/repo@sha256:…`).
 */
export async function openPayload(source: string, opts: OpenOptions = {}): Promise<ReleasePayload> {
  try {
    const img = await readImageSource(source, opts);
    if (img === 'directory') return loadPayloadFromFiles(await readPayloadDirectory(source, opts.limits), source, opts);
    return loadPayloadFromFiles(img.files, source, opts, img.image);
  } catch (e) {
    throw asPayloadError(e, source);
  }
}

async function isTar(path: string): Promise<boolean> {
  const fh = await fsOpen(path, 'r');
  try {
    const b = Buffer.alloc(512);
    const { bytesRead } = await fh.read(b, 0, 512, 0);
    return bytesRead >= 262 && b.subarray(257, 262).toString('latin1') === 'ustar';
  } finally {
    await fh.close();
  }
}

async function readImageSource(source: string, opts: OpenOptions): Promise<ImagePayload | 'directory'> {
  const common = {
    ...(opts.platform ? { platform: opts.platform } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  };
  const m = /^(oci|oci-archive|docker-archive|docker):(.*)$/.exec(source);
  if (m) {
    const [, scheme, rest] = m as unknown as [string, string, string];
    if (scheme === 'docker') return readRegistryImage(rest.replace(/^\/\//, ''), { ...opts, ...common });
    if (scheme === 'oci') {
      const i = rest.lastIndexOf(':');
      const hasRef = i > 0 && !(await stat(rest).catch(() => null));
      return readOciLayout(hasRef ? rest.slice(0, i) : rest, {
        ...common,
        ...(hasRef ? { ref: rest.slice(i + 1) } : {}),
      });
    }
    // oci-archive:<path>[:<ref name>]
    const j = rest.lastIndexOf(':');
    const withRef = scheme === 'oci-archive' && j > 0 && !(await stat(rest).catch(() => null));
    return readImageArchive(withRef ? rest.slice(0, j) : rest, {
      ...common,
      ...(withRef ? { ref: rest.slice(j + 1) } : {}),
    });
  }
  const s = await stat(source).catch(() => null);
  if (s?.isDirectory()) {
    if (await stat(join(source, 'release-manifests')).catch(() => null)) return 'directory';
    if (await stat(join(source, 'oci-layout')).catch(() => null)) return readOciLayout(source, common);
    throw new PayloadError(
      'UnsupportedSource',
      `${source}: directory is neither an extracted payload (release-manifests/) nor an OCI image layout (oci-layout)`,
      source,
    );
  }
  if (s?.isFile()) {
    if (await isTar(source)) return readImageArchive(source, common);
    throw new PayloadError(
      'UnsupportedSource',
      `${source}: file is not a tar archive (oci-archive or docker-archive expected)`,
      source,
    );
  }
  if (
    (/^[a-z0-9.-]+(:[0-9]+)?\/.+(@sha256:[a-f0-9]{64}|:[\w][\w.-]*)$/i.test(source) &&
      (source.split('/')[0] ?? '').includes('.')) ||
    /^(localhost|127\.0\.0\.1)(:[0-9]+)?\//.test(source)
  ) {
    return readRegistryImage(source, { ...opts, ...common });
  }
  throw new PayloadError(
    'UnsupportedSource',
    `${source}: no such file or directory, and not an image reference (use docker://host/repo:tag)`,
    source,
  );
}
