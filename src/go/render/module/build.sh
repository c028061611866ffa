#!/usr/bin/env bash
# Builds one of the two render programs of this module to WebAssembly with src/go/build-wasm.sh
# and prints the cache directory holding NAME.wasm.br, NAME-wasm_exec.js and NAME-licenses.txt:
#   build.sh kustomize   → render-kustomize.*  (krusty; loaded for `type: kustomize`)
#   build.sh helm        → render-helm.*       (the Helm SDK; loaded for `type: helmfile`)
# Two programs, not one: krusty alone is a quarter of the size and starts in a fifth of the
# time (docs/renderers.md). Used by scripts/bundle-extra.sh (dist/) and by the tests.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
program="${1:?usage: build.sh kustomize|helm}"
case "$program" in
  kustomize | helm) ;;
  *) echo "build.sh: unknown render program $program (kustomize or helm)" >&2; exit 2 ;;
esac
exec bash "$here/../../build-wasm.sh" "$here" "render-$program" "./cmd/$program"
