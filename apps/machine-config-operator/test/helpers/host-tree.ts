/** Building a host root for chroot tests: real binaries of this Debian host copied in with their libraries. */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Copies a binary and the shared libraries `ldd` lists into the tree (paths as on this Debian host, under /usr).
 */
export function copyWithLibs(tree: string, bin: string, as: string): void {
  const out = spawnSync('ldd', [bin], { encoding: 'utf8' }).stdout;
  for (const m of out.matchAll(/(\/\S+\.so[^\s]*)/g)) {
    const lib = m[1] ?? '';
    const dest = join(tree, 'usr', lib.replace(/^\/usr\//, '/').replace(/^\/(lib|lib64)\//, '$1/'));
    mkdirSync(dirname(dest), { recursive: true });
    if (!existsSync(dest)) copyFileSync(realpathSync(lib), dest);
  }
  mkdirSync(dirname(join(tree, as)), { recursive: true });
  copyFileSync(realpathSync(bin), join(tree, as));
}
