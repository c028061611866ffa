#!/usr/bin/env bash
# Builds the action bundle: index.js (ESM, minified, with licenses.txt) plus the command-line
# shim cli.js, into dist/ (committed; scripts/check-dist.sh verifies it) or into the directory
# given as $1 (tests build a fresh bundle there instead of trusting the committed one).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
. scripts/bootstrap.sh
bootstrap_node
rm -rf "$out"
node node_modules/@vercel/ncc/dist/ncc/cli.js build src/index.ts -o "$out" \
  --minify --license licenses.txt --target es2023 --quiet
if [ -f scripts/bundle-extra.sh ]; then bash scripts/bundle-extra.sh "$out"; fi
cat > "$out/cli.js" <<'SHIM'
#!/usr/bin/env node
import { runCli } from './index.js'
process.exitCode = await runCli(process.argv.slice(2))
SHIM
chmod +x "$out/cli.js"
