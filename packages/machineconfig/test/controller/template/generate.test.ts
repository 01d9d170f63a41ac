/**
 * The template controller's generation (`src/controller/template/generate.ts`) on a small templates tree of upstream's
 * layout: roles, MC names, platform directories overriding `_base` by file name, Go templates over the RenderConfig,
 * the MachineConfig's labels, annotation, owner and OS image. The app's shipped tree is tested in the MCO app
 * (`test/upstream-templates.test.ts`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ControllerConfig } from '@keelson/api';
import { generateTemplateMachineConfigs, loadTemplateTree, TemplateError } from '../../../src/index.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mc-templates-'));
  roots.push(root);
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), body);
  }
  return root;
}

const cc = (platform: string): ControllerConfig => ({
  apiVersion: 'machineconfiguration.openshift.io/v1',
  kind: 'ControllerConfig',
  metadata: { name: 'machine-config-controller', uid: 'cc-uid' },
  spec: {
    baseOSContainerImage: 'quay.io/os@sha256:1',
    infra: { status: { platformStatus: { type: platform } } },
  } as ControllerConfig['spec'],
});

type Files = { path: string; contents?: { source?: string }; mode?: number }[];
const files = (mc: { spec?: { config?: unknown } }): Files =>
  (mc.spec?.config as { storage?: { files?: Files } } | undefined)?.storage?.files ?? [];

describe('generateTemplateMachineConfigs', () => {
  const root = tree({
    'worker/00-worker/_base/files/tls.yaml': 'mode: 0644\npath: /etc/tls\ncontents:\n  inline: "{{.TLSMinVersion}}"\n',
    'worker/00-worker/_base/files/where.yaml': 'path: /etc/where\ncontents:\n  inline: base\n',
    'worker/00-worker/aws/files/where.yaml': 'path: /etc/where\ncontents:\n  inline: aws\n',
    'master/00-master/_base/files/m.yaml': 'path: /etc/m\ncontents:\n  inline: "{{.Broken"\n',
  });

  it('renders each role and MC, later platform dirs override by file name, and owns the result', () => {
    const t = loadTemplateTree(root);
    const [mc, ...rest] = generateTemplateMachineConfigs(
      { ...t, top: { ...t.top, entries: new Map([...t.top.entries].filter(([k]) => k === 'worker')) } },
      cc('AWS'),
      'v1',
    );
    expect(rest).toEqual([]);
    expect(mc?.metadata.name).toBe('00-worker');
    expect(mc?.metadata.labels?.['machineconfiguration.openshift.io/role']).toBe('worker');
    expect(mc?.metadata.annotations?.['machineconfiguration.openshift.io/generated-by-controller-version']).toBe('v1');
    expect(mc?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'ControllerConfig',
      uid: 'cc-uid',
      controller: true,
    });
    expect((mc?.spec as { osImageURL?: string }).osImageURL).toBe('quay.io/os@sha256:1');
    const byPath = new Map(files(mc ?? {}).map((f) => [f.path, f]));
    // Intermediate TLS profile when no APIServer is given; mode read as YAML 1.1 octal
    expect(byPath.get('/etc/tls')).toMatchObject({ contents: { source: 'data:,VersionTLS12' }, mode: 420 });
    expect(byPath.get('/etc/where')?.contents?.source).toBe('data:,aws');
  });

  it('a platform without its own directory keeps _base', () => {
    const t = loadTemplateTree(root);
    const worker = { ...t, top: { ...t.top, entries: new Map([...t.top.entries].filter(([k]) => k === 'worker')) } };
    const [mc] = generateTemplateMachineConfigs(worker, cc('GCP'), 'v1');
    expect(files(mc ?? {}).find((f) => f.path === '/etc/where')?.contents?.source).toBe('data:,base');
  });

  it('a template that does not parse is a TemplateError naming the role', () => {
    expect(() => generateTemplateMachineConfigs(loadTemplateTree(root), cc('AWS'), 'v1')).toThrow(TemplateError);
    expect(() => generateTemplateMachineConfigs(loadTemplateTree(root), cc('AWS'), 'v1')).toThrow(
      /role master: failed to parse template/,
    );
  });
});
