import { spawnSync } from 'node:child_process';

/** Installs Debian's `ostree` when it is missing (CI's scripts/test.sh does the same); the sysroot tests need it. */
export default function setup(): void {
  if (spawnSync('ostree', ['--version']).status === 0) return;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore' });
    spawnSync('apt-get', ['install', '-y', 'ostree'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  if (spawnSync('ostree', ['--version']).status !== 0) {
    throw new Error('the ostree tests need Debian\'s "ostree" package: run apt-get install -y ostree');
  }
}
