#!/usr/bin/env bash
# Builds the Go template engine (this directory) to WebAssembly with src/go/build-go.sh and
# prints the cache directory holding gotemplate.wasm.br, gotemplate-wasm_exec.js and
# gotemplate-licenses.txt. Used by scripts/bundle-extra.sh (dist/) and by the tests
# (src/go/template/README.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../../build-go.sh" "$here" gotemplate
