#!/usr/bin/env bash
# Builds the test cluster binaries and tools from the Go module proxy (no Docker, no
# downloads from elsewhere) into $TAZUNA_ACTION_CACHE/tools/<name>-<version>/<name>, skipping
# whatever is already there. Wrapper modules and the reasons for each build flag:
# __tests__/cluster/README.md and docs in the go.mod files under __tests__/cluster/tools/.
#
# Progress and timings go to stderr; the tool paths go to stdout as `export` lines and to
# $TAZUNA_ACTION_CACHE/tools/env.sh (env-1.35.sh with TAZUNA_TEST_K8S=1.35), so both of these work:
#   bash scripts/build-tools.sh && . "$HOME/.cache/tazuna-action/tools/env.sh"
#   eval "$(bash scripts/build-tools.sh)"
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
modules="$repo/__tests__/cluster/tools"
cache="${TAZUNA_ACTION_CACHE:-$HOME/.cache/tazuna-action}"
tools="$cache/tools"

log() { printf 'build-tools: %s\n' "$*" >&2; }

# shellcheck source=scripts/bootstrap.sh
. "$repo/scripts/bootstrap.sh"
require_go 'to build the test toolchain'

mkdir -p "$tools"
# Two test runs starting together must not both spend 15 minutes compiling the same thing.
exec 9>"$tools/.build.lock"
if ! flock -n 9; then
  log "another build-tools.sh is running; waiting for it"
  flock 9
fi

# Runs a command, and once more if it fails: the proxy or sumdb occasionally hiccups.
retry_once() {
  "$@" && return 0
  log "retrying after failure: $*"
  sleep 5
  "$@"
}

# The version a wrapper module selected for a module path (single source: its go.mod).
module_version() { (cd "$modules/$1" && go list -m -f '{{.Version}}' "$2"); }

# build_together VERSION MODULE_DIR LDFLAGS NAME=PACKAGE...: the missing ones of several
# binaries of one module in ONE `go build`, so that the packages they share compile once
# (kube-apiserver, kube-controller-manager and kube-scheduler share most of Kubernetes).
# Each lands in $tools/NAME-VERSION/NAME, like build_tool's.
build_together() {
  local version=$1 dir=$2 ldflags=$3 spec name pkg
  shift 3
  local names=() pkgs=()
  for spec in "$@"; do
    name=${spec%%=*} pkg=${spec#*=}
    if [ -x "$tools/$name-$version/$name" ]; then
      log "cached   $name $version ($tools/$name-$version/$name)"
    else
      names+=("$name") pkgs+=("$pkg")
    fi
  done
  [ "${#names[@]}" -gt 0 ] || return 0
  log "building ${names[*]} $version in one go build ..."
  local start=$SECONDS tmp="$tools/.build-$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$modules/$dir" && retry_once go list -deps "${pkgs[@]}" >/dev/null)
  (cd "$modules/$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${pkgs[@]}")
  for name in "${names[@]}"; do
    mkdir -p "$tools/$name-$version"
    mv -f "$tmp/$name" "$tools/$name-$version/$name"
  done
  rm -rf "$tmp"
  log "built    ${names[*]} $version in $((SECONDS - start))s"
}

# build_tool NAME VERSION MODULE_DIR PACKAGE [LDFLAGS]; sets BUILT_PATH.
build_tool() {
  local name=$1 version=$2 dir=$3 pkg=$4 ldflags=${5:-}
  local out="$tools/$name-$version/$name"
  BUILT_PATH=$out
  if [ -x "$out" ]; then
    log "cached   $name $version ($out)"
    return 0
  fi
  log "building $name $version from $pkg ..."
  local start=$SECONDS
  mkdir -p "$(dirname "$out")"
  # Downloads first, so that only they are retried, never a compile error.
  (cd "$modules/$dir" && retry_once go list -deps "$pkg" >/dev/null)
  (cd "$modules/$dir" &&
    CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out.tmp.$$" "$pkg")
  mv -f "$out.tmp.$$" "$out"
  log "built    $name $version in $((SECONDS - start))s ($(du -h "$out" | cut -f1))"
}

# Without these -X flags /version reports a v0.0.0-master placeholder and helm's
# .Capabilities.KubeVersion falls back to v1.20 (spec test-cluster.md 1.3 and 4).
k8s_ldflags() {
  local v=$1 minor
  minor=$(echo "$v" | cut -d. -f2)
  local flags="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags="$flags -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  echo "$flags"
}

# TAZUNA_TEST_K8S selects the Kubernetes of the test cluster: unset, the newest release
# (wrapper k8s/); `1.35`, the oldest minor upstream still supports (wrapper k8s-1.35/). Its
# tool paths go to env-1.35.sh, so that runs of both can share the cache.
k8s_module=k8s env_name=env.sh
if [ -n "${TAZUNA_TEST_K8S:-}" ]; then
  k8s_module="k8s-$TAZUNA_TEST_K8S" env_name="env-$TAZUNA_TEST_K8S.sh"
  if [ ! -f "$modules/$k8s_module/go.mod" ]; then
    log "TAZUNA_TEST_K8S=$TAZUNA_TEST_K8S: no wrapper module $k8s_module (have:" \
      "$(cd "$modules" && ls -d k8s-* 2>/dev/null | sed 's/^k8s-//' | tr '\n' ' '))"
    exit 1
  fi
fi

k8s_version=$(module_version "$k8s_module" k8s.io/kubernetes)
etcd_version=$(module_version "$k8s_module" go.etcd.io/etcd/server/v3)
helm_version=$(module_version helm helm.sh/helm/v3)
kustomize_version=$(module_version kustomize sigs.k8s.io/kustomize/kustomize/v5)
kwok_version=$(module_version kwok sigs.k8s.io/kwok)
k8s_minor=$(echo "$k8s_version" | cut -d. -f2)

build_together "$k8s_version" "$k8s_module" "$(k8s_ldflags "$k8s_version")" \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler
kube_apiserver_bin="$tools/kube-apiserver-$k8s_version/kube-apiserver"
kube_controller_manager_bin="$tools/kube-controller-manager-$k8s_version/kube-controller-manager"
kube_scheduler_bin="$tools/kube-scheduler-$k8s_version/kube-scheduler"

# etcd's main package is the module root of go.etcd.io/etcd/server/v3 (default name
# "server"); built in the k8s wrapper so it is the etcd Kubernetes itself was tested with.
build_tool etcd "$etcd_version" "$k8s_module" go.etcd.io/etcd/server/v3 "-s -w"
etcd_bin=$BUILT_PATH

# kwok plays the kubelet of fake Nodes (launcher.ts); its own module, like helm's, because
# it pins k8s.io/* v0.36. No stamping: its source already says 0.8.0 (pkg/consts).
build_tool kwok "$kwok_version" kwok sigs.k8s.io/kwok/cmd/kwok "-s -w"
kwok_bin=$BUILT_PATH

# helm's Makefile derives the chartutil/lint Kubernetes version from its client-go (1.36 for
# v3.21.4); we pin it to the test cluster's minor so `helm template` renders
# .Capabilities.KubeVersion like the cluster the tests run against.
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm_version"
helm_ldflags="$helm_ldflags -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for p in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
  helm_ldflags="$helm_ldflags -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$k8s_minor"
done
# The stamped minor is part of the cache key: helm stamped for another cluster is another binary.
build_tool helm "$helm_version-kube1.$k8s_minor" helm helm.sh/helm/v3/cmd/helm "$helm_ldflags"
helm_bin=$BUILT_PATH

# kustomize reads its own version from the build info of the binary (the dependency
# sigs.k8s.io/kustomize/kustomize/v5 at $kustomize_version); setting it as well keeps
# `kustomize version` right should that lookup change.
build_tool kustomize "$kustomize_version" kustomize sigs.k8s.io/kustomize/kustomize/v5 \
  "-s -w -X sigs.k8s.io/kustomize/api/provenance.version=$kustomize_version"
kustomize_bin=$BUILT_PATH

# The oras CLI pushes the artifacts of the `type: oras` tests, as a team would publish them.
oras_version=$(module_version oras oras.land/oras)
build_tool oras "$oras_version" oras oras.land/oras/cmd/oras "-s -w"
oras_bin=$BUILT_PATH

# The Tazuna CLI (the oracle) cannot be built here: the Go module proxy refuses every
# version of github.com/pepabo/tazuna (README.md). Use a binary the developer supplies, from
# their own environment only: env.sh is shared by every run on the machine, so a TAZUNA_BIN
# written there would turn the oracle tests on in another developer's concurrent run.
if [ -n "${TAZUNA_BIN:-}" ]; then
  if [ -x "$TAZUNA_BIN" ]; then
    log "tazuna oracle: $TAZUNA_BIN"
  else
    log "tazuna oracle: TAZUNA_BIN=$TAZUNA_BIN is not an executable file"
    exit 1
  fi
else
  log "tazuna oracle: unavailable (github.com/pepabo/tazuna is not on the Go module proxy;" \
    "set TAZUNA_BIN=/path/to/tazuna to enable oracle tests)"
fi

env_file="$tools/$env_name"
{
  echo "export KUBE_APISERVER_BIN=$(printf '%q' "$kube_apiserver_bin")"
  echo "export KUBE_CONTROLLER_MANAGER_BIN=$(printf '%q' "$kube_controller_manager_bin")"
  echo "export KUBE_SCHEDULER_BIN=$(printf '%q' "$kube_scheduler_bin")"
  echo "export KWOK_BIN=$(printf '%q' "$kwok_bin")"
  echo "export ETCD_BIN=$(printf '%q' "$etcd_bin")"
  echo "export HELM_BIN=$(printf '%q' "$helm_bin")"
  echo "export KUSTOMIZE_BIN=$(printf '%q' "$kustomize_bin")"
  echo "export ORAS_BIN=$(printf '%q' "$oras_bin")"
} >"$env_file.tmp.$$"
mv -f "$env_file.tmp.$$" "$env_file"
log "tool paths written to $env_file"
cat "$env_file"
