/** Flag parsing and `render` (bootstrap) through the built bin as a child process. */
import { execFile, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCommandLine, parseDuration } from '../src/cli.js';
import { resolvePromQLTarget } from '../src/operator/start.js';
import { writeFixturePayload } from './helpers.js';

const run = promisify(execFile);
const BIN = new URL('../dist/bin/cluster-version-operator.js', import.meta.url).pathname;
const BOOTSTRAP = new URL('../bootstrap/', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('flags', () => {
  it('parses start flags with upstream names and interval flags', () => {
    const c = parseCommandLine([
      'start',
      '--release-image=q@sha256:1',
      '--payload-dir=/p',
      '--listen=127.0.0.1:0',
      '--serving-cert-file=/tls/tls.crt',
      '--serving-key-file=/tls/tls.key',
      '--enable-auto-update',
      '--time-scale=0.1',
      '--reconcile-interval=30s',
      '--node-name=master-0',
      '--v=4',
    ]);
    expect(c).toMatchObject({
      command: 'start',
      verbosity: 4,
      options: {
        releaseImage: 'q@sha256:1',
        payloadDir: '/p',
        listen: '127.0.0.1:0',
        servingCertFile: '/tls/tls.crt',
        servingKeyFile: '/tls/tls.key',
        enableAutoUpdate: true,
        timeScale: 0.1,
        intervals: { minimumReconcileIntervalMs: 30_000 },
        nodeName: 'master-0',
      },
    });
  });
  it('takes the PromQL target flags and Go booleans as upstream start.go', () => {
    const c = parseCommandLine([
      'start',
      '--release-image=q@sha256:1',
      '--node-name=m0',
      '--listen=',
      '--enable-auto-update=false',
      '--use-dns-for-services=true',
      '--metrics-url=https://thanos.example:9091',
      '--metrics-token-file=/t',
      '--metrics-ca-bundle-file=/ca',
    ]);
    if (c.command !== 'start') throw new Error(c.command);
    expect(c.options.enableAutoUpdate).toBeUndefined();
    expect(resolvePromQLTarget(c.options)).toEqual({
      url: 'https://thanos.example:9091',
      tokenFile: '/t',
      caBundleFile: '/ca',
      useDNS: true,
      service: { namespace: 'openshift-monitoring', name: 'thanos-querier' },
    });
    // no flag: upstream DefaultPromQLTarget (the Service's ClusterIP, the SA token, the service CA)
    expect(resolvePromQLTarget({})).toEqual({
      url: 'https://thanos-querier.openshift-monitoring.svc.cluster.local:9091',
      tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
      caBundleFile: '/etc/tls/service-ca/service-ca.crt',
      useDNS: false,
      service: { namespace: 'openshift-monitoring', name: 'thanos-querier' },
    });
    // the Keelson shortcut: a direct endpoint, no token or CA
    expect(resolvePromQLTarget({ promqlTarget: 'http://127.0.0.1:9' })).toMatchObject({
      url: 'http://127.0.0.1:9',
      useDNS: true,
      tokenFile: '',
      caBundleFile: '',
    });
    expect(() =>
      parseCommandLine(['start', '--release-image=x', '--node-name=m', '--enable-auto-update=maybe']),
    ).toThrow(
      'invalid argument "maybe" for "--enable-auto-update" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    expect(() => parseCommandLine(['start', '--release-image=x', '--node-name=m', '--metrics-service='])).toThrow(
      '--use-dns-for-services is disabled, so --metrics-service and --metrics-namespace must be set',
    );
    expect(() => parseCommandLine(['start', '--release-image=x', '--node-name=m', '--metrics-url='])).toThrow(
      'missing --metrics-url flag, it is required',
    );
  });
  it('requires --node-name in cluster (NODE_NAME as default; the host name with --kubeconfig)', () => {
    const saved = process.env['NODE_NAME'];
    delete process.env['NODE_NAME'];
    try {
      expect(() => parseCommandLine(['start', '--release-image=x'])).toThrow('node-name is required');
      const withKc = parseCommandLine(['start', '--release-image=x', '--kubeconfig=/k', '--listen=']);
      expect(withKc.command === 'start' && withKc.options.nodeName).toBe(hostname());
      process.env['NODE_NAME'] = 'from-env';
      const fromEnv = parseCommandLine(['start', '--release-image=x', '--listen=']);
      expect(fromEnv.command === 'start' && fromEnv.options.nodeName).toBe('from-env');
    } finally {
      if (saved === undefined) delete process.env['NODE_NAME'];
      else process.env['NODE_NAME'] = saved;
    }
  });
  it('requires the serving pair unless --listen= (upstream ValidateAndComplete texts)', () => {
    const base = ['start', '--release-image=x', '--node-name=m'];
    // --listen unset is upstream's default 0.0.0.0:9099: HTTPS only
    expect(() => parseCommandLine(base)).toThrow('--listen was not set empty, so --serving-cert-file must be set');
    expect(() => parseCommandLine([...base, '--listen=127.0.0.1:0'])).toThrow(
      '--listen was not set empty, so --serving-cert-file must be set',
    );
    expect(() => parseCommandLine([...base, '--serving-cert-file=/c'])).toThrow(
      '--listen was not set empty, so --serving-key-file must be set',
    );
    const none = parseCommandLine([...base, '--listen=']);
    expect(none.command === 'start' && none.options.listen).toBe('');
    const tls = parseCommandLine([...base, '--serving-cert-file=/c', '--serving-key-file=/k']);
    expect(tls.command === 'start' && tls.options).toMatchObject({ servingCertFile: '/c', servingKeyFile: '/k' });
  });
  it('rejects bad input with typed errors', () => {
    expect(() => parseCommandLine(['start'])).toThrow(/--release-image is required/);
    expect(() => parseCommandLine(['start', '--release-image=x', '--bogus'])).toThrow(/unknown option '--bogus'/);
    // klog's --v is a non-negative integer
    expect(() => parseCommandLine(['start', '--release-image=x', '--node-name=m', '--listen=', '--v=high'])).toThrow(
      '--v: expected a non-negative integer, got "high"',
    );
    expect(() => parseDuration('--status-interval', '5 minutes')).toThrow(
      /time: unknown unit " minutes" in duration "5 minutes"/,
    );
    // Go time.ParseDuration: a bare number is a usage error, not milliseconds; compound durations work
    expect(() => parseDuration('--lease-duration', '137')).toThrow(/time: missing unit in duration "137"/);
    expect(() => parseDuration('--lease-duration', '0s')).toThrow(/must be a positive duration/);
    expect(parseDuration('--x', '1m30s')).toBe(90_000);
    expect(parseDuration('--x', '137s')).toBe(137_000);
    expect(parseDuration('--x', '1h')).toBe(3_600_000);
  });
  it('the bin exits 2 on a bad command line, with the message and the usage text on stderr', () => {
    const r = spawnSync(process.execPath, [BIN, 'start', '--release-image=x', '--bogus'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
    expect(r.stderr).toContain('Usage:\n  cluster-version-operator start');
    const h = spawnSync(process.execPath, [BIN, 'start', '--help'], { encoding: 'utf8' });
    expect(h.status).toBe(0);
    expect(h.stdout).toContain('start flags:');
  });
});

describe('render', () => {
  it('renders manifests/ with the release image (templates are fatal here)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cvo-render-'));
    dirs.push(dir);
    const payload = await writeFixturePayload(join(dir, 'payload'), '4.18.0');
    await cp(BOOTSTRAP, join(payload, 'bootstrap'), { recursive: true });
    const { stdout } = await run(process.execPath, [
      BIN,
      'render',
      `--payload-dir=${payload}`,
      `--output-dir=${join(dir, 'out')}`,
      '--release-image=quay.io/r@sha256:1',
    ]);
    expect(stdout).toContain('rendered 8 files');
    const pod = await readFile(join(dir, 'out', 'bootstrap', 'bootstrap-pod.yaml'), 'utf8');
    expect(pod).toContain('include.release.openshift.io/self-managed-high-availability: "true"');
    expect(pod).toContain("image: 'quay.io/r@sha256:1'");
    expect((await readdir(join(dir, 'out', 'manifests'))).sort()).toEqual([
      '0000_00_cluster-version-operator_00_namespace.yaml',
      '0000_00_cluster-version-operator_01_adminack_configmap.yaml',
      '0000_00_cluster-version-operator_01_admingate_configmap.yaml',
      '0000_00_cluster-version-operator_01_serviceaccount.yaml',
      '0000_00_cluster-version-operator_02_roles.yaml',
      '0000_00_cluster-version-operator_03_deployment.yaml',
      '0000_00_cluster-version-operator_04_service.yaml',
    ]);
    const dep = await readFile(
      join(dir, 'out', 'manifests', '0000_00_cluster-version-operator_03_deployment.yaml'),
      'utf8',
    );
    expect(dep).toContain("image: 'quay.io/r@sha256:1'");
    expect(dep).toContain('--release-image=quay.io/r@sha256:1');
    expect(dep).toContain("value: 'self-managed-high-availability'");
    await expect(run(process.execPath, [BIN, 'render', `--output-dir=${join(dir, 'o2')}`])).rejects.toThrow(
      /--release-image is required/,
    );
  });

  it('filters by the FeatureGate and ClusterVersion manifests as upstream Render, and reports bad inputs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cvo-render-'));
    dirs.push(dir);
    const payload = await writeFixturePayload(join(dir, 'payload'), '4.18.0');
    await cp(BOOTSTRAP, join(payload, 'bootstrap'), { recursive: true });
    const policy = (name: string, extra: Record<string, string>): string =>
      [
        'apiVersion: config.openshift.io/v1',
        'kind: ClusterImagePolicy',
        'metadata:',
        `  name: ${name}`,
        '  annotations:',
        '    include.release.openshift.io/self-managed-high-availability: "true"',
        ...Object.entries(extra).map(([k, v]) => `    ${k}: "${v}"`),
        'spec:',
        '  scopes: [quay.io/x]',
      ].join('\n');
    await writeFile(
      join(payload, 'release-manifests', '0000_10_policies.yaml'),
      [
        policy('always', {}),
        policy('techpreview', { 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade' }),
        policy('gated', { 'release.openshift.io/feature-gate': 'SigstoreImageVerification' }),
      ].join('\n---\n'),
    );
    const fg = join(dir, 'fg.yaml');
    await writeFile(
      fg,
      'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {featureSet: TechPreviewNoUpgrade}\n' +
        'status:\n  featureGates:\n  - version: 4.18.0\n    enabled: [{name: SigstoreImageVerification}]\n    disabled: []\n',
    );
    const cv = join(dir, 'cv.yaml');
    await writeFile(
      cv,
      'apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nspec:\n  clusterID: x\n  overrides:\n' +
        '  - {kind: Service, group: "", namespace: openshift-cluster-version, name: cluster-version-operator, unmanaged: true}\n',
    );
    const render = (out: string, ...flags: string[]) =>
      run(process.execPath, [
        BIN,
        'render',
        `--payload-dir=${payload}`,
        `--output-dir=${join(dir, out)}`,
        '--release-image=quay.io/r@sha256:1',
        ...flags,
      ]);
    await render('default');
    expect(await readFile(join(dir, 'default', 'manifests', '0000_10_policies.yaml'), 'utf8')).toMatch(
      /^apiVersion: config.openshift.io\/v1\nkind: ClusterImagePolicy\nmetadata:\n {2}name: always\n[^]*scopes: \[quay.io\/x\]\n$/,
    );
    await render('tp', `--feature-gate-manifest-path=${fg}`, `--cluster-version-manifest-path=${cv}`);
    const tp = await readFile(join(dir, 'tp', 'manifests', '0000_10_policies.yaml'), 'utf8');
    expect(tp.split('\n---\n').map((d) => /name: (\S+)/.exec(d)?.[1])).toEqual(['always', 'techpreview', 'gated']);
    expect(await readdir(join(dir, 'tp', 'manifests'))).not.toContain(
      '0000_00_cluster-version-operator_04_service.yaml',
    );
    await writeFile(join(dir, 'two.yaml'), `${await readFile(fg, 'utf8')}---\n${await readFile(fg, 'utf8')}`);
    await expect(render('bad', `--feature-gate-manifest-path=${join(dir, 'two.yaml')}`)).rejects.toThrow(
      /FeatureGate manifest .*two\.yaml contains 2 manifests, but expected only one/,
    );
    await expect(render('bad', `--cluster-version-manifest-path=${fg}`)).rejects.toThrow(
      /ClusterVersion manifest .*fg\.yaml GroupVersionKind config.openshift.io\/v1, Kind=FeatureGate, but expected config.openshift.io\/v1, Kind=ClusterVersion/,
    );
  });
});
