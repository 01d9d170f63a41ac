import { defineConfig } from 'tsup';

export default defineConfig({
  // the bin is a wrapper that checks the Node version, then loads src/bin/cluster-version-operator.ts
  entry: { index: 'src/index.ts', 'bin/cluster-version-operator': 'src/bin/checked/cluster-version-operator.ts' },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: { entry: 'src/index.ts' },
  splitting: true,
});
