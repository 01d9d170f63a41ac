import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';

/** Runs the built CLI (apps/keelson/dist/bin.js) as a child process. */
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
function keelson(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface VectorMC {
  name: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  spec: Record<string, unknown> & { configRaw?: string };
}
interface Vector {
  name: string;
  input: {
    pool: string;
    controllerConfig: Record<string, string>;
    controllerVersionHash?: string;
    configs: VectorMC[];
  };
  expected: { renderedName: string; poolSpecConfigurationSource: string[]; spec: { configRaw: string } };
}
const vectors = (
  JSON.parse(readFileSync(new URL('./fixtures/upstream/vectors/mco-vectors.json', import.meta.url), 'utf8')) as {
    vectors: Vector[];
  }
).vectors;
const vector = (name: string): Vector => vectors.find((v) => v.name === name) as Vector;

/** Writes a vector's MachineConfigs as YAML manifests (spec.config as a YAML object, like `oc get mc -o yaml`). */
function writeVector(v: Vector): { dir: string; cc: string } {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-mc-'));
  const mcs = join(dir, 'mcs');
  mkdirSync(mcs);
  for (const c of v.input.configs) {
    const { configRaw, ...spec } = c.spec;
    const doc = {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: c.name, labels: c.labels ?? undefined, annotations: c.annotations ?? undefined },
      spec: configRaw === undefined ? spec : { ...spec, config: JSON.parse(configRaw) as unknown },
    };
    writeFileSync(join(mcs, `${c.name}.yaml`), stringify(doc, { version: '1.1' }));
  }
  const cc = join(dir, 'controllerconfig.yaml');
  writeFileSync(
    cc,
    stringify({
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'ControllerConfig',
      metadata: { name: 'machine-config-controller' },
      spec: v.input.controllerConfig,
    }),
  );
  return { dir: mcs, cc };
}

// each test spawns the CLI several times: generous per-test time on a loaded 2-core CI machine
describe('keelson mc render', { timeout: 60_000 }, () => {
  it('renders a directory of MachineConfig YAML to the MCO name and config bytes', () => {
    const v = vector('render/worker-basic');
    const { dir, cc } = writeVector(v);
    const r = keelson([
      'mc',
      'render',
      '--pool',
      'worker',
      dir,
      '--controller-config',
      cc,
      '--controller-version',
      'controllerhash1',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      `# ${v.expected.renderedName} (from ${v.expected.poolSpecConfigurationSource.join(', ')})`,
    );
    const mc = parse(r.stdout) as {
      metadata: { name: string; annotations: Record<string, string> };
      spec: { config: unknown };
    };
    expect(mc.metadata.name).toBe(v.expected.renderedName);
    expect(mc.metadata.annotations['machineconfiguration.openshift.io/generated-by-controller-version']).toBe(
      'controllerhash1',
    );
    expect(JSON.stringify(mc.spec.config)).toBe(v.expected.spec.configRaw);
  });
  it('custom pool takes worker MCs plus its own; --name-only and --json', () => {
    const v = vector('render/infra-specific-mc-overrides-worker-file');
    const { dir, cc } = writeVector(v);
    const r = keelson(['mc', 'render', '--pool', 'infra', dir, '--controller-config', cc, '--name-only']);
    expect(r.stdout).toBe(`${v.expected.renderedName}\n`);
    const j = keelson(['mc', 'render', '--pool', 'infra', dir, '--controller-config', cc, '--json']);
    expect((JSON.parse(j.stdout) as { source: string[] }).source).toEqual(v.expected.poolSpecConfigurationSource);
  });
  it('individual files work as well as directories', () => {
    const v = vector('render/kerneltype-last-nondefault-wins');
    const { dir, cc } = writeVector(v);
    const files = v.input.configs.map((c) => join(dir, `${c.name}.yaml`));
    const r = keelson(['mc', 'render', '--pool', 'worker', ...files, '--controller-config', cc, '--name-only']);
    expect(r.stdout).toBe(`${v.expected.renderedName}\n`);
  });
  it('points at the file and JSON path of an invalid MachineConfig', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-mc-bad-'));
    writeFileSync(
      join(dir, 'rel.yaml'),
      stringify({
        kind: 'MachineConfig',
        metadata: { name: '10-rel', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
        spec: { config: { ignition: { version: '3.5.0' }, storage: { files: [{ path: 'etc/relative', mode: 420 }] } } },
      }),
    );
    const r = keelson(['mc', 'render', '--pool', 'worker', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(dir, 'rel.yaml')}: MachineConfig "10-rel" at $.spec.config.storage.files[0].path`,
    );
    expect(r.stderr).toContain('path not absolute');
    writeFileSync(join(dir, 'rel.yaml'), 'kind: MachineConfig\nmetadata: {labels: {a: b}}\n');
    const r2 = keelson(['mc', 'render', '--pool', 'worker', dir]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`${join(dir, 'rel.yaml')}: $.metadata.name:`);
    writeFileSync(
      join(dir, 'rel.yaml'),
      'kind: MachineConfig\nmetadata: {name: x, labels: {machineconfiguration.openshift.io/role: worker}}\nspec: {kernelType: lowlatency}\n',
    );
    const r3 = keelson(['mc', 'render', '--pool', 'worker', dir]);
    expect(r3.stderr).toContain('at $.spec.kernelType: kernelType=lowlatency is invalid');
  });
  it('reads YAML 1.1 like the Kubernetes decoder: mode 0644 is octal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-mc-octal-'));
    const yamlText = (mode: string) =>
      `kind: MachineConfig\nmetadata:\n  name: 10-octal\n  labels: {machineconfiguration.openshift.io/role: worker}\nspec:\n  config:\n    ignition: {version: 3.5.0}\n    storage:\n      files:\n      - path: /etc/x\n        mode: ${mode}\n        contents: {source: "data:,x"}\n`;
    writeFileSync(join(dir, 'a.yaml'), yamlText('0644'));
    const octal = keelson(['mc', 'render', '--pool', 'worker', dir, '--json']);
    expect(octal.stderr).toBe('');
    writeFileSync(join(dir, 'a.yaml'), yamlText('420'));
    const decimal = keelson(['mc', 'render', '--pool', 'worker', dir, '--json']);
    expect((JSON.parse(octal.stdout) as { name: string }).name).toBe(
      (JSON.parse(decimal.stdout) as { name: string }).name,
    );
  });
  it('missing input is a usage error; no MCs for the pool is an error', () => {
    expect(keelson(['mc', 'render', '--pool', 'worker', '/nonexistent/x.yaml']).code).toBe(2);
    const dir = mkdtempSync(join(tmpdir(), 'keelson-mc-empty-'));
    writeFileSync(
      join(dir, 'm.yaml'),
      stringify({
        kind: 'MachineConfig',
        metadata: { name: 'm', labels: { 'machineconfiguration.openshift.io/role': 'master' } },
        spec: {},
      }),
    );
    const r = keelson(['mc', 'render', '--pool', 'worker', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'no MachineConfigs found matching selector machineconfiguration.openshift.io/role=worker',
    );
    // a typo'd pool nothing selects is an error, not an empty render
    writeFileSync(
      join(dir, 'w.yaml'),
      stringify({
        kind: 'MachineConfig',
        metadata: { name: 'w', labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
        spec: {},
      }),
    );
    const typo = keelson(['mc', 'render', '--pool', 'workr', dir]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('unknown pool workr');
    expect(typo.stdout).toBe('');
  });
  it('uses a MachineConfigPool given among the inputs (its machineConfigSelector, matchExpressions included)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keelson-mc-pool-'));
    const role = (name: string, r: string): string =>
      stringify({
        kind: 'MachineConfig',
        metadata: { name, labels: { 'machineconfiguration.openshift.io/role': r } },
        spec: { kernelArguments: [name] },
      });
    writeFileSync(join(dir, 'a.yaml'), role('00-worker', 'worker'));
    writeFileSync(join(dir, 'b.yaml'), role('50-gpu', 'gpu'));
    writeFileSync(join(dir, 'c.yaml'), role('50-master', 'master'));
    writeFileSync(
      join(dir, 'pool.yaml'),
      stringify({
        apiVersion: 'machineconfiguration.openshift.io/v1',
        kind: 'MachineConfigPool',
        metadata: { name: 'gpu' },
        spec: {
          machineConfigSelector: {
            matchExpressions: [
              { key: 'machineconfiguration.openshift.io/role', operator: 'NotIn', values: ['master'] },
            ],
          },
        },
      }),
    );
    const r = keelson(['mc', 'render', '--pool', 'gpu', dir, '--json']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as {
      name: string;
      source: string[];
      machineConfig: { spec: { kernelArguments: string[] } };
    };
    expect(out.name).toMatch(/^rendered-gpu-[0-9a-f]{32}$/);
    expect(out.source).toEqual(['00-worker', '50-gpu']);
    expect(out.machineConfig.spec.kernelArguments).toEqual(['00-worker', '50-gpu']);
  });
});
