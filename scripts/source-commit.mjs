// The commit a bundle is built from: node scripts/source-commit.mjs [REPO]
//
// Prints dist/build-info.json's content (scripts/bundle.sh writes it): `commit`, the newest commit
// that changed a bundle input (scripts/bundle-inputs.mjs), and `date`, that commit's committer
// date in UTC (RFC 3339, as goreleaser stamps Tazuna). `tazuna-action version` prints both.
//
// Why not HEAD and the clock: dist/ is committed, and scripts/check-dist.sh rebuilds it and wants
// the same bytes. HEAD moves with every commit (the one that commits dist/ included) and the
// clock always does; the commit that last changed the sources does not, so a rebuild at any later
// commit, on any machine, stamps the same. It follows that dist/ is committed after the sources
// it is built from (a commit of its own, or any later one): built from sources not committed yet,
// the stamp says `none` and `unknown` (as Tazuna's own `go build` does) and check-dist fails at
// the commit that holds them, saying so. A shallow clone that cuts the history at the commit
// found cannot tell whether an older commit made the change: it stamps `none` too.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { INPUT_FILES, INPUT_TREES } from './bundle-inputs.mjs'

const repo = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'))
const unknown = { commit: 'none', date: 'unknown' }
process.stdout.write(`${JSON.stringify(sourceCommit())}\n`)

function git(...args) {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: 'pipe' }).trim()
}

function sourceCommit() {
  const pathspecs = ['--', ...INPUT_FILES, ...INPUT_TREES]
  try {
    git('rev-parse', '--verify', 'HEAD')
  } catch {
    return unknown
  }
  if (git('status', '--porcelain', '--untracked-files=all', ...pathspecs) !== '') {
    warn('the sources have uncommitted changes: commit them, then bundle again')
    return unknown
  }
  const [commit, seconds] = git('log', '-1', '--format=%H %ct', 'HEAD', ...pathspecs).split(' ')
  if (!commit || shallowBoundaries().has(commit)) {
    warn(
      'a shallow clone: the commit that last changed the sources is not in it (fetch the history)'
    )
    return unknown
  }
  return { commit, date: new Date(Number(seconds) * 1000).toISOString().replace(/\.\d+Z$/, 'Z') }
}

function shallowBoundaries() {
  try {
    const file = path.resolve(repo, git('rev-parse', '--git-path', 'shallow'))
    return new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean))
  } catch {
    return new Set()
  }
}

function warn(why) {
  process.stderr.write(`source-commit: dist/build-info.json says commit none: ${why}\n`)
}
