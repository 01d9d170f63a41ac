import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PayloadError } from './errors.js';
import type { PayloadFiles } from './payload.js';

async function readFlatDir(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const entries = await readdir(dir, { withFileTypes: true });
  await Promise.all(
    entries.map(async (e) => {
      if (e.isDirectory()) return;
      const p = join(dir, e.name);
      if (e.isSymbolicLink()) {
        const s = await stat(p).catch(() => null);
        if (!s || !s.isFile()) return;
      } else if (!e.isFile()) {
        return;
      }
      out.set(e.name, await readFile(p));
    }),
  );
  return out;
}

/**
 * Reads an extracted payload directory (`manifests/` and `release-manifests/` with `release-metadata` and
 * `image-references`), checking the layout like upstream `ValidateDirectory`.
 */
export async function readPayloadDirectory(root: string): Promise<PayloadFiles> {
  for (const rel of ['manifests', 'release-manifests', 'release-manifests/release-metadata', 'release-manifests/image-references']) {
    try {
      await stat(join(root, rel));
    } catch {
      throw new PayloadError('PayloadMissingFile', `${join(root, rel)} does not exist; a payload directory needs manifests/, release-manifests/, release-manifests/release-metadata and release-manifests/image-references`, rel);
    }
  }
  const [manifests, releaseManifests] = await Promise.all([readFlatDir(join(root, 'manifests')), readFlatDir(join(root, 'release-manifests'))]);
  return { manifests, releaseManifests };
}
