#!/usr/bin/env bash
# Builds the action bundle: index.js (ESM, minified) and the chunks it imports lazily (the
# cluster adapters with @kubernetes/client-node), one licenses.txt for all of them, plus the
# command-line shim cli.js, into dist/ (committed; scripts/check-dist.sh verifies it) or into the directory
# given as $1 (tests build a fresh bundle there instead of trusting the committed one).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
. scripts/bootstrap.sh
bootstrap_node
rm -rf "$out"
stats="$(mktemp "${TMPDIR:-/tmp}/tazuna-ncc-stats-XXXXXX.json")"
trap 'rm -f "$stats"' EXIT
node node_modules/@vercel/ncc/dist/ncc/cli.js build src/index.ts -o "$out" \
  --minify --target es2023 --quiet --stats-out "$stats"
# ncc minifies only index.js and licenses only its last chunk: finish both (see the script).
node scripts/finish-bundle.mjs "$out" "$stats"
if [ -n "${BUNDLE_STATS:-}" ]; then cp "$stats" "$BUNDLE_STATS"; fi
if [ -f scripts/bundle-extra.sh ]; then bash scripts/bundle-extra.sh "$out"; fi
# The command line keeps V8's compiled code of the bundle in the user's own cache, as npm does
# (module.enableCompileCache; docs/benchmarks.md#compile-cache). The action does not: a hosted
# runner starts empty every job, and a cache shared between jobs would be code others can write.
cat > "$out/cli.js" <<'SHIM'
#!/usr/bin/env node
import module from 'node:module'
import os from 'node:os'
import path from 'node:path'
const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
module.enableCompileCache?.(path.join(cache, 'tazuna-action', 'compile-cache'))
const { runCli } = await import('./index.js')
process.exitCode = await runCli(process.argv.slice(2))
SHIM
chmod +x "$out/cli.js"
# What it was built from, for scripts/demo.sh (see the script).
node scripts/source-id.mjs >"$out/source-id.txt"
# The commit and date `tazuna-action version` prints: the commit that last changed the sources,
# so a rebuild at a later commit stamps the same (see the script).
node scripts/source-commit.mjs >"$out/build-info.json"
# Last: the bundle's identity, for render records (see the script).
node scripts/stamp-build.mjs "$out"
