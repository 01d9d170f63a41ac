#!/bin/sh
# Extract the upstream files the transcription reads (tests, schemas, error texts) from a coreos/butane git
# directory at the pinned revision into OUT (default /tmp/bt).
# usage: extract.sh BUTANE_GIT_DIR [OUT]
set -eu
REPO=$1
OUT=${2:-/tmp/bt}
REV=cb34e120e5267bfd5bdfa83fa8c2e44e06dedda2
mkdir -p "$OUT"
git -C "$REPO" archive "$REV" base config vendor/github.com/coreos/ignition/v2/config | tar -x -C "$OUT"
echo "extracted to $OUT; now: BUTANE_SRC=$OUT python3 openshift.py && python3 fcos.py && python3 base.py"
