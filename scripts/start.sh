#!/usr/bin/env bash
# The main job: install, build, and rehearse a whole OpenShift update on this machine (`keelson rehearse`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
pnpm turbo run build --output-logs=errors-only >&2
# The main job: a whole OpenShift update of a simulated cluster (keelson rehearse), ending with its report.
# Extra arguments go to `keelson rehearse` (e.g. --workers 5 --fault degraded-operator=dns --report r.html).
node apps/keelson/dist/bin.js rehearse "$@"
