import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/bin/machine-config-operator.ts', 'src/bin/machine-config-controller.ts', 'src/bin/machine-config-server.ts', 'src/bin/machine-config-daemon.ts'],
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: { entry: 'src/index.ts' },
  splitting: true,
});
