#!/usr/bin/env bash
# Builds one of our Go programs, once per program source, target and Go version, into
# $TAZUNA_ACTION_CACHE/wasm/<key>/ (default ~/.cache/tazuna-action) and prints that directory.
# Usage: build-go.sh MODULE_DIR NAME [PACKAGE] [TARGET] (PACKAGE: the main package inside the
# module, default the module's root; TARGET: wasm, the default, or native). The directory holds:
#   wasm:   NAME.wasm.br       GOOS=js GOARCH=wasm
#           NAME-wasm_exec.js  the glue of the same Go version ($(go env GOROOT)/lib/wasm/wasm_exec.js)
#   native: NAME-linux-x64.zst, NAME-linux-arm64.zst   GOOS=linux, GOARCH=amd64 / arm64, static
#           (docs/renderers.md#native-kustomize)
#   both:   NAME-licenses.txt  licences of Go and of every module compiled in
#           NAME-build.txt     `inputs <digest>` and `go <version>`: what built it, which
#                              scripts/bundle-extra.sh records in dist/go-builds.txt
# Every program is built with -trimpath -buildvcs=false -ldflags='-s -w' and compressed by Node:
# WebAssembly with brotli q11 (brotli beats gzip -9 by about a third), native programs with
# zstd level 19 (5% larger than brotli, but unpacked in a fifth of the time: 17 ms against
# 89 ms for krusty, on every run that renders).
# <key> is the sha256 of the inputs digest (the sha256 of the module's sources, this script, the
# name, package and target) and `go version`; the same key gives the same bytes (no VCS stamp,
# no paths; brotli output depends only on its input and parameters), which keeps check-dist
# stable and dist/ unchanged until the Go side changes (docs/renderers.md#keeping-the-history-small).
# BUILD_GO_INPUTS=print prints the inputs digest and builds nothing (no Go needed).
# Used by the modules' build.sh (src/go/template/engine, src/go/render/module).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage='usage: build-go.sh MODULE_DIR NAME [PACKAGE] [wasm|native]'
module="$(cd "${1:?$usage}" && pwd)"
name="${2:?$usage}"
package="${3:-.}"
target="${4:-wasm}"
case "$target" in wasm | native) ;; *) echo "$usage" >&2; exit 2 ;; esac
cache="${TAZUNA_ACTION_CACHE:-$(cd ~ && pwd)/.cache/tazuna-action}/wasm" # ~: HOME, else the passwd entry
log() { printf '%s: %s\n' "$name" "$*" >&2; }
# The module's sources and those of the local modules its go.mod replaces (`replace X => ../dir`:
# the render module's Helm program serves the template engine's code too).
local_modules() { sed -n 's|^replace [^ ]* => \(\.\.*/[^ ]*\)$|\1|p' "$module/go.mod"; }
sources() {
  (cd "$module" && for dir in . $(local_modules); do
    find "$dir" -type f \( -name '*.go' -o -name go.mod -o -name go.sum -o -name build.sh \)
  done | LC_ALL=C sort)
}
inputs="$( (cd "$module" && sources | xargs sha256sum && sha256sum <"$here/build-go.sh" && echo "$name $package $target") | sha256sum | cut -d' ' -f1)"
if [ "${BUILD_GO_INPUTS:-}" = print ]; then
  echo "$inputs"
  exit 0
fi

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go not found (need Go >= 1.26 on PATH)"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

# GOOS/GOARCH and the artifact's name, one line each, for the target.
builds() {
  if [ "$target" = wasm ]; then
    echo "js wasm $name.wasm br"
  else
    echo "linux amd64 $name-linux-x64 zst"
    echo "linux arm64 $name-linux-arm64 zst"
  fi
}
key="$( (echo "$inputs" && go version) | sha256sum | cut -c1-32)"
out="$cache/$key"
ready() {
  [ -f "$out/$name-licenses.txt" ] && [ -f "$out/$name-build.txt" ] || return 1
  [ "$target" = native ] || [ -f "$out/$name-wasm_exec.js" ] || return 1
  while read -r _ _ artifact ext; do [ -f "$out/$artifact.$ext" ] || return 1; done < <(builds)
}
if ready; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.build-$name-$target.lock"
flock 9
if ready; then echo "$out"; exit 0; fi

log "building $out ..."
start=$SECONDS
tmp="$(mktemp -d "$cache/.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$module"
(go mod download || { sleep 5; go mod download; }) >&2
while read -r goos goarch artifact ext; do
  GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=false -ldflags='-s -w' -o "$tmp/$artifact" "$package"
  node -e '
    const zlib = require("node:zlib"), fs = require("node:fs")
    const bytes = fs.readFileSync(process.argv[1])
    const p = zlib.constants
    fs.writeFileSync(process.argv[2], process.argv[2].endsWith(".zst")
      ? zlib.zstdCompressSync(bytes, { params: { [p.ZSTD_c_compressionLevel]: 19 } })
      : zlib.brotliCompressSync(bytes, { params: {
          [p.BROTLI_PARAM_QUALITY]: 11, [p.BROTLI_PARAM_LGWIN]: 24, [p.BROTLI_PARAM_SIZE_HINT]: bytes.length } }))
  ' "$tmp/$artifact" "$tmp/$artifact.$ext"
  rm "$tmp/$artifact"
done < <(builds)
[ "$target" = native ] || cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$tmp/$name-wasm_exec.js"
read -r goos goarch artifact ext < <(builds)
{
  echo "Licences of the Go code compiled into ${artifact/-x64/-*}.$ext ($(go version | cut -d' ' -f3))."
  echo
  echo "== Go standard library"
  cat "$(go env GOROOT)/LICENSE"
  GOOS=$goos GOARCH=$goarch go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' "$package" |
    LC_ALL=C sort -u | { grep -v '^tazuna-action/' || true; } | while read -r path version dir; do
      echo
      echo "== $path $version"
      cat "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/COPYING* 2>/dev/null || echo "(no licence file found)"
    done
} >"$tmp/$name-licenses.txt"
printf 'inputs %s\ngo %s\n' "$inputs" "$(go version | cut -d' ' -f3)" >"$tmp/$name-build.txt"
mkdir -p "$out"
mv -f "$tmp"/* "$out"/
log "built ($target) in $((SECONDS - start))s: $(cd "$out" && du -cb ./*.br ./*.zst 2>/dev/null | tail -1 | cut -f1) bytes (compressed)"
echo "$out"
