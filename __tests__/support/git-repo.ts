// Git repositories of test fixtures: the developer's own git settings (GIT_* variables) never
// reach them, and commits need no configured identity or signing.
import { execFileSync } from 'node:child_process'

/** Runs `git <args>` in `dir` and returns its stdout. */
export function git(dir: string, ...args: string[]): string {
  const env = { ...process.env }
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key]
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', env })
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
