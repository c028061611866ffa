#!/usr/bin/env bash
# Runs every test: the unit suite and the integration suite against a throwaway kube-apiserver
# with real kustomize and helm. Works on a fresh clone: brings Node 24 and node_modules
# (scripts/bootstrap.sh), checks for Go, then builds the test toolchain (cached).
# Extra arguments go to jest (for example: --selectProjects unit). Ends with one plain line
# `tests: N passed, N failed, N skipped` that CI systems read.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bootstrap.sh
. scripts/bootstrap.sh
bootstrap_node
require_go 'to build the template engine and the test toolchain'
if [[ " $* " != *" --selectProjects unit "* ]]; then
  bash scripts/build-tools.sh
  # The test OCI registry of the chart and oras tests (cached; a first build downloads and
  # compiles go-containerregistry, minutes on a busy machine, inside no test's time).
  bash __tests__/registry/build.sh >/dev/null
fi
# The Go programs (cached; a first build of the render module takes minutes, longer
# than one test may wait).
bash src/go/template/engine/build.sh >/dev/null
bash src/go/render/module/build.sh kustomize >/dev/null
bash src/go/render/module/build.sh helm >/dev/null
bash src/go/render/module/build.sh kustomize native >/dev/null
bash src/go/render/module/build.sh helm native >/dev/null
# The render module's Go tests, which integration/render/go-unit.test.ts runs: compiled here
# (Go caches them; Helm's packages take a minute or two the first time).
if [[ " $* " != *" --selectProjects unit "* ]]; then
  (cd src/go/render/module && GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 go test -run '^$' ./... >/dev/null)
fi
export NODE_OPTIONS="--experimental-vm-modules ${NODE_OPTIONS:-}"
export NODE_NO_WARNINGS=1
results=$(mktemp)
trap 'rm -f "$results"' EXIT
status=0
node node_modules/jest/bin/jest.js --ci --json --outputFile="$results" "$@" || status=$?
if [ -s "$results" ]; then
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
    const skipped = r.numPendingTests + r.numTodoTests
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`)
  ' "$results"
fi
exit "$status"
