#!/usr/bin/env bash
# Scaffolds packages/<name> as a publishable @keelson/<name> library (tsup ESM+CJS+d.ts, vitest).
set -euo pipefail
name="$1"; desc="${2:-}"
d="packages/$name"
mkdir -p "$d/src" "$d/test" "$d/bench"
cat > "$d/package.json" <<JSON
{
  "name": "@keelson/$name",
  "version": "0.1.0",
  "description": "$desc",
  "license": "Apache-2.0",
  "type": "module",
  "sideEffects": false,
  "engines": { "node": ">=22.12.0" },
  "main": "./dist/index.cjs",
  "module": "./dist/index.js",
  "types": "./dist/index.d.cts",
  "exports": {
    ".": {
      "import": { "types": "./dist/index.d.ts", "default": "./dist/index.js" },
      "require": { "types": "./dist/index.d.cts", "default": "./dist/index.cjs" }
    },
    "./package.json": "./package.json"
  },
  "files": ["dist", "README.md", "CHANGELOG.md"],
  "publishConfig": { "access": "public" },
  "scripts": {
    "build": "tsup",
    "test": "vitest run",
    "bench": "vitest bench --run",
    "typecheck": "tsc --noEmit -p .",
    "lint": "eslint ."
  }
}
JSON
cat > "$d/tsconfig.json" <<JSON
{
  "extends": "../../tooling/tsconfig/library.json",
  "compilerOptions": { "rootDir": "." },
  "include": ["src", "test", "bench", "tsup.config.ts", "vitest.config.ts"]
}
JSON
cat > "$d/tsup.config.ts" <<'TS'
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  target: 'node22',
  platform: 'node',
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  splitting: false,
  treeshake: true,
});
TS
cat > "$d/vitest.config.ts" <<'TS'
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
});
TS
