#!/usr/bin/env bash
# The whole test suite: install, build, run every package's tests, the pack smoke test, and print
# one closing line `Tests: N passed, N failed, N skipped`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
ensure_debian ostree:ostree gpg:gnupg openssl:openssl skopeo:skopeo docker-registry:docker-registry kubectl:kubernetes-client
rm -rf packages/*/.vitest apps/*/.vitest tooling/*/.vitest
status=0
pnpm turbo run build test --continue --output-logs=new-only || status=$?
node scripts/pack-smoke.mjs || status=$?
node scripts/test-summary.mjs || status=$?
exit $status
