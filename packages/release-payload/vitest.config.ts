import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // private TMPDIR for the run, removed (gpg agents stopped) at teardown: tests leave nothing behind
    globalSetup: ['../../scripts/vitest-private-tmp.mjs'],
    // bombs, 4 MB templates and registries on a loaded 2-core CI machine: the 5 s default is too tight there
    testTimeout: 30_000,
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
