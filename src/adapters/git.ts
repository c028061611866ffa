/** The git facts a run needs: the commit checked out where tazuna.yaml is, and ancestry. */
import type { CommitAncestry } from '../apply/commit-guard.js'
import type { CommandRunner } from '../render/ports.js'
import { createExecRunner } from './command-runner.js'

/**
 * `git rev-parse HEAD` in `dir` (docs/compatibility.md#entry-and-metadata-bytes); any failure,
 * including git not being installed, gives `''` and never an error, as Tazuna does.
 */
export async function gitCommitOf(
  dir: string,
  runner: CommandRunner = createExecRunner()
): Promise<string> {
  try {
    const result = await runner.run('git', ['rev-parse', 'HEAD'], { cwd: dir })
    return result.exitCode === 0 ? result.stdout.trim() : ''
  } catch {
    return ''
  }
}

/** Ancestry from the checkout's own history: `git merge-base --is-ancestor` in `dir`. */
export function gitAncestry(
  dir: string,
  runner: CommandRunner = createExecRunner()
): CommitAncestry {
  return {
    async relate(recorded, current) {
      try {
        const result = await runner.run('git', ['merge-base', '--is-ancestor', recorded, current], {
          cwd: dir
        })
        if (result.exitCode === 0) return { ancestry: 'ancestor' }
        if (result.exitCode === 1) return { ancestry: 'not-ancestor' }
        const why = result.stderr.trim().split('\n')[0] ?? ''
        return {
          ancestry: 'unknown',
          reason: `git merge-base: ${why || `exit ${result.exitCode}`}`
        }
      } catch {
        return { ancestry: 'unknown', reason: 'git is not installed' }
      }
    }
  }
}

/** The first answer of `sources` that is not `unknown` (the last reason otherwise). */
export function firstKnownAncestry(sources: readonly CommitAncestry[]): CommitAncestry {
  return {
    async relate(recorded, current) {
      const reasons: string[] = []
      for (const source of sources) {
        const answer = await source.relate(recorded, current)
        if (answer.ancestry !== 'unknown') return answer
        if (answer.reason) reasons.push(answer.reason)
      }
      return { ancestry: 'unknown', reason: reasons.join('; ') || 'no history to look at' }
    }
  }
}
