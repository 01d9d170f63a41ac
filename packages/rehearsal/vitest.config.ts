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
    // `npm test` runs this suite as two lanes (scripts/vitest-lanes.mjs), each with its own report
    reporters: ['default', ['json', { outputFile: process.env['KEELSON_VITEST_JSON'] ?? '.vitest/results.json' }]],
  },
});
