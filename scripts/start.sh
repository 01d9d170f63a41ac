#!/usr/bin/env bash
# The main job on an embedded default: install, build, generate a realistic synthetic release payload,
# and print its CVO task graph (`keelson payload graph`). Extra arguments go to `keelson payload graph`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm turbo run build --output-logs=errors-only >&2
demo=".keelson/demo-payload"
if [ ! -d "$demo/release-manifests" ]; then
  node tooling/payload-gen/dist/cli.js --out "$demo" >&2
fi
node apps/keelson/dist/bin.js payload graph "$demo" "$@"
