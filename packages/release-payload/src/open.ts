import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readPayloadDirectory } from './dir.js';
import { PayloadError } from './errors.js';
import { loadPayloadFromFiles, type LoadOptions, type ReleasePayload } from './payload.js';

/** Options of {@link openPayload}. */
export interface OpenOptions extends LoadOptions {}

/**
 * Opens a release payload from an extracted directory.
 */
export async function openPayload(source: string, opts: OpenOptions = {}): Promise<ReleasePayload> {
  const s = await stat(source).catch(() => null);
  if (s?.isDirectory()) {
    if (await stat(join(source, 'release-manifests')).catch(() => null)) {
      return loadPayloadFromFiles(await readPayloadDirectory(source), source, opts);
    }
  }
  throw new PayloadError('UnsupportedSource', `${source}: not a payload directory`, source);
}
