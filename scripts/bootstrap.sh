#!/usr/bin/env bash
# What `npm run demo`, `npm test` and `npm run bench` need before they start, so that they work
# on a fresh clone (no `npm ci` yet, empty ~/.cache/tazuna-action). Source it, then call:
#   bootstrap_node       puts Node 24 first on PATH (scripts/node24.sh installs it into
#                        $TAZUNA_ACTION_CACHE, default ~/.cache/tazuna-action, when the machine's
#                        node is older) and runs `npm ci` when node_modules is missing or was
#                        installed from a different package-lock.json
#   require_go PURPOSE   puts Go on PATH (also /usr/local/go/bin, where the go.dev archive goes)
#                        or exits 1 with one line saying what to install
# `bash scripts/bootstrap.sh` runs bootstrap_node alone. Messages go to stderr only, since
# callers may capture stdout.

TAZUNA_GO_MIN_MINOR=26

# node_modules matches package-lock.json: the sha256 of the lock it was installed from is in
# node_modules/.tazuna-lock-sha; without that stamp (an install made by hand), node_modules is
# current unless package-lock.json is newer than the node_modules/.package-lock.json npm wrote.
_bootstrap_deps_current() { # REPO LOCK_SHA
  local repo=$1 want=$2 stamp="$1/node_modules/.tazuna-lock-sha"
  [ -f "$repo/node_modules/.package-lock.json" ] || return 1
  if [ -f "$stamp" ]; then
    [ "$(cat "$stamp")" = "$want" ]
    return
  fi
  [ "$repo/package-lock.json" -nt "$repo/node_modules/.package-lock.json" ] && return 1
  echo "$want" >"$stamp"
}

bootstrap_node() {
  local repo cache node_bin want
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  cache="${TAZUNA_ACTION_CACHE:-$HOME/.cache/tazuna-action}"
  node_bin="$(bash "$repo/scripts/node24.sh")" || {
    echo "error: could not install Node 24 from the npm registry (see above)" >&2
    exit 1
  }
  export PATH="$node_bin:$PATH"
  want="$(sha256sum "$repo/package-lock.json" | cut -d' ' -f1)"
  _bootstrap_deps_current "$repo" "$want" && return 0
  mkdir -p "$cache"
  # One `npm ci` at a time: a second script starting meanwhile waits and then finds it done.
  (
    flock 8
    _bootstrap_deps_current "$repo" "$want" && exit 0
    echo "bootstrap: installing the dependencies (npm ci) into $repo/node_modules" >&2
    rm -f "$repo/node_modules/.tazuna-lock-sha"
    # (errexit does not apply inside this subshell, its status being tested: hence the exits)
    cd "$repo" || exit 1
    npm ci --no-audit --no-fund >&2 || exit 1
    echo "$want" >"$repo/node_modules/.tazuna-lock-sha"
  ) 8>"$cache/npm-ci.lock" || {
    echo "error: npm ci failed (see above)" >&2
    exit 1
  }
}

require_go() { # PURPOSE, e.g. "to build the test toolchain"
  local purpose=$1 min="1.$TAZUNA_GO_MIN_MINOR" version=''
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  fi
  if command -v go >/dev/null 2>&1; then
    version="$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null)" || version=''
    # go1.26.8, go1.27rc1, devel go1.27-abcdef
    if [[ $version =~ go1\.([0-9]+) ]] && ((BASH_REMATCH[1] >= TAZUNA_GO_MIN_MINOR)); then
      return 0
    fi
    echo "error: Go $min or newer is needed $purpose, found ${version:-an unusable $(command -v go)}; install it from https://go.dev/dl/ and put it on PATH" >&2
  else
    echo "error: Go $min or newer is needed $purpose; install it from https://go.dev/dl/ and put it on PATH" >&2
  fi
  exit 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  bootstrap_node
  echo "bootstrap: node $(node --version) ($(command -v node)), dependencies current" >&2
fi
