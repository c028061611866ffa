/**
 * Reads what the flows need from a GitHub event payload: the pull request, its head commit
 * and whether it comes from a fork (README.md#fork-pull-requests).
 */
import type { PullRequest } from './ports.js'

interface RepoRef {
  full_name?: unknown
}

/** The pull request of a pull_request / pull_request_target payload, else undefined. */
export function pullRequestOf(
  payload: Readonly<Record<string, unknown>>,
  repository: { owner: string; repo: string }
): PullRequest | undefined {
  const pr = payload.pull_request as
    | {
        number?: unknown
        head?: { sha?: unknown; repo?: RepoRef | null }
        base?: { sha?: unknown; repo?: RepoRef }
      }
    | undefined
  if (pr === undefined || typeof pr.number !== 'number') return undefined
  const head = typeof pr.head?.repo?.full_name === 'string' ? pr.head.repo.full_name : undefined
  const base =
    typeof pr.base?.repo?.full_name === 'string'
      ? pr.base.repo.full_name
      : `${repository.owner}/${repository.repo}`
  // A deleted fork shows up as head.repo: null; it is still not the base repository.
  const fromFork = pr.head?.repo === null || (head !== undefined && head !== base)
  return {
    ...repository,
    number: pr.number,
    headSha: typeof pr.head?.sha === 'string' ? pr.head.sha : '',
    ...(typeof pr.base?.sha === 'string' ? { baseSha: pr.base.sha } : {}),
    ...(fromFork ? { forkOf: head ?? '(deleted fork)' } : {})
  }
}
