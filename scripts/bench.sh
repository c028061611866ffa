#!/usr/bin/env bash
# npm run bench [-- --sizes 1000,10000 --reps 3 --large-reps 1 --shape kustomize|raw|helmfile --rtt MS --out FILE]
# Measures the action's engine (the CLI of a freshly built bundle) on the test cluster and, when
# TAZUNA_BIN is set, the Tazuna CLI alternately; prints medians as Markdown (see scripts/bench.ts).
# Starts the test cluster when none is running (and stops it again), builds the tools first.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
# shellcheck source=scripts/bootstrap.sh
. scripts/bootstrap.sh
bootstrap_node
require_go 'to build the template engine and the test toolchain'
work="$(mktemp -d "${TMPDIR:-/tmp}/tazuna-bench-XXXXXX")"
started_cluster=0
cleanup() {
  if [ "$started_cluster" = 1 ]; then bash scripts/cluster.sh down || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Quiet unless it fails (an assignment, so that set -e sees the failure; eval would not).
if ! tools_env="$(bash scripts/build-tools.sh 2>"$work/build-tools.log")"; then
  cat "$work/build-tools.log" >&2
  exit 1
fi
eval "$tools_env"
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
