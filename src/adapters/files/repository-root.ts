/** Where a git work tree begins, found as git finds it (no git process needed). */
import { existsSync } from 'node:fs'
import path from 'node:path'

/**
 * The nearest directory at or above `dir` with a `.git` entry (a directory, or the file a
 * worktree or submodule has), or undefined outside a work tree.
 */
export function repositoryRootOf(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (existsSync(path.join(current, '.git'))) return current
    if (path.dirname(current) === current) return undefined
  }
}
