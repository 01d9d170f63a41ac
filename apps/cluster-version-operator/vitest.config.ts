import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // private TMPDIR for the run, removed (gpg agents stopped) at teardown: tests leave nothing behind
    globalSetup: ['../../scripts/vitest-private-tmp.mjs'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
    // the benchmarks measure the built operator (`dist/`) loaded by Node, not through vitest's module runner
    server: { deps: { external: [/\/cluster-version-operator\/dist\//] } },
  },
});
