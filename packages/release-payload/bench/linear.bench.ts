/**
 * Template rendering and concatenated-JSON parsing of one large manifest at 1, 10 and 34 MB (issue 14 item 4): both
 * compute line numbers from an index built once, so time grows linearly with size.
 */
import { test } from 'vitest';
import { parseManifestFile, renderTemplate, type PayloadIssue } from '../src/index.js';

const MB = 1024 * 1024;
const cfg = {
  ReleaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'a'.repeat(64),
  ClusterProfile: 'self-managed-high-availability',
  Images: { cli: 'quay.io/x/cli@sha256:' + 'b'.repeat(64) },
};

/** A YAML manifest of about `bytes` bytes with a template action on every line. */
function templated(bytes: number): string {
  const head =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: openshift-cluster-version\ndata:\n';
  const line = '  k{{"x"}}: "{{.ReleaseImage}} {{ index .Images "cli" }}"\n';
  return head + line.repeat(Math.ceil(bytes / line.length));
}

/** Concatenated JSON objects (no separators but newlines) of about `bytes` bytes. */
function concatenatedJson(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const s =
      JSON.stringify(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: 'ns' },
          data: { k: 'v'.repeat(200) },
        },
        null,
        1,
      ) + '\n';
    parts.push(s);
    n += s.length;
  }
  return parts.join('');
}

for (const size of [1, 10, 34]) {
  const tpl = templated(size * MB);
  const json = concatenatedJson(size * MB);
  test(`${size} MB manifest`, { timeout: 600_000 }, async ({ bench }) => {
    await bench.compare(
      bench(`renderTemplate ${size} MB`, () => {
        renderTemplate(tpl, cfg, '0000_00_big.yaml');
      }),
      bench(`parseManifestFile concatenated JSON ${size} MB`, () => {
        const issues: PayloadIssue[] = [];
        parseManifestFile(json, '0000_00_big.json', 'release-manifests', issues);
      }),
      { iterations: 2, time: 0, warmupIterations: 0, warmupTime: 0 },
    );
  });
}
