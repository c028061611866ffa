#!/usr/bin/env bash
# Builds the render module (this directory) to WebAssembly with src/go/build-wasm.sh and prints
# the cache directory holding render.wasm.br, render-wasm_exec.js and render-licenses.txt.
# Used by scripts/bundle-extra.sh (dist/) and by the tests (docs/renderers.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../../build-wasm.sh" "$here" render
