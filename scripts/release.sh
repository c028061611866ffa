#!/usr/bin/env bash
# Publishes the release of a pushed version tag vMAJOR.MINOR.PATCH: checks that the tagged
# commit is releasable, that ci.yml and check-dist.yml succeeded for it, moves the major tag
# (v1) to it and creates the GitHub release with generated notes. Run by
# .github/workflows/release.yml when such a tag is pushed; a maintainer may run it by hand with
# the same effect (gh logged in). The procedure: README.md#releasing.
#
# Usage: release.sh [--dry-run] [--commit REV] [--remote NAME] vMAJOR.MINOR.PATCH
#   --dry-run  check everything, then print each command that would ask GitHub something or
#              change a tag or release, one line each, instead of running it (stdout holds only
#              those lines; what the script says goes to stderr). A tag not pushed yet is only
#              noted, so a maintainer can try the release before pushing the tag.
#   --commit   the commit the tag must point at (default HEAD)
#   --remote   the remote the tag was pushed to (default origin)
# Refuses (exit 1, saying why) when the tag is not on the commit, here and on the remote; when
# package.json's version at the commit is not the tag's (the tag names the version, so the
# bumped package.json and CHANGELOG.md are part of what is released); when CHANGELOG.md has no
# section for it; when dist/ has uncommitted changes; when ci.yml or check-dist.yml has no
# successful push run for the commit. A malformed tag or option exits 2. Local reads (git
# rev-parse, show, status, ls-remote) run in both modes.
# The major tag moves before the release is created, and only when the tag is the newest of its
# major version (a v1.2.4 after v1.3.0 leaves v1 alone): moving it again is harmless, so a job
# re-run after a failed `gh release create` completes the release.
set -euo pipefail
cd "$(dirname "$0")/.."

usage='usage: release.sh [--dry-run] [--commit REV] [--remote NAME] vMAJOR.MINOR.PATCH'
workflows=(ci.yml check-dist.yml)
dry_run=false rev=HEAD remote=origin tag=''

say() { echo "release: $*" >&2; }
refuse() {
  echo "release: refused: $*" >&2
  exit 1
}
bad_usage() {
  echo "release: $*" >&2
  echo "$usage" >&2
  exit 2
}

# One argument as a shell word: as it is when it needs no quoting, else in single quotes.
shell_word() {
  if [[ $1 =~ ^[A-Za-z0-9_./:=@{}^+-]+$ ]]; then printf '%s' "$1"; else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}
print_command() {
  local line='dry-run:' arg
  for arg in "$@"; do line+=" $(shell_word "$arg")"; done
  echo "$line"
}
# Runs a command that asks GitHub or changes something; in a dry run, prints it instead.
act() {
  if $dry_run; then print_command "$@"; else "$@"; fi
}

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --dry-run) dry_run=true ;;
      --commit | --remote)
        [ $# -ge 2 ] || bad_usage "$1 needs a value"
        if [ "$1" = --commit ]; then rev="$2"; else remote="$2"; fi
        shift
        ;;
      -*) bad_usage "unknown option $1" ;;
      *) [ -z "$tag" ] || bad_usage "one tag only (got $tag and $1)"; tag="$1" ;;
    esac
    shift
  done
  [ -n "$tag" ] || bad_usage 'no tag given'
  [[ $tag =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
    bad_usage "tag '$tag' is not a release tag vMAJOR.MINOR.PATCH (digits, no leading zeros)"
  major="v${BASH_REMATCH[1]}"
  version="${tag#v}"
}

# The commit the tag names, here and on the remote, must be $commit.
check_tag() {
  commit="$(git rev-parse --verify -q "$rev^{commit}")" || refuse "no commit '$rev' in this repository"
  local tagged
  tagged="$(git rev-parse --verify -q "refs/tags/$tag^{commit}")" ||
    refuse "there is no tag $tag here: create it with 'git tag -a $tag -m $tag $commit' and push it"
  [ "$tagged" = "$commit" ] || refuse "tag $tag points at $tagged, not at $rev ($commit)"
  remote_tags="$(git ls-remote --tags "$remote" 'refs/tags/v*')" ||
    refuse "could not list the tags of remote '$remote'"
  local pushed
  pushed="$(peeled "$tag")"
  if [ -z "$pushed" ]; then
    local push="push it first ('git push $remote $tag'): that starts .github/workflows/release.yml"
    $dry_run || refuse "tag $tag is not on remote '$remote': $push"
    say "tag $tag is not on remote '$remote' yet; a real run would refuse: $push"
  else
    [ "$pushed" = "$commit" ] || refuse "tag $tag on remote '$remote' points at $pushed, not at $commit"
  fi
}

# The commit a tag of $remote_tags names (an annotated tag's peeled line wins), or nothing.
peeled() {
  local sha ref plain='' peel=''
  while read -r sha ref; do
    [ "$ref" = "refs/tags/$1" ] && plain="$sha"
    [ "$ref" = "refs/tags/$1^{}" ] && peel="$sha"
  done <<<"$remote_tags"
  echo "${peel:-$plain}"
}

check_contents() {
  local declared
  declared="$(git show "$commit:package.json" | node -e '
    let text = ""
    process.stdin.on("data", (d) => (text += d)).on("end", () => console.log(JSON.parse(text).version ?? ""))
  ')" || refuse "could not read package.json at $commit"
  [ "$declared" = "$version" ] ||
    refuse "package.json at $commit has version '$declared', the tag says $version: bump it (npm version --no-git-tag-version $version) and tag that commit"
  git show "$commit:CHANGELOG.md" 2>/dev/null | grep -q "^## \[$version\]" ||
    refuse "CHANGELOG.md at $commit has no '## [$version]' section"
  local dirty
  dirty="$(git status --porcelain --untracked-files=all -- dist/)"
  [ -z "$dirty" ] || refuse "dist/ has uncommitted changes (the release is the committed dist/):
$dirty"
}

# Each workflow must have succeeded on the push of the commit (to main: the workflows run on
# pushes to main only), the run that tested exactly this commit; a pull request's run tested a
# merge with its base instead.
check_workflows() {
  local workflow count query
  for workflow in "${workflows[@]}"; do
    query=(gh api -X GET "repos/{owner}/{repo}/actions/workflows/$workflow/runs"
      -f head_sha="$commit" -f event=push -f status=success --jq .total_count)
    if $dry_run; then
      print_command "${query[@]}"
      continue
    fi
    count="$("${query[@]}")" || refuse "could not list the runs of .github/workflows/$workflow (see above)"
    [ "${count:-0}" -gt 0 ] ||
      refuse "no successful push run of .github/workflows/$workflow for $commit: wait for it to finish (or fix it), then re-run this job"
    say "$workflow succeeded for $commit"
  done
}

# The newest vMAJOR.x.y on the remote, the tag released counted (a dry run may precede its push).
newest_of_major() {
  { sed -n "s|^[0-9a-f]*[[:space:]]refs/tags/\($major\.[0-9][0-9]*\.[0-9][0-9]*\)\$|\1|p" <<<"$remote_tags" && echo "$tag"; } |
    sort -V | tail -n 1
}

publish() {
  local newest
  newest="$(newest_of_major)"
  if [ "$newest" = "$tag" ]; then
    act git push --force "$remote" "$commit:refs/tags/$major"
    $dry_run || say "$major now points at $commit"
  else
    say "$tag is not the newest $major release ($newest is): $major stays where it is"
  fi
  act gh release create "$tag" --verify-tag --generate-notes
  $dry_run || say "released $tag ($commit)"
}

parse_args "$@"
check_tag
check_contents
$dry_run || command -v gh >/dev/null || refuse 'gh (the GitHub CLI) is not on PATH'
check_workflows
publish
$dry_run && say 'dry run: the commands above were printed, not run'
