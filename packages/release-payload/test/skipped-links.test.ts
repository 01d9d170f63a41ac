/**
 * Symbolic links that lead to no file are reported, not dropped silently (issue 24 §5): image layers (dangling, to a
 * directory, a loop) and payload directories (a link to a directory), each listed in `files.skippedLinks` and as a
 * payload warning.
 */
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLayerBuffers, loadPayloadFromFiles, readPayloadDirectory } from '../src/index.js';
import { tarBuffer } from './helpers.js';

const DATA = new URL('./fixtures/upstream/payload/', import.meta.url).pathname;

describe('skipped symbolic links', () => {
  it('lists the links of image layers that lead to no file, with why', async () => {
    const layer = await tarBuffer([
      { name: 'manifests/a.yaml', data: 'kind: A\n' },
      { name: 'manifests/sub', type: 'directory' },
      { name: 'manifests/ok.yaml', type: 'symlink', linkname: 'a.yaml' },
      { name: 'manifests/dangling.yaml', type: 'symlink', linkname: 'gone.yaml' },
      { name: 'manifests/dir.yaml', type: 'symlink', linkname: 'sub' },
      { name: 'manifests/loop1.yaml', type: 'symlink', linkname: 'loop2.yaml' },
      { name: 'manifests/loop2.yaml', type: 'symlink', linkname: 'loop1.yaml' },
    ]);
    const files = (await applyLayerBuffers([layer])).toPayloadFiles();
    expect([...files.manifests.keys()]).toEqual(['a.yaml', 'ok.yaml']);
    expect(files.skippedLinks).toEqual([
      {
        path: 'manifests/dangling.yaml',
        target: 'gone.yaml',
        reason: 'its target manifests/gone.yaml is not in the image (dangling link)',
      },
      { path: 'manifests/dir.yaml', target: 'sub', reason: 'its target manifests/sub is a directory' },
      { path: 'manifests/loop1.yaml', target: 'loop2.yaml', reason: 'too many levels of symbolic links' },
      { path: 'manifests/loop2.yaml', target: 'loop1.yaml', reason: 'too many levels of symbolic links' },
    ]);
  });

  it('lists a link to a directory of a payload directory and warns about it', async () => {
    const work = await mkdtemp(join(tmpdir(), 'payload-links-'));
    try {
      const root = join(work, 'p');
      await cp(join(DATA, 'payloadtest'), root, { recursive: true });
      await symlink('../release-manifests', join(root, 'manifests', 'dir-link.yaml'));
      const files = await readPayloadDirectory(root);
      expect(files.skippedLinks).toEqual([
        {
          path: 'manifests/dir-link.yaml',
          target: '../release-manifests',
          reason: `its target ${join(root, 'release-manifests')} is a directory`,
        },
      ]);
      const p = loadPayloadFromFiles(files, root);
      expect(p.warnings).toContain(
        `Skipping symlink manifests/dir-link.yaml -> ../release-manifests: its target ${join(root, 'release-manifests')} is a directory`,
      );
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
