#!/usr/bin/env bash
# Called by scripts/bundle.sh with the dist directory as $1: puts the Go template engine
# (src/go/template/engine, WebAssembly) next to the bundle, where src/adapters/go-template-files.ts
# looks for it first.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:?usage: bundle-extra.sh DIST_DIR}"
engine="$(bash src/go/template/engine/build.sh)"
cp "$engine"/gotemplate.wasm.br "$engine"/gotemplate-wasm_exec.js "$engine"/gotemplate-licenses.txt "$dist"/
