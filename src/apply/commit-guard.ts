/**
 * The stale-commit guard: State records the commit each manifest was last applied from
 * (`_metadata.gitCommitHash`). Applying a commit that does not descend from it would roll the
 * cluster back — a re-run of an older workflow, or two pushes whose runs finish out of order.
 * Before anything is applied, every recorded commit must be the commit being applied or one of
 * its ancestors.
 */

/** How one recorded commit relates to the commit being applied. */
export type Ancestry = 'ancestor' | 'not-ancestor' | 'unknown'

/** Answers ancestry questions (git in the checkout, or the GitHub compare API). */
export interface CommitAncestry {
  /** Whether `recorded` is `current` or an ancestor of it; `reason` says why when unknown. */
  relate(recorded: string, current: string): Promise<{ ancestry: Ancestry; reason?: string }>
}

/** The guard's input: the commit being applied and what each manifest's State records. */
export interface CommitGuardInput {
  current: string
  /** Manifest name → recorded gitCommitHash ('' when none was recorded). */
  recorded: ReadonlyMap<string, string>
}

/** Thrown when a recorded commit is not an ancestor of the applied one (or cannot be shown to be). */
export class StaleCommitError extends Error {
  override name = 'StaleCommitError'
}

const OVERRIDE =
  'To apply it anyway, set input allow-older-commit: true (command line: --allow-older-commit).'

/**
 * Undefined when every recorded commit is the current one or an ancestor; otherwise the
 * problem, naming the manifests and both commits. Without a current commit (not a git
 * checkout) or a recorded one there is nothing to compare.
 */
export async function staleCommitProblem(
  input: CommitGuardInput,
  ancestry: CommitAncestry
): Promise<string | undefined> {
  if (input.current === '') return undefined
  const byCommit = new Map<string, string[]>()
  for (const [manifest, commit] of input.recorded) {
    if (commit === '' || commit === input.current) continue
    byCommit.set(commit, [...(byCommit.get(commit) ?? []), manifest])
  }
  for (const [commit, manifests] of [...byCommit].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { ancestry: relation, reason } = await ancestry.relate(commit, input.current)
    if (relation === 'ancestor') continue
    const names = manifests.sort().map((m) => `"${m}"`)
    const whose = `State of manifest${names.length === 1 ? '' : 's'} ${names.join(', ')}`
    if (relation === 'not-ancestor') {
      return (
        `refusing to apply commit ${input.current}: ${whose} records commit ${commit}, which is ` +
        `not an ancestor of it, so applying would roll back what ${commit} deployed (a re-run ` +
        `of an older workflow, or runs finishing out of order). Run the newest commit's ` +
        `workflow instead. ${OVERRIDE}`
      )
    }
    return (
      `refusing to apply commit ${input.current}: ${whose} records commit ${commit}, and ` +
      `whether it is an ancestor cannot be told (${reason ?? 'unknown'}). Fetch the history ` +
      `(actions/checkout fetch-depth: 0) or give the action a github-token that can read the ` +
      `repository. ${OVERRIDE}`
    )
  }
  return undefined
}
