#!/usr/bin/env bash
# Builds one of the two render programs of this module with src/go/build-go.sh and prints the
# cache directory holding its artifacts and NAME-licenses.txt:
#   build.sh kustomize          → render-kustomize.wasm.br (krusty; loaded for `type: kustomize`)
#   build.sh helm               → render-helm.wasm.br      (the Helm SDK; loaded for `type: helmfile`)
#   build.sh kustomize native   → render-kustomize-linux-{x64,arm64}.zst (krusty built for Linux,
#                                 used there instead of the WebAssembly; docs/renderers.md#native-programs)
#   build.sh helm native        → render-helm-linux-{x64,arm64}.zst (the same for the Helm SDK)
# Two programs, not one: krusty alone is a quarter of the size and starts in a fifth of the
# time (docs/renderers.md). Used by scripts/bundle-extra.sh (dist/) and by the tests.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
program="${1:?usage: build.sh kustomize|helm [native]}"
target="${2:-wasm}"
case "$program/$target" in
  kustomize/wasm | helm/wasm | kustomize/native | helm/native) ;;
  *) echo "build.sh: no render program $program for $target (kustomize or helm, wasm or native)" >&2; exit 2 ;;
esac
exec bash "$here/../../build-go.sh" "$here" "render-$program" "./cmd/$program" "$target"
