import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', release: 'src/release/index.ts' },
  format: ['esm', 'cjs'],
  target: 'node22',
  platform: 'node',
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  splitting: false,
  treeshake: true,
  // import.meta.url (the operator apps' package.json lookups) in the CommonJS build
  shims: true,
});
