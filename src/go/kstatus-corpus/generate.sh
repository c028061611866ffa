#!/usr/bin/env bash
# Regenerates __tests__/fixtures/kstatus/expected.json with kstatus itself: builds the corpus
# generator (this module; pinned cli-utils) into the tools cache, never the repository, and runs
# it over the corpus. `generate.sh --check` prints the output instead of writing it.
# (docs/health.md#kstatus-parity)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
corpus="$here/../../../__tests__/fixtures/kstatus"
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"; fi
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
cache="${TAZUNA_ACTION_CACHE:-$(cd ~ && pwd)/.cache/tazuna-action}/kstatus-corpus"
key="$( (cd "$here" && cat go.mod go.sum ./*.go && go version) | sha256sum | cut -c1-32)"
bin="$cache/$key/kstatus-corpus"
if [ ! -x "$bin" ]; then
  mkdir -p "$cache/$key"
  (cd "$here" && go build -trimpath -o "$bin.tmp" .)
  mv "$bin.tmp" "$bin"
fi
if [ "${1:-}" = --check ]; then
  "$bin" "$corpus"
else
  "$bin" "$corpus" >"$corpus/expected.json"
fi
