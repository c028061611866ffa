#!/usr/bin/env bash
# npm run demo: the action end to end on this machine, no GitHub and no real cluster needed.
#  1. uses the committed dist/ when it was built from the sources in the working tree
#     (dist/source-id.txt, scripts/source-id.mjs), else builds the bundle into a temporary
#     directory (scripts/bundle.sh); starts a throwaway kube-apiserver of its own
#     (scripts/cluster.sh, in its temporary directory: never a cluster already running, whose
#     State from an earlier demo would belong to another git history) and the loopback GitHub
#     emulator;
#  2. makes a git repository with the history a pull request has (main, and a branch that adds
#     examples/), runs the pull-request flow on it (node index.js with a runner-like
#     environment) and prints the rendered PR comment;
#  3. merges the branch and runs the merge flow (layered apply + state sync) on the merge
#     commit; the emulator knows the merge (POST /_emulator/pulls, as GitHub knows which pull
#     request a merge commit came from), so the run applies the Diff reviewed on #7 and reports
#     on it; prints the job summary, the report and the comment's "Applied" section;
#  4. opens a second pull request that changes one object and prints its Diff comment, with
#     the content diff from the base commit;
#  5. stops what it started.
# Works on a fresh clone: brings Node 24 and node_modules (scripts/bootstrap.sh) and checks for
# Go (the demo cluster is built from Go modules). `npm test` runs this script
# (__tests__/e2e/demo.test.ts), so README's first command cannot break unnoticed.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
# shellcheck source=scripts/bootstrap.sh
. scripts/bootstrap.sh
bootstrap_node
require_go 'to build the demo cluster'
work="$(mktemp -d "${TMPDIR:-/tmp}/tazuna-demo-XXXXXX")"
emulator_pid=''
started_cluster=0
export TAZUNA_CLUSTER_STATE="$work/cluster"

cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  if [ "$started_cluster" = 1 ]; then bash scripts/cluster.sh down || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [ -f dist/source-id.txt ] && [ "$(cat dist/source-id.txt)" = "$(node scripts/source-id.mjs)" ]; then
  step 'Using the committed dist/ (built from the sources in this working tree)'
  dist="$repo/dist"
else
  step "Sources changed since dist/ was built: building the action into $work/dist (scripts/bundle.sh)"
  dist="$work/dist"
  bash scripts/bundle.sh "$dist"
fi

step 'Starting the throwaway cluster (scripts/cluster.sh)'
started_cluster=1
bash scripts/cluster.sh up >"$work/cluster.env"
# shellcheck disable=SC1091
. "$work/cluster.env"
tools_dir="$work/tools"
mkdir -p "$tools_dir"
ln -s "$KUSTOMIZE_BIN" "$tools_dir/kustomize"
ln -s "$HELM_BIN" "$tools_dir/helm"

step 'Starting the GitHub emulator'
node __tests__/github-emulator/server.ts >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 1 50); do
  grep -q '^GITHUB_API_URL=' "$work/emulator.out" 2>/dev/null && break
  sleep 0.1
done
api_url="$(sed -n 's/^GITHUB_API_URL=//p' "$work/emulator.out")"
if [ -z "$api_url" ]; then
  echo "the GitHub emulator did not start (node __tests__/github-emulator/server.ts):" >&2
  cat "$work/emulator.err" >&2
  exit 1
fi
echo "GITHUB_API_URL=$api_url"

git_repo() { git -C "$work/repo" -c user.name=demo -c user.email=demo@example.com "$@"; }
mkdir "$work/repo"
git_repo init -q -b main
echo '# acme/deploy' >"$work/repo/README.md"
git_repo add README.md
git_repo commit -q -m 'Start the deploy repository'
git_repo checkout -q -b add-examples
cp -R examples/. "$work/repo/"
git_repo add -A
git_repo commit -q -m 'Deploy the example manifests'

# Runs node index.js as GitHub's runner would: inputs as INPUT_<NAME> (dashes kept).
run_action() { # event sha payload kubeconfig
  local event="$1" sha="$2" payload="$3" kubeconfig="$4" run="$work/run-$RANDOM"
  mkdir -p "$run/temp"
  printf '%s' "$payload" >"$run/event.json"
  : >"$run/summary.md"
  : >"$run/output.txt"
  local status=0
  (cd "$work/repo" && env -i PATH="$tools_dir:$PATH" HOME="$HOME" \
    GITHUB_ACTIONS=true GITHUB_EVENT_NAME="$event" GITHUB_EVENT_PATH="$run/event.json" \
    GITHUB_SHA="$sha" GITHUB_REPOSITORY=acme/deploy GITHUB_API_URL="$api_url" \
    GITHUB_SERVER_URL=https://github.com GITHUB_RUN_ID=1 GITHUB_WORKSPACE="$work/repo" \
    GITHUB_STEP_SUMMARY="$run/summary.md" GITHUB_OUTPUT="$run/output.txt" RUNNER_TEMP="$run/temp" \
    INPUT_CONFIG=tazuna.yaml INPUT_KUBECONFIG="$kubeconfig" INPUT_GITHUB-TOKEN=test-token \
    node "$dist/index.js") >"$run/log.txt" 2>&1 || status=$?
  LAST_RUN="$run"
  return "$status"
}

pr_payload() { # number head-sha base-sha
  printf '{"number":%s,"pull_request":{"number":%s,"head":{"sha":"%s","repo":{"full_name":"acme/deploy"}},"base":{"ref":"main","sha":"%s","repo":{"full_name":"acme/deploy"}}},"repository":{"full_name":"acme/deploy","name":"deploy","owner":{"login":"acme"}}}' "$1" "$1" "$2" "$3"
}

show_comment() {
  node -e '
    const state = JSON.parse(require("fs").readFileSync(0, "utf8"))
    const c = state.comments.at(-1)
    console.log(`(comment ${c.id} by ${c.user.login}, ${[...c.body].length} characters)\n`)
    console.log(c.body)
  ' < <(node -e 'fetch(process.argv[1] + "/_emulator/state").then(r => r.text()).then(t => process.stdout.write(t))' "$api_url")
}

outputs_json() { # GITHUB_OUTPUT's name<<delimiter blocks as JSON
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n"), out = {}
    for (let i = 0; i < lines.length; i++) {
      const m = /^([^<]+)<<(.+)$/.exec(lines[i]); if (!m) continue
      const v = []; for (i++; i < lines.length && lines[i] !== m[2]; i++) v.push(lines[i])
      out[m[1]] = v.join("\n")
    }
    console.log(JSON.stringify(out, null, 2))
  ' "$LAST_RUN/output.txt"
}

show_outputs() {
  echo '-- step outputs:'
  outputs_json
}

rev() { git_repo rev-parse "$1"; }

# Tells the emulator about a pull request, as GitHub knows it: its branch's commits and, once
# merged, the merge style and the commits the merge put on main (commits/{sha}/pulls answers
# from them).
register_pull() { # number "head commits" [style "commits on main"]
  node -e '
    const [url, number, heads, style, commits] = process.argv.slice(1)
    const pull = { owner: "acme", repo: "deploy", number: Number(number), headCommits: heads.split(" ") }
    if (style) pull.merge = { style, commits: commits.split(" ") }
    fetch(url + "/_emulator/pulls", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(pull)
    }).then((r) => { if (r.status !== 201) throw new Error(`the emulator answered ${r.status}`) })
  ' "$api_url" "$@"
}

# The "Applied" section the merge run put at the top of pull request $1's comment.
show_applied() {
  node -e '
    const state = JSON.parse(require("fs").readFileSync(0, "utf8"))
    const body = state.comments.find((c) => c.issue === Number(process.argv[1])).body
    const end = body.indexOf("<!-- tazuna-action:applied-end -->")
    console.log(body.slice(body.indexOf("\n") + 1, end < 0 ? undefined : end).trim())
  ' "$1" < <(node -e 'fetch(process.argv[1] + "/_emulator/state").then(r => r.text()).then(t => process.stdout.write(t))' "$api_url")
}

step 'Pull request #7 (add-examples -> main): check + Diff against recorded State (read-only kubeconfig)'
register_pull 7 "$(git_repo rev-list --reverse main..add-examples | tr '\n' ' ' | sed 's/ $//')"
run_action pull_request "$(rev add-examples)" "$(pr_payload 7 "$(rev add-examples)" "$(rev main)")" \
  "$TAZUNA_TEST_READER_KUBECONFIG" || { cat "$LAST_RUN/log.txt"; exit 1; }
show_outputs
echo '-- the pull-request comment:'
show_comment

step 'Merge #7 into main: check + layered apply with state sync of the merge commit'
git_repo checkout -q main
pr7_commits="$(git_repo rev-list --reverse main..add-examples | tr '\n' ' ' | sed 's/ $//')"
git_repo merge -q --no-ff -m 'Merge pull request #7 from acme/add-examples' add-examples
register_pull 7 "$pr7_commits" merge "$(rev main)"
run_action push "$(rev main)" '{"ref":"refs/heads/main"}' "$TAZUNA_TEST_ADMIN_KUBECONFIG" ||
  { cat "$LAST_RUN/log.txt"; exit 1; }
echo '-- log (one group per manifest):'
sed -n '/^::group::/,/^::endgroup::/p' "$LAST_RUN/log.txt" | sed -e 's/^::group::/▸ /' -e '/^::endgroup::/d' -e '/^[^▸]/s/^/    /'
echo '-- job summary:'
cat "$LAST_RUN/summary.md"
echo '-- report.txt:'
report_json="$(outputs_json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8"))["report-path"])')"
cat "$(dirname "$report_json")/report.txt"
echo "-- the \"Applied\" section now at the top of #7's comment:"
show_applied 7

step 'Pull request #8: GREETING hello -> bonjour in manifests/config/settings.yaml'
git_repo checkout -q -b bonjour
sed -i 's/GREETING: hello/GREETING: bonjour/' "$work/repo/manifests/config/settings.yaml"
git_repo commit -q -am 'Greet in French'
run_action pull_request "$(rev bonjour)" "$(pr_payload 8 "$(rev bonjour)" "$(rev main)")" \
  "$TAZUNA_TEST_READER_KUBECONFIG" || { cat "$LAST_RUN/log.txt"; exit 1; }
show_outputs
echo '-- its comment, with the content diff from the base commit:'
show_comment

step 'Done; stopping what the demo started'
