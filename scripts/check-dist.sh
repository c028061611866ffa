#!/usr/bin/env bash
# Fails when dist/ differs from a fresh build of src/ (the committed bundle is what runners run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bundle.sh
if ! git diff --quiet --ignore-space-at-eol --text -- dist/ || [ -n "$(git status --porcelain -- dist/)" ]; then
  echo "dist/ is out of date with src/: run 'npm run bundle' and commit dist/." >&2
  git status --short -- dist/ >&2
  if ! git diff --quiet -- dist/build-info.json; then
    echo "dist/build-info.json names the commit that last changed the sources (scripts/source-commit.mjs):" >&2
    echo "commit the sources first, then 'npm run bundle' and commit dist/ (a clone needs their history)." >&2
  fi
  exit 1
fi
echo "dist/ matches a fresh build of src/"
