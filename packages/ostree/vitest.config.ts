import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['../../scripts/vitest-private-tmp.mjs', 'test/global-setup.ts'],
    // real child processes and real ostree commands: slow on a loaded 2-core CI machine
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
