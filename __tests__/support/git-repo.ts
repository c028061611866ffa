// Git repositories of test fixtures: the developer's own git settings (GIT_* variables) never
// reach them, and commits need no configured identity or signing.
import { execFileSync } from 'node:child_process'

/** Runs `git <args>` in `dir` and returns its stdout. */
export function git(dir: string, ...args: string[]): string {
  const env = { ...process.env }
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key]
  // stderr is kept for the error git's failure throws, not echoed into the test output.
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', env, stdio: 'pipe' })
}

/** Makes `dir` a repository on branch main with everything in it committed; returns the commit. */
export function commitAll(dir: string, message: string): string {
  git(dir, 'init', '-q', '-b', 'main')
  return commitNext(dir, message)
}

/** Commits everything in the repository at `dir` on its current branch; returns the commit. */
export function commitNext(dir: string, message: string): string {
  git(dir, 'add', '-A')
  git(
    dir,
    '-c',
    'user.name=interop',
    '-c',
    'user.email=interop@example.com',
    'commit',
    '-q',
    '--no-gpg-sign',
    '-m',
    message
  )
  return git(dir, 'rev-parse', 'HEAD').trim()
}

/** How GitHub's merge button puts a pull request's branch on main. */
export type MergeStyle = 'merge' | 'squash' | 'rebase'

// GitHub commits merges as itself: a rebased commit keeps its author and gets a new committer,
// so it is a new commit even where the branch could have been fast-forwarded.
const asGitHub = ['-c', 'user.name=GitHub', '-c', 'user.email=noreply@github.com']

/**
 * Merges `branch` into main the way GitHub's `style` does and returns the commits the merge put
 * on main, oldest first: the merge commit, the squash commit, or each rebased commit. Leaves
 * main checked out.
 */
export function mergeBranch(
  dir: string,
  branch: string,
  style: MergeStyle,
  message: string
): string[] {
  const own = git(dir, 'rev-list', '--reverse', `main..${branch}`).split('\n').filter(Boolean)
  git(dir, 'checkout', '-q', 'main')
  const commit = ['commit', '-q', '--no-gpg-sign', '-m', message]
  if (style === 'merge') {
    git(dir, ...asGitHub, 'merge', '-q', '--no-ff', '--no-gpg-sign', '-m', message, branch)
  } else if (style === 'squash') {
    git(dir, 'merge', '-q', '--squash', branch)
    git(dir, ...asGitHub, ...commit)
  } else {
    for (const sha of own) git(dir, ...asGitHub, 'cherry-pick', '--no-gpg-sign', sha)
    return git(dir, 'rev-list', '--reverse', `HEAD~${own.length}..HEAD`).split('\n').filter(Boolean)
  }
  return [git(dir, 'rev-parse', 'HEAD').trim()]
}
