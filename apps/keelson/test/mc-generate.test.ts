import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli } from './cli-helpers.js';

// upstream's template-controller fixtures, shipped with the MCO's tests (provenance in their README)
const fixtures = fileURLToPath(new URL('../../machine-config-operator/test/data/upstream-template/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mc-generate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Item = {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { osImageURL: string; config: { storage: { files: Array<{ path: string; contents: { source: string } }> } } };
};
type List = { apiVersion: string; kind: string; items: Item[] };

describe('keelson mc generate', () => {
  it('prints the template controller MachineConfigs of a ControllerConfig as a v1/List (json and yaml)', async () => {
    const secret = join(dir, 'ps.yaml');
    writeFileSync(
      secret,
      `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\nmetadata: {name: pull-secret, namespace: openshift-config}\ndata:\n  .dockerconfigjson: ${Buffer.from('{ "auths": { "q.io": { "auth": "eA==" } } }').toString('base64')}\n`,
    );
    const apiserver = join(dir, 'apiserver.yaml');
    writeFileSync(
      apiserver,
      'apiVersion: config.openshift.io/v1\nkind: APIServer\nmetadata: {name: cluster}\nspec:\n  tlsSecurityProfile: {type: Modern}\n',
    );
    const args = [
      'mc',
      'generate',
      '--controller-config',
      join(fixtures, 'controller_config_baremetal.yaml'),
      '--pull-secret',
      secret,
      '--apiserver',
      apiserver,
      '--controller-version',
      'abc',
    ];
    const json = await cli(...args, '-o', 'json');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as List;
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((i) => i.metadata.name)).toEqual([
      '00-master',
      '00-worker',
      '01-master-container-runtime',
      '01-master-kubelet',
      '01-worker-container-runtime',
      '01-worker-kubelet',
    ]);
    const worker = list.items[1];
    expect(worker?.metadata.labels).toEqual({ 'machineconfiguration.openshift.io/role': 'worker' });
    expect(worker?.metadata.annotations).toEqual({
      'machineconfiguration.openshift.io/generated-by-controller-version': 'abc',
    });
    const files = worker?.spec.config.storage.files ?? [];
    expect(files.length).toBeGreaterThan(30);
    expect(files.find((f) => f.path === '/var/lib/kubelet/config.json')?.contents.source).toBe(
      `data:,${encodeURIComponent('{"auths":{"q.io":{"auth":"eA=="}}}\n')}`,
    );
    // on-prem bare metal: keepalived/haproxy/coredns static pods come from on-prem/
    expect(files.some((f) => f.path.includes('keepalived'))).toBe(true);
    const yaml = await cli(...args);
    expect(yaml.code).toBe(0);
    expect(parse(yaml.stdout)).toEqual(list);
  }, 60_000);

  it('fails naming the template and Go error when the ControllerConfig cannot render; usage errors exit 2', async () => {
    const cc = join(dir, 'cc.yaml');
    writeFileSync(
      cc,
      'apiVersion: machineconfiguration.openshift.io/v1\nkind: ControllerConfig\nmetadata: {name: machine-config-controller}\nspec:\n  infra:\n    status:\n      platformStatus: {type: None}\n',
    );
    const r = await cli('mc', 'generate', '--controller-config', cc);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'failed to create MachineConfig for role master: failed to execute template: template: ',
    );
    expect(r.stderr).toContain('error calling urlPort: unknown scheme in');
    expect((await cli('mc', 'generate', '--controller-config', join(dir, 'missing.yaml'))).code).toBe(2);
    expect((await cli('mc', 'generate')).code).toBe(2);
  }, 60_000);
});
