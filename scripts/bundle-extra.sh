#!/usr/bin/env bash
# Called by scripts/bundle.sh with the dist directory as $1: puts our two WebAssembly programs
# (src/go/build-wasm.sh) next to the bundle, where src/adapters/go-wasm-files.ts looks first:
# the Go template engine (src/go/template/engine) and the two render programs
# (src/go/render/module: krusty, and the Helm SDK).
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:?usage: bundle-extra.sh DIST_DIR}"
copy() {
  cp "$2/$1.wasm.br" "$2/$1-wasm_exec.js" "$dist"/
}
engine="$(bash src/go/template/engine/build.sh)"
kustomize="$(bash src/go/render/module/build.sh kustomize)"
helm="$(bash src/go/render/module/build.sh helm)"
copy gotemplate "$engine"
cp "$engine/gotemplate-licenses.txt" "$dist"/
copy render-kustomize "$kustomize"
copy render-helm "$helm"
# One licence file for both render programs: they share most modules.
node scripts/merge-licenses.mjs "$dist/render-licenses.txt" \
  "$helm/render-helm-licenses.txt" "$kustomize/render-kustomize-licenses.txt"
