/** A real registry for retrieval tests: Debian's `docker-registry` on loopback, filled with `skopeo`. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { KubeClient } from '@keelson/kube';
import { FIXTURES } from './helpers.js';

const run = promisify(execFile);

/** A free loopback TCP port (nothing listens on it afterwards). */
export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => res(p));
    });
  });
}

/** A started docker-registry. */
export interface TestRegistry {
  host: string;
  stop(): void;
}

/** Starts `docker-registry` with its storage under `dir`. */
export async function startRegistry(dir: string): Promise<TestRegistry> {
  const port = await freePort();
  await writeFile(
    join(dir, 'registry.yml'),
    `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${join(dir, 'registry-storage')}\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  const child: ChildProcess = spawn('/usr/bin/docker-registry', ['serve', join(dir, 'registry.yml')], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 150; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/v2/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { host: `127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error('docker-registry did not come up');
}

/** Copies an OCI layout into `docker://<dest>` keeping its manifest digest. */
export async function pushLayout(layout: string, dest: string): Promise<void> {
  await run('skopeo', [
    '--insecure-policy',
    'copy',
    '--quiet',
    '--preserve-digests',
    '--dest-tls-verify=false',
    `oci:${layout}`,
    `docker://${dest}`,
  ]);
}

/** Installs upstream CRDs from test/fixtures/upstream and waits until they are served. */
export async function installCrds(
  client: KubeClient,
  files: readonly string[],
  probe: readonly string[],
): Promise<void> {
  for (const f of files) {
    const crd = parseYaml(await readFile(join(FIXTURES, 'upstream', f), 'utf8')) as Record<string, unknown>;
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  }
  for (let i = 0; i < 200; i++) {
    const ok = await Promise.all(probe.map((p) => client.request('GET', p))).then(
      () => true,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`CRDs not served: ${probe.join(', ')}`);
}
