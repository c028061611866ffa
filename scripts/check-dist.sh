#!/usr/bin/env bash
# Fails when dist/ differs from a fresh build of src/ (the committed bundle is what runners run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bundle.sh
if ! git diff --quiet --ignore-space-at-eol --text -- dist/ || [ -n "$(git status --porcelain -- dist/)" ]; then
  echo "dist/ is out of date with src/: run 'npm run bundle' and commit dist/." >&2
  git status --short -- dist/ >&2
  exit 1
fi
echo "dist/ matches a fresh build of src/"
