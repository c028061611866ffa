#!/usr/bin/env bash
# Called by scripts/bundle.sh with the dist directory as $1: puts our two WebAssembly programs
# (src/go/build-wasm.sh) next to the bundle, where src/adapters/go-wasm-files.ts looks first:
# the Go template engine (src/go/template/engine) and the render module (src/go/render/module).
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:?usage: bundle-extra.sh DIST_DIR}"
for program in gotemplate:src/go/template/engine render:src/go/render/module; do
  name="${program%%:*}"
  built="$(bash "${program#*:}/build.sh")"
  cp "$built/$name.wasm.br" "$built/$name-wasm_exec.js" "$built/$name-licenses.txt" "$dist"/
done
