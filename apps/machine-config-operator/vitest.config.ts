import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // private TMPDIR for the run, removed (gpg agents stopped) at teardown: tests leave nothing behind
    globalSetup: ['../../scripts/vitest-private-tmp.mjs'],
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
