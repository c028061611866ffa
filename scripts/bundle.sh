#!/usr/bin/env bash
# Builds dist/: the action (dist/index.js, ESM, minified, with dist/licenses.txt) plus the
# command-line shim dist/cli.js. dist/ is committed; scripts/check-dist.sh verifies it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(bash scripts/node24.sh):$PATH"
rm -rf dist
node node_modules/@vercel/ncc/dist/ncc/cli.js build src/index.ts -o dist --minify --license licenses.txt --target es2023 --quiet
if [ -x scripts/bundle-extra.sh ]; then bash scripts/bundle-extra.sh dist; fi
cat > dist/cli.js <<'SHIM'
#!/usr/bin/env node
import { runCli } from './index.js'
process.exitCode = await runCli(process.argv.slice(2))
SHIM
chmod +x dist/cli.js
