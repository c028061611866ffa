#!/usr/bin/env bash
# Builds one of our Go programs to WebAssembly, once per program source and Go version, into
# $TAZUNA_ACTION_CACHE/wasm/<key>/ (default ~/.cache/tazuna-action) and prints that directory.
# Usage: build-wasm.sh MODULE_DIR NAME [PACKAGE] (PACKAGE: the main package inside the module,
# default the module's root). The directory then holds:
#   NAME.wasm.br          GOOS=js GOARCH=wasm, -trimpath -buildvcs=false -ldflags='-s -w', brotli q11
#                         (Node decompresses it; brotli beats gzip -9 by about a third)
#   NAME-wasm_exec.js     the glue of the same Go version ($(go env GOROOT)/lib/wasm/wasm_exec.js)
#   NAME-licenses.txt     licences of Go and of every module compiled into the wasm
# <key> is the sha256 of the module's sources, this script and `go version`; the same key gives
# the same bytes (no VCS stamp, no paths; brotli output depends only on its input and
# parameters), which keeps check-dist stable and dist/ unchanged until the Go side changes.
# Used by the modules' build.sh (src/go/template/engine, src/go/render/module).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$(cd "${1:?usage: build-wasm.sh MODULE_DIR NAME}" && pwd)"
name="${2:?usage: build-wasm.sh MODULE_DIR NAME}"
package="${3:-.}"
cache="${TAZUNA_ACTION_CACHE:-$(cd ~ && pwd)/.cache/tazuna-action}/wasm" # ~: HOME, else the passwd entry
log() { printf '%s: %s\n' "$name" "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go not found (need Go >= 1.26 on PATH)"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

sources() { (cd "$module" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum -o -name build.sh \) | LC_ALL=C sort); }
key="$( (cd "$module" && sources | xargs sha256sum && sha256sum <"$here/build-wasm.sh" && echo "$name $package" && go version) | sha256sum | cut -c1-32)"
out="$cache/$key"
ready() { [ -f "$out/$name.wasm.br" ] && [ -f "$out/$name-wasm_exec.js" ] && [ -f "$out/$name-licenses.txt" ]; }
if ready; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.build-$name.lock"
flock 9
if ready; then echo "$out"; exit 0; fi

log "building $out ..."
start=$SECONDS
tmp="$(mktemp -d "$cache/.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$module"
(go mod download || { sleep 5; go mod download; }) >&2
GOOS=js GOARCH=wasm go build -trimpath -buildvcs=false -ldflags='-s -w' -o "$tmp/$name.wasm" "$package"
node -e '
  const zlib = require("node:zlib"), fs = require("node:fs")
  const wasm = fs.readFileSync(process.argv[1])
  const p = zlib.constants
  fs.writeFileSync(process.argv[2], zlib.brotliCompressSync(wasm, { params: {
    [p.BROTLI_PARAM_QUALITY]: 11, [p.BROTLI_PARAM_LGWIN]: 24, [p.BROTLI_PARAM_SIZE_HINT]: wasm.length } }))
' "$tmp/$name.wasm" "$tmp/$name.wasm.br"
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$tmp/$name-wasm_exec.js"
{
  echo "Licences of the Go code compiled into $name.wasm.br ($(go version | cut -d' ' -f3))."
  echo
  echo "== Go standard library"
  cat "$(go env GOROOT)/LICENSE"
  GOOS=js GOARCH=wasm go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' "$package" |
    LC_ALL=C sort -u | while read -r path version dir; do
      echo
      echo "== $path $version"
      cat "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/COPYING* 2>/dev/null || echo "(no licence file found)"
    done
} >"$tmp/$name-licenses.txt"
rm "$tmp/$name.wasm"
mkdir -p "$out"
mv -f "$tmp"/* "$out"/
log "built in $((SECONDS - start))s: $(wc -c <"$out/$name.wasm.br") bytes (brotli)"
echo "$out"
