#!/usr/bin/env bash
# Lints .github/workflows/*.yml with actionlint (`npm run lint` runs this), built from its Go
# module at a pinned version: `go run` downloads it once into Go's module cache and keeps the
# build in Go's build cache, so later runs take about a second. It also checks the `run:`
# scripts with ShellCheck when that is on PATH (hosted Ubuntu runners have it).
# Without Go (also looked for in /usr/local/go/bin, where the go.dev archive goes) it prints one
# line saying it was skipped and succeeds: the lint job of CI sets Go up, so CI never skips it.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.7.12
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "actionlint: skipped (no Go on PATH to build actionlint $version with)"
  exit 0
fi
# GOFLAGS from the environment (-mod=vendor, say) would apply to actionlint's module.
GOFLAGS='' go run "github.com/rhysd/actionlint/cmd/actionlint@$version" "$@"
