#!/usr/bin/env bash
# Builds the Go template engine (this directory) to WebAssembly, once per engine source and Go
# version, into $TAZUNA_ACTION_CACHE/wasm/<key>/ (default ~/.cache/tazuna-action) and prints
# that directory. It holds:
#   gotemplate.wasm.br        GOOS=js GOARCH=wasm, -trimpath -buildvcs=false -ldflags='-s -w', brotli q11
#                             (2.2 MB against gzip -9's 3.05 MB: dist/ stays near its 8 MB budget;
#                             Node decompresses it in ~55 ms)
#   gotemplate-wasm_exec.js   the glue of the same Go version ($(go env GOROOT)/lib/wasm/wasm_exec.js)
#   gotemplate-licenses.txt   licences of Go and of every module compiled into the wasm
# <key> is the sha256 of this directory's sources and `go version`; the same key gives the same
# bytes (no VCS stamp, no paths; brotli output depends only on its input and parameters), which keeps check-dist stable.
# Used by scripts/bundle-extra.sh (dist/) and by the tests (src/go/template/README.md).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${TAZUNA_ACTION_CACHE:-$HOME/.cache/tazuna-action}/wasm"
log() { printf 'gotemplate: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { log "go not found (need Go >= 1.26 on PATH)"; exit 1; }
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0

sources() { (cd "$here" && find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum -o -name build.sh \) | LC_ALL=C sort); }
key="$( (cd "$here" && sources | xargs sha256sum && go version) | sha256sum | cut -c1-32)"
out="$cache/$key"
if [ -f "$out/gotemplate.wasm.br" ] && [ -f "$out/gotemplate-wasm_exec.js" ] && [ -f "$out/gotemplate-licenses.txt" ]; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.build.lock"
flock 9
if [ -f "$out/gotemplate.wasm.br" ]; then echo "$out"; exit 0; fi

log "building $out ..."
start=$SECONDS
tmp="$(mktemp -d "$cache/.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$here"
(go mod download || { sleep 5; go mod download; }) >&2
GOOS=js GOARCH=wasm go build -trimpath -buildvcs=false -ldflags='-s -w' -o "$tmp/gotemplate.wasm" .
node -e '
  const zlib = require("node:zlib"), fs = require("node:fs")
  const wasm = fs.readFileSync(process.argv[1])
  const p = zlib.constants
  fs.writeFileSync(process.argv[2], zlib.brotliCompressSync(wasm, { params: {
    [p.BROTLI_PARAM_QUALITY]: 11, [p.BROTLI_PARAM_LGWIN]: 24, [p.BROTLI_PARAM_SIZE_HINT]: wasm.length } }))
' "$tmp/gotemplate.wasm" "$tmp/gotemplate.wasm.br"
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$tmp/gotemplate-wasm_exec.js"
{
  echo "Licences of the Go code compiled into gotemplate.wasm.br ($(go version | cut -d' ' -f3))."
  echo
  echo "== Go standard library"
  cat "$(go env GOROOT)/LICENSE"
  GOOS=js GOARCH=wasm go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' . |
    LC_ALL=C sort -u | while read -r path version dir; do
      echo
      echo "== $path $version"
      cat "$dir"/LICENSE* "$dir"/LICENCE* "$dir"/COPYING* 2>/dev/null || echo "(no licence file found)"
    done
} >"$tmp/gotemplate-licenses.txt"
rm "$tmp/gotemplate.wasm"
mkdir -p "$out"
mv -f "$tmp"/* "$out"/
log "built in $((SECONDS - start))s: $(wc -c <"$out/gotemplate.wasm.br") bytes (brotli)"
echo "$out"
