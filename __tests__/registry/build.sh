#!/usr/bin/env bash
# Builds the test OCI registry (this directory: go-containerregistry's pkg/registry behind
# optional basic or bearer auth) once per source and Go version into
# $TAZUNA_ACTION_CACHE/tools/test-registry-<key>/test-registry (default ~/.cache/tazuna-action)
# and prints that path. <key> is the sha256 of this directory's sources and `go version`.
# Started by __tests__/support/chart-servers.ts.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${TAZUNA_ACTION_CACHE:-$HOME/.cache/tazuna-action}/tools"
log() { printf 'test-registry: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go not found (need Go >= 1.26 on PATH)"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

key="$( (cd "$here" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum -o -name build.sh \) |
  LC_ALL=C sort | xargs sha256sum && go version) | sha256sum | cut -c1-16)"
out="$cache/test-registry-$key/test-registry"
if [ -x "$out" ]; then echo "$out"; exit 0; fi

mkdir -p "$cache"
exec 9>"$cache/.test-registry.lock"
flock 9
if [ -x "$out" ]; then echo "$out"; exit 0; fi

log "building $out ..."
start=$SECONDS
cd "$here"
(go mod download || { sleep 5; go mod download; }) >&2
mkdir -p "$(dirname "$out")"
go build -trimpath -buildvcs=false -ldflags='-s -w' -o "$out.tmp.$$" .
mv -f "$out.tmp.$$" "$out"
log "built in $((SECONDS - start))s"
echo "$out"
