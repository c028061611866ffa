#!/usr/bin/env bash
# npm run bench [-- --sizes 1000,10000 --reps 3 --large-reps 1 --shape kustomize|raw --out FILE]
# Measures the action's engine (the CLI of a freshly built bundle) on the test cluster and, when
# TAZUNA_BIN is set, the Tazuna CLI alternately; prints medians as Markdown (see scripts/bench.ts).
# Starts the test cluster when none is running (and stops it again), builds the tools first.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
export PATH="$(bash scripts/node24.sh):$PATH"
work="$(mktemp -d "${TMPDIR:-/tmp}/tazuna-bench-XXXXXX")"
started_cluster=0
cleanup() {
  if [ "$started_cluster" = 1 ]; then bash scripts/cluster.sh down || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

eval "$(bash scripts/build-tools.sh 2>/dev/null)"
if bash scripts/cluster.sh env >"$work/cluster.env" 2>/dev/null; then
  echo 'bench: reusing the running test cluster' >&2
else
  started_cluster=1
  bash scripts/cluster.sh up >"$work/cluster.env"
fi
# shellcheck disable=SC1091
. "$work/cluster.env"
echo "bench: building the bundle into $work/dist" >&2
bash scripts/bundle.sh "$work/dist"
export BENCH_BUNDLE="$work/dist"
node --import ./__tests__/bench/ts-resolve.mjs scripts/bench.ts "$@"
