#!/usr/bin/env bash
# The whole test suite: install, build, run every package's tests, the pack smoke test, and print
# one closing line `Tests: N passed, N failed, N skipped`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
ensure_debian ostree:ostree gpg:gnupg openssl:openssl skopeo:skopeo docker-registry:docker-registry tinyproxy:tinyproxy kubectl:kubernetes-client chromium:chromium strace:strace
rm -rf packages/*/.vitest apps/*/.vitest tooling/*/.vitest .keelson/checks.json .keelson/pack-smoke.json
status=0
pnpm turbo run build test --continue --output-logs=new-only || status=$?
# static checks count as one test each in the summary: strict typecheck (tests included), eslint, and
# "stands alone" (nothing refers to data outside the repository)
checks_passed=0 checks_failed=0
run_check() {
  if "$@"; then
    checks_passed=$((checks_passed + 1))
  else
    checks_failed=$((checks_failed + 1)); status=1
    echo "static check failed: $*" >&2
  fi
}
for check in ${KEELSON_CHECKS:-typecheck lint}; do
  run_check pnpm turbo run "$check" --continue --output-logs=errors-only
done
run_check node scripts/check-standalone.mjs
# every ```ts block of a README type-checks against the built packages, as a user would import them
run_check node scripts/check-readme-examples.mjs
# the repository's prettier config, applied to every source file (.prettierrc.json; .prettierignore keeps upstream data as is)
run_check pnpm exec prettier --check --log-level warn '**/*.{ts,mts,cts,js,mjs,cjs}'
mkdir -p .keelson
printf '{"passed":%d,"failed":%d}\n' "$checks_passed" "$checks_failed" > .keelson/checks.json
node scripts/pack-smoke.mjs || status=$?
node scripts/test-summary.mjs || status=$?
exit $status
