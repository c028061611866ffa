#!/usr/bin/env bash
# Called by scripts/bundle.sh with the dist directory as $1: puts our three WebAssembly programs
# (src/go/build-go.sh) next to the bundle, where src/adapters/render/go-wasm-files.ts looks first:
# the Go template engine (src/go/template/engine) and the two render programs
# (src/go/render/module: krusty, and the Helm SDK); and the render programs' native builds for
# Linux x64 and arm64 (src/adapters/render/native-program.ts, docs/renderers.md#native-programs).
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:?usage: bundle-extra.sh DIST_DIR}"
engine="$(bash src/go/template/engine/build.sh)"
kustomize="$(bash src/go/render/module/build.sh kustomize)"
helm="$(bash src/go/render/module/build.sh helm)"
native="$(bash src/go/render/module/build.sh kustomize native)"
helm_native="$(bash src/go/render/module/build.sh helm native)"
cp "$engine/gotemplate.wasm.br" "$engine/gotemplate-licenses.txt" "$dist"/
cp "$kustomize/render-kustomize.wasm.br" "$helm/render-helm.wasm.br" "$dist"/
cp "$native/render-kustomize-linux-x64.zst" "$native/render-kustomize-linux-arm64.zst" "$dist"/
cp "$helm_native/render-helm-linux-x64.zst" "$helm_native/render-helm-linux-arm64.zst" "$dist"/
# Go's glue, once: the same Go version built all three (src/adapters/render/go-wasm-files.ts).
glue="$engine/gotemplate-wasm_exec.js"
for other in "$kustomize/render-kustomize-wasm_exec.js" "$helm/render-helm-wasm_exec.js"; do
  cmp -s "$glue" "$other" || { echo "bundle-extra: $other differs from $glue (built by another Go?)" >&2; exit 1; }
done
cp "$glue" "$dist/go-wasm_exec.js"
# What built each Go program here (src/go/build-go.sh's NAME-build.txt), for the test that
# holds dist/ to its sources (docs/renderers.md#keeping-the-history-small).
{
  echo "# The Go programs of dist/: artifact, its sha256, the sha256 of its inputs (src/go/build-go.sh), Go."
  echo "# Written by scripts/bundle-extra.sh; checked by __tests__/unit/foundation/go-builds.test.ts."
  for entry in "$engine gotemplate.wasm.br" "$kustomize render-kustomize.wasm.br" "$helm render-helm.wasm.br" \
    "$native render-kustomize-linux-x64.zst" "$native render-kustomize-linux-arm64.zst" \
    "$helm_native render-helm-linux-x64.zst" "$helm_native render-helm-linux-arm64.zst"; do
    read -r dir artifact <<<"$entry"
    build="$(echo "$dir"/*-build.txt)"
    printf '%s %s %s %s\n' "$artifact" "$(sha256sum <"$dist/$artifact" | cut -d' ' -f1)" \
      "$(sed -n 's/^inputs //p' "$build")" "$(sed -n 's/^go //p' "$build")"
  done
} >"$dist/go-builds.txt"
# One licence file for the render programs: they share most modules (each native build all of
# its WebAssembly build's).
node scripts/merge-licenses.mjs "$dist/render-licenses.txt" \
  "$helm/render-helm-licenses.txt" "$kustomize/render-kustomize-licenses.txt" \
  "$native/render-kustomize-licenses.txt" "$helm_native/render-helm-licenses.txt"
