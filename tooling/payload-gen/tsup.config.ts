import { defineConfig } from 'tsup';

export default defineConfig({
  // dist/index.js: @keelson/rehearsal's release generator, bundled from its source (see src/bundle.ts)
  entry: { cli: 'src/cli.ts', index: 'src/bundle.ts' },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  dts: { entry: { index: 'src/bundle.ts' }, compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  splitting: false,
});
