/**
 * Paths stay in the repository: every file a run reads on behalf of tazuna.yaml (the file
 * itself, includes, manifest paths, helm values and charts, hint files, envfiles) must resolve,
 * symlinks followed, inside the repository root or a directory the team allowed. On a shared
 * runner a pull request could otherwise make the engine read — and a Diff publish — files of
 * the machine. The file adapter enforces it on every read; `check` reports the path fields.
 */
import path from 'node:path'

/** The directories reads may resolve into (absolute, symlinks already resolved). */
export interface PathPolicy {
  /** The repository root: the workspace in a workflow, the git work tree on the command line. */
  root: string
  /** Directories outside the root a team allowed (input `allowed-paths`, flag `--allow-path`). */
  allowed: readonly string[]
  /**
   * How messages name the root when its path means nothing to the user: BASE_TREE for the
   * temporary worktree a pull request's base renders from (src/engine/base-render.ts). Without
   * it, messages name the root's path: the checkout the user knows.
   */
  name?: string
}

/** The name of the base render's root in messages: its worktree is a temporary directory. */
export const BASE_TREE = "the base commit's tree"

/** A read that resolves outside the repository; names the path and where it leads. */
export class PathOutsideRepositoryError extends Error {
  override name = 'PathOutsideRepositoryError'
  readonly code = 'EOUTSIDE'
}

/** Whether `file` is `dir` or below it (both absolute and normalised). */
export function isWithin(file: string, dir: string): boolean {
  const relative = path.relative(dir, file)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

/**
 * Undefined when `real` (the symlink-resolved form of `file`) is inside the root or an allowed
 * directory; otherwise the error to raise, naming the repository as the policy's `name` does
 * (with `file` relative to the root then) or by the root's path.
 */
export function confinementError(
  file: string,
  real: string,
  policy: PathPolicy
): PathOutsideRepositoryError | undefined {
  if ([policy.root, ...policy.allowed].some((dir) => isWithin(real, dir))) return undefined
  const via = real === path.resolve(file) ? '' : ` (it resolves to ${real})`
  const what =
    policy.name === undefined
      ? `${file} is outside the repository ${policy.root}`
      : `${shownIn(file, policy.root)} in ${policy.name} is outside the repository`
  return new PathOutsideRepositoryError(
    `${what}${via}; files outside it are not read. ` +
      'To read a directory outside on purpose, allow it (input allowed-paths, flag --allow-path).'
  )
}

/** `file` relative to `root` when it is written inside it, `/`-separated; else as it is. */
function shownIn(file: string, root: string): string {
  const absolute = path.resolve(file)
  return isWithin(absolute, root) ? path.relative(root, absolute).split(path.sep).join('/') : file
}

/** A policy as given (`written`) and with its directories symlink-resolved (`resolved`). */
export interface ResolvedPolicy {
  written: PathPolicy
  resolved: PathPolicy
}

/**
 * The policy whose refusal names `file` under several policies (engines sharing one render
 * module: a pull request's head and base): the one whose root holds `file` as written, before
 * symlinks, so a head file is not reported as the base's; else the first.
 */
export function owningPolicy(
  file: string,
  policies: readonly ResolvedPolicy[]
): ResolvedPolicy | undefined {
  const absolute = path.resolve(file)
  return (
    policies.find(
      (p) => isWithin(absolute, p.written.root) || isWithin(absolute, p.resolved.root)
    ) ?? policies[0]
  )
}
