import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // a hang detector, not a speed check: CI runs every package's suite at once on 2 cores
    testTimeout: 60_000,
    // two files at a time (vitest's default is one on a 2-core machine): a rehearsal is one event loop plus the CVO
    // process, about one core, so two run side by side in about the time of one on CI's 2 cores
    maxWorkers: 2,
    hookTimeout: 60_000,
    // private TMPDIR for the run, removed (gpg agents stopped) at teardown: tests leave nothing behind
    globalSetup: ['../../scripts/vitest-private-tmp.mjs'],
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
