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
}

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
 * directory; otherwise the error to raise.
 */
export function confinementError(
  file: string,
  real: string,
  policy: PathPolicy
): PathOutsideRepositoryError | undefined {
  if ([policy.root, ...policy.allowed].some((dir) => isWithin(real, dir))) return undefined
  const via = real === path.resolve(file) ? '' : ` (it resolves to ${real})`
  return new PathOutsideRepositoryError(
    `${file} is outside the repository ${policy.root}${via}; files outside it are not read. ` +
      'To read a directory outside on purpose, allow it (input allowed-paths, flag --allow-path).'
  )
}
