/**
 * The machine-config-server TLS wired end to end (upstream cert rotation controller + syncMachineConfigPools'
 * user-data secrets): the operator issues the MCS serving certificate for the Infrastructure's hostnames, puts the CA
 * bundle in ControllerConfig rootCAData and in the `<pool>-user-data-managed` pointer configs, moves the installer's
 * `*-user-data` secret to that bundle; a real machine-config-server serving the issued Secret is trusted by a TLS
 * client holding only the pointer config's CA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigMaps, ControllerConfigs, nullLogger } from '@keelson/kube';
import { startMachineConfigOperator, type Running } from '../src/index.js';
import { startMachineConfigServer, type MachineConfigServer } from '../src/server/server.js';
import { MCS_CA_NAME, MCS_TLS_SECRET, Secrets, type SecretObj } from '../src/operator/mcs-tls.js';
import {
  ignitionHost,
  mcsHostnames,
  pointerConfig,
  reconcileUserDataCA,
  MANAGED_CA_LABEL,
} from '../src/operator/user-data.js';
import { loadProfile } from './helpers/cluster-config.js';
import { startTestCluster, waitFor, type TestCluster } from './helpers/cluster.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');
const NS = 'openshift-machine-config-operator';

describe('pointer configs and hostnames', () => {
  const bm = {
    status: {
      apiServerInternalURI: 'https://api-int.bm1.example.com:6443',
      platformStatus: { type: 'BareMetal', baremetal: { apiServerInternalIPs: ['192.168.111.5', 'fd00::5'] } },
    },
  };
  const aws = {
    status: { apiServerInternalURI: 'https://api-int.c1.example.com:6443', platformStatus: { type: 'AWS' } },
  };

  it('ignition host and serving hostnames as getIgnitionHost / syncHostnames', () => {
    expect(ignitionHost(bm)).toBe('192.168.111.5:22623');
    expect(ignitionHost(aws)).toBe('api-int.c1.example.com:22623');
    expect(mcsHostnames(bm)).toEqual(['api-int.bm1.example.com', '192.168.111.5', 'fd00::5']);
    expect(mcsHostnames(aws)).toEqual(['api-int.c1.example.com']);
    expect(() => mcsHostnames({ status: {} })).toThrow(
      'no APIServerInternalURL found in cluster infrastructure resource',
    );
  });

  it('the pointer config is json.Marshal of ign3types.Config', () => {
    expect(pointerConfig('192.168.111.5:22623', Buffer.from('CA\n'), 'worker')).toBe(
      '{"ignition":{"config":{"merge":[{"source":"https://192.168.111.5:22623/config/worker","verification":{}}],' +
        '"replace":{"verification":{}}},"proxy":{},"security":{"tls":{"certificateAuthorities":[{"source":' +
        `"data:text/plain;charset=utf-8;base64,${b64('CA\n')}","verification":{}}]}},"timeouts":{},"version":"3.5.0"},` +
        '"kernelArguments":{},"passwd":{},"storage":{},"systemd":{}}',
    );
  });

  it('an installer user-data secret gets the bundle as its one CA; more than one CA is refused', () => {
    const ign = (cas: string[]): SecretObj => ({
      metadata: { name: 'worker-user-data' },
      data: {
        userData: b64(
          JSON.stringify({
            ignition: {
              version: '3.2.0',
              security: { tls: { certificateAuthorities: cas.map((source) => ({ source })) } },
            },
          }),
        ),
      },
    });
    const updated = reconcileUserDataCA(ign(['data:text/plain;charset=utf-8;base64,T0xE']), Buffer.from('NEW'));
    expect(updated).toBeDefined();
    // Go's json.Marshal of a map: keys sorted
    expect(unb64(updated)).toBe(
      `{"ignition":{"security":{"tls":{"certificateAuthorities":[{"source":"data:text/plain;charset=utf-8;base64,${b64('NEW')}"}]}},"version":"3.2.0"}}`,
    );
    expect(
      reconcileUserDataCA({ metadata: { name: 'x' }, data: { userData: updated ?? '' } }, Buffer.from('NEW')),
    ).toBeUndefined();
    expect(() => reconcileUserDataCA(ign(['a', 'b']), Buffer.from('NEW'))).toThrow(
      'additional CAs detected, cannot modify automatically. Aborting',
    );
  });
});

describe('MCS TLS wired on the API server', () => {
  let tc: TestCluster;
  let operator: Running | undefined;
  let mcs: MachineConfigServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await mcs?.stop();
    await operator?.stop();
    await tc.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('serving cert issued, pointer configs and installer user-data carry its CA, the MCS is trusted with it', async () => {
    tc = await startTestCluster();
    await loadProfile(tc.client, 'baremetal');
    await tc.client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-machine-api' } },
    });
    const secrets = tc.client.resource(Secrets);
    const oldPointer = {
      ignition: { version: '3.2.0', security: { tls: { certificateAuthorities: [{ source: 'data:,OLD' }] } } },
    };
    await secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'worker-user-data', namespace: 'openshift-machine-api' },
      data: { userData: b64(JSON.stringify(oldPointer)), disableTemplating: b64('true\n') },
    });
    await tc.client.resource(ConfigMaps).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'machine-config-osimageurl', namespace: NS },
      data: {
        baseOSContainerImage: `quay.io/test/rhcos@sha256:${'2'.repeat(64)}`,
        baseOSExtensionsContainerImage: '',
        releaseVersion: '4.99.0',
      },
    });
    operator = await startMachineConfigOperator({
      operands: false,
      kubeconfig: tc.kubeConfig,
      logger: nullLogger,
      releaseVersion: '4.99.0',
      resyncIntervalMs: 100,
      leaderElection: false,
      health: false,
      mcsCertRotation: true,
    });
    const bundle = await waitFor(
      'CA bundle',
      async () => (await tc.client.resource(ConfigMaps).get(MCS_CA_NAME, NS)).data?.['ca-bundle.crt'],
    );
    // ControllerConfig rootCAData follows the MCS CA bundle (syncRenderConfig reads that ConfigMap first)
    await waitFor('rootCAData', async () =>
      unb64((await tc.client.resource(ControllerConfigs).get('machine-config-controller')).spec.rootCAData) === bundle
        ? true
        : undefined,
    );
    for (const role of ['master', 'worker']) {
      const s = await waitFor(`${role}-user-data-managed`, async () => {
        const got = await secrets.get(`${role}-user-data-managed`, 'openshift-machine-api');
        return got.data?.['userData'] !== undefined && unb64(got.data['userData']).includes(b64(bundle))
          ? got
          : undefined;
      });
      expect(s.metadata.labels?.[MANAGED_CA_LABEL]).toBe('');
      expect(s.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'MachineConfigPool', name: role });
      expect(unb64(s.data?.['disableTemplating'])).toBe('true\n');
      expect(unb64(s.data?.['userData'])).toBe(pointerConfig('192.168.111.5:22623', Buffer.from(bundle), role));
    }
    const installer = await waitFor('installer user-data on the bundle', async () => {
      const s = await secrets.get('worker-user-data', 'openshift-machine-api');
      return unb64(s.data?.['userData']).includes(b64(bundle)) ? s : undefined;
    });
    expect(unb64(installer.data?.['disableTemplating'])).toBe('true\n');
    // the machine-config-server serves the issued Secret (mounted as files, as the DaemonSet does)
    const tls = await secrets.get(MCS_TLS_SECRET, NS);
    expect(tls.metadata.annotations?.['auth.openshift.io/certificate-hostnames']).toBe(
      '192.168.111.5,api-int.bm1.example.com',
    );
    dir = mkdtempSync(join(tmpdir(), 'mcs-wired-'));
    writeFileSync(join(dir, 'tls.crt'), unb64(tls.data?.['tls.crt']));
    writeFileSync(join(dir, 'tls.key'), unb64(tls.data?.['tls.key']));
    mcs = await startMachineConfigServer({
      client: tc.client,
      apiserverURL: 'https://api-int.bm1.example.com:6443',
      cert: join(dir, 'tls.crt'),
      key: join(dir, 'tls.key'),
      securePort: 0,
      insecurePort: null,
      host: '127.0.0.1',
      logger: nullLogger,
    });
    const port = Number(new URL(mcs.secureUrl ?? '').port);
    const pointer = JSON.parse(
      unb64((await secrets.get('worker-user-data-managed', 'openshift-machine-api')).data?.['userData']),
    ) as {
      ignition: { security: { tls: { certificateAuthorities: Array<{ source: string }> } } };
    };
    const caFromPointer = Buffer.from(
      pointer.ignition.security.tls.certificateAuthorities[0]?.source.split('base64,')[1] ?? '',
      'base64',
    );
    const handshake = (ca: Buffer, servername: string): Promise<string> =>
      new Promise((resolve) => {
        const sock = connect({ host: '127.0.0.1', port, ca, servername }, () => {
          sock.end();
          resolve('trusted');
        });
        sock.on('error', (e: NodeJS.ErrnoException) => {
          resolve(e.code ?? e.message);
        });
      });
    expect(await handshake(caFromPointer, 'api-int.bm1.example.com')).toBe('trusted');
    expect(await handshake(Buffer.from(unb64(tls.data?.['tls.crt'])), 'api-int.bm1.example.com')).not.toBe('trusted');
    expect(await handshake(caFromPointer, 'other.example.com')).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    // in line: no further writes of the managed secrets
    const rv = (await secrets.get('worker-user-data-managed', 'openshift-machine-api')).metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 500));
    expect((await secrets.get('worker-user-data-managed', 'openshift-machine-api')).metadata.resourceVersion).toBe(rv);
  }, 60_000);
});
