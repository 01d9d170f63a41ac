/**
 * The pieces of upstream's Pod retrieval that are pure (cache key, Pod shape, completion texts), the flags, and the
 * virtual container runtime's confinement (real files in a temporary directory).
 */
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient } from '@keelson/kube';
import { parseCommandLine } from '../src/cli.js';
import {
  payloadHash,
  podCompletion,
  randString,
  versionPod,
  waitForPodCompletion,
} from '../src/payload/pod-retrieval.js';
import { execContainer, type ContainerFs } from '../src/virtual/container-exec.js';
import { pullFailureMessage } from '../src/virtual/payload-kubelet.js';

describe('pod retrieval (upstream updatepayload.go)', () => {
  it('keys the cache by unpadded base64url MD5 of the pull spec', () => {
    // value computed independently with Python: base64.urlsafe_b64encode(md5(s)).rstrip('=')
    expect(payloadHash(`quay.io/openshift-release-dev/ocp-release@sha256:${'a'.repeat(64)}`)).toBe(
      'Bie80tAu6IU0P0GTezHltg',
    );
    expect(randString(5)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('builds the Pod with upstream commands and paths', () => {
    const pod = versionPod({
      name: 'version-4.20.1-abcde',
      namespace: 'openshift-cluster-version',
      image: 'quay.io/x@sha256:1',
      nodeName: 'master-0',
      dir: '/etc/cvo/updatepayloads/HASH',
      suffix: 'zzzzz',
    });
    const spec = pod.spec as {
      initContainers: { command: string[]; workingDir?: string }[];
      containers: { command: string[] }[];
    };
    expect(spec.initContainers.map((c) => c.command)).toEqual([
      ['sh', '-c', 'rm -fR ./*'],
      ['mkdir', '/etc/cvo/updatepayloads/HASH-zzzzz'],
      ['cp', '-r', '/manifests', '/etc/cvo/updatepayloads/HASH-zzzzz/manifests'],
      ['cp', '-r', '/release-manifests', '/etc/cvo/updatepayloads/HASH-zzzzz/release-manifests'],
    ]);
    expect(spec.initContainers[0]?.workingDir).toBe('/etc/cvo/updatepayloads/');
    expect(spec.containers[0]?.command).toEqual([
      'mv',
      '/etc/cvo/updatepayloads/HASH-zzzzz',
      '/etc/cvo/updatepayloads/HASH',
    ]);
  });

  it('decides completion with upstream texts', () => {
    expect(podCompletion('p', { phase: 'Running' })).toBeUndefined();
    expect(podCompletion('p', { phase: 'Succeeded' })).toEqual({ done: true });
    expect(
      podCompletion('p', {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'cleanup', state: { waiting: { reason: 'ErrImagePull', message: 'x: timeout' } } },
        ],
      }),
    ).toBeUndefined();
    expect(
      podCompletion('p', {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'cleanup', state: { waiting: { reason: 'SignatureValidationFailed', message: 'no signature' } } },
        ],
      }),
    ).toEqual({
      error:
        'pod p failed at pending with reason "" and message "" and status initcontainer cleanup is waiting with reason "SignatureValidationFailed" and message "no signature"',
    });
    expect(
      podCompletion('p', {
        phase: 'Failed',
        reason: 'DeadlineExceeded',
        message: 'Pod was active on the node longer than the specified deadline',
        containerStatuses: [{ name: 'c', state: { terminated: { reason: 'Error', message: 'boom' } } }],
      }),
    ).toEqual({
      error:
        'pod p failed with reason "DeadlineExceeded" and message "Pod was active on the node longer than the specified deadline" and status container c is terminated with reason "Error" and message "boom"',
    });
    expect(podCompletion('p', { phase: 'Unknown' })).toEqual({ error: 'pod p is with unexpected phase Unknown' });
  });

  it('says manifest unknown as CRI-O does for a missing manifest', () => {
    const e = new Error(
      `http://127.0.0.1:1/v2/m/r/manifests/sha256:${'b'.repeat(64)}: HTTP 404 (no such image, tag or blob)`,
    );
    expect(pullFailureMessage(`q.io/r@sha256:${'b'.repeat(64)}`, e)).toBe(
      `rpc error: code = Unknown desc = reading manifest sha256:${'b'.repeat(64)} in q.io/r: manifest unknown`,
    );
  });

  it('parses --payload-retrieval and --node-name', () => {
    expect(
      parseCommandLine(['start', '--release-image=q', '--payload-retrieval=pod', '--node-name=master-0', '--listen=']),
    ).toMatchObject({ options: { payloadRetrieval: 'pod', nodeName: 'master-0' } });
    expect(() => parseCommandLine(['start', '--release-image=q', '--payload-retrieval=pull'])).toThrow(
      /--payload-retrieval "pull": expected pod or direct/,
    );
  });
});

describe('waitForPodCompletion over HTTP', () => {
  it('lists and watches again after a 410 Gone watch, as UntilWithSync does', async () => {
    const seen: string[] = [];
    let lists = 0;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push(
        `${url.searchParams.get('watch') === 'true' ? 'WATCH' : 'LIST'} ${url.searchParams.get('fieldSelector') ?? ''}`,
      );
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 }));
        return;
      }
      lists++;
      const phase = lists === 1 ? 'Pending' : 'Succeeded';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'PodList',
          apiVersion: 'v1',
          metadata: { resourceVersion: String(lists) },
          items: [{ metadata: { name: 'version-1-abcde' }, status: { phase } }],
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const dir = await mkdtemp(join(tmpdir(), 'cvo-wait-'));
    const kc = join(dir, 'kubeconfig');
    const port = (server.address() as AddressInfo).port;
    await writeFile(
      kc,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:${port}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n`,
    );
    const client = KubeClient.fromKubeconfigFile(kc);
    try {
      await waitForPodCompletion(client, 'openshift-cluster-version', 'version-1-abcde', AbortSignal.timeout(10_000));
    } finally {
      await client.close();
      server.close();
    }
    expect(seen).toEqual([
      'LIST metadata.name=version-1-abcde',
      'WATCH metadata.name=version-1-abcde',
      'LIST metadata.name=version-1-abcde',
    ]);
  });
});

describe('virtual container runtime', () => {
  async function fs(): Promise<ContainerFs & { host: string }> {
    const root = await mkdtemp(join(tmpdir(), 'cvo-exec-'));
    await mkdir(join(root, 'image/manifests'), { recursive: true });
    await writeFile(join(root, 'image/manifests/a.yaml'), 'a: 1\n');
    await mkdir(join(root, 'host/payloads/old'), { recursive: true });
    return {
      imageRoot: join(root, 'image'),
      mounts: [{ mountPath: '/etc/cvo/updatepayloads', dir: join(root, 'host/payloads') }],
      host: join(root, 'host'),
    };
  }

  it('runs the Pod commands against the mapped directories', async () => {
    const f = await fs();
    expect(await execContainer(f, ['sh', '-c', 'rm -fR ./*'], '/etc/cvo/updatepayloads/')).toEqual({
      exitCode: 0,
      stderr: '',
    });
    expect(await readdir(join(f.host, 'payloads'))).toEqual([]);
    expect((await execContainer(f, ['mkdir', '/etc/cvo/updatepayloads/t-1'])).exitCode).toBe(0);
    expect((await execContainer(f, ['cp', '-r', '/manifests', '/etc/cvo/updatepayloads/t-1/manifests'])).exitCode).toBe(
      0,
    );
    expect((await execContainer(f, ['mv', '/etc/cvo/updatepayloads/t-1', '/etc/cvo/updatepayloads/H'])).exitCode).toBe(
      0,
    );
    expect(await readdir(join(f.host, 'payloads/H/manifests'))).toEqual(['a.yaml']);
  });

  it('confines paths and refuses what a container could not do', async () => {
    const f = await fs();
    expect(await execContainer(f, ['mkdir', '/etc/cvo/updatepayloads/../../../../escape'])).toMatchObject({
      exitCode: 1,
    });
    expect(await execContainer(f, ['mkdir', '/manifests/x'])).toEqual({
      exitCode: 1,
      stderr: '/manifests/x: Read-only file system',
    });
    expect(await execContainer(f, ['sh', '-c', 'rm -fR $HOME'], '/etc/cvo/updatepayloads')).toMatchObject({
      exitCode: 2,
    });
    expect(await execContainer(f, ['rm', '-fR', '/etc/cvo/updatepayloads'])).toMatchObject({ exitCode: 1 });
    expect(await execContainer(f, ['curl', 'x'])).toEqual({
      exitCode: 127,
      stderr: 'exec: "curl": executable file not found in $PATH',
    });
    expect((await execContainer(f, ['cp', '-r', '/nope', '/etc/cvo/updatepayloads/x'])).stderr).toMatch(/can't stat/);
    expect(await readdir(join(f.host, 'payloads'))).toEqual(['old']);
  });
});
