import { defineConfig } from 'tsup';

export default defineConfig({
  // each bin is a wrapper that checks the Node version, then loads src/bin/<name>.ts
  entry: {
    index: 'src/index.ts',
    ...Object.fromEntries(
      ['machine-config-operator', 'machine-config-controller', 'machine-config-server', 'machine-config-daemon'].map(
        (b) => [`bin/${b}`, `src/bin/checked/${b}.ts`],
      ),
    ),
  },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: { entry: 'src/index.ts' },
  splitting: true,
});
