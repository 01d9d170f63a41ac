import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // a hang detector, not a speed check: CI runs every package's suite at once on 2 cores
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // private TMPDIR for the run, removed (gpg agents stopped) at teardown: tests leave nothing behind
    globalSetup: ['../../scripts/vitest-private-tmp.mjs'],
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
