#!/usr/bin/env bash
# Runs every test: the unit suite and the integration suite against a throwaway kube-apiserver
# with real kustomize and helm. Builds the test toolchain first (cached), on Node 24.
# Extra arguments go to jest (for example: --selectProjects unit).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(bash scripts/node24.sh):$PATH"
if [[ " $* " != *" --selectProjects unit "* ]]; then
  bash scripts/build-tools.sh
fi
export NODE_OPTIONS="--experimental-vm-modules ${NODE_OPTIONS:-}"
export NODE_NO_WARNINGS=1
exec node node_modules/jest/bin/jest.js --ci "$@"
