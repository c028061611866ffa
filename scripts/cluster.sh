#!/usr/bin/env bash
# A test cluster for developers: etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# and kwok with fake Nodes, as the integration tests use.
#   bash scripts/cluster.sh up     build missing tools, start in the background, print env
#   bash scripts/cluster.sh env    print export lines: eval "$(bash scripts/cluster.sh env)"
#   bash scripts/cluster.sh down   stop it (by the PID in the pidfile)
# State: $TAZUNA_ACTION_CACHE/cluster/ (pidfile cluster.pid, env, serve.log, run/ with the
# kubeconfigs, certs and server logs), or TAZUNA_CLUSTER_STATE when set: a second, private
# cluster beside the shared one (scripts/demo.sh starts its own there, on its own ports).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${TAZUNA_ACTION_CACHE:-$HOME/.cache/tazuna-action}"
state="${TAZUNA_CLUSTER_STATE:-$cache/cluster}"
pidfile="$state/cluster.pid"
envfile="$state/env"

running_pid() {
  local pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

cmd_up() {
  if running_pid >/dev/null; then
    echo "cluster already running (pid $(cat "$pidfile"))" >&2
    cmd_env
    return
  fi
  bash "$repo/scripts/build-tools.sh" >/dev/null
  PATH="$(bash "$repo/scripts/node24.sh"):$PATH"
  mkdir -p "$state"
  rm -f "$envfile"
  (
    cd "$repo/__tests__/cluster"
    nohup node --import ./ts-resolve.mjs cluster-cli.ts serve "$state" >"$state/serve.log" 2>&1 &
    echo $! >"$pidfile" # node's own PID: `down` signals it and it stops its children
  )
  local pid start=$SECONDS
  pid=$(cat "$pidfile")
  until [ -f "$envfile" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "cluster failed to start; $state/serve.log:" >&2
      tail -n 30 "$state/serve.log" >&2
      rm -f "$pidfile"
      exit 1
    fi
    if [ $((SECONDS - start)) -gt 180 ]; then
      echo "cluster not ready after 180 s; see $state/serve.log" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "cluster up in $((SECONDS - start))s (pid $pid)" >&2
  cmd_env
}

cmd_env() {
  if ! running_pid >/dev/null || [ ! -f "$envfile" ]; then
    echo "no cluster running; start one with: bash scripts/cluster.sh up" >&2
    exit 1
  fi
  cat "$envfile"
}

cmd_down() {
  local pid
  if ! pid=$(running_pid); then
    echo "no cluster running" >&2
    rm -f "$pidfile" "$envfile"
    return
  fi
  # The serve process stops the controllers, kube-apiserver and etcd itself on SIGTERM.
  kill -TERM "$pid"
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "cluster (pid $pid) still running after 15 s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile" "$envfile"
  echo "cluster stopped" >&2
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  env) cmd_env ;;
  *)
    echo "usage: bash scripts/cluster.sh up|down|env" >&2
    exit 2
    ;;
esac
