#!/usr/bin/env bash
# Regenerates src/risk/api-lifecycle.json with Kubernetes' own API packages: builds the generator
# (this module) twice into the tools cache, never the repository — against go.mod (k8s.io/api at
# the render module's pin) and against go.v0.35.mod (k8s.io/api v0.35.4, for the kinds the pin no
# longer holds) — and prints the pinned table merged with the older one. `generate.sh --check`
# prints it instead of writing it. (docs/risks.md#apis-on-their-way-out)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
table="$here/../../risk/api-lifecycle.json"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; fi
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
cache="${TAZUNA_ACTION_CACHE:-$(cd ~ && pwd)/.cache/tazuna-action}/api-lifecycle"
key="$( (cd "$here" && cat go.mod go.sum go.v0.35.mod go.v0.35.sum ./*.go && go version) | sha256sum | cut -c1-32)"
dir="$cache/$key"
if [ ! -x "$dir/pinned" ] || [ ! -x "$dir/older" ]; then
  mkdir -p "$dir"
  (cd "$here" && go build -trimpath -o "$dir/pinned.tmp" . && go build -trimpath -modfile=go.v0.35.mod -o "$dir/older.tmp" .)
  mv "$dir/pinned.tmp" "$dir/pinned"
  mv "$dir/older.tmp" "$dir/older"
fi
older="$(mktemp)"
trap 'rm -f "$older"' EXIT
"$dir/older" >"$older"
if [ "${1:-}" = --check ]; then
  "$dir/pinned" -older "$older"
else
  "$dir/pinned" -older "$older" >"$table"
fi
