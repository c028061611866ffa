/**
 * What the run's context (GITHUB_* variables and the event payload, through @actions/github)
 * says of the run itself: its repository, its page, and the holder name of the run lock.
 */
import * as github from '@actions/github'
import os from 'node:os'

/** The repository of the run; undefined when neither GITHUB_REPOSITORY nor the payload names it. */
export function repositoryOf(): { owner: string; repo: string } | undefined {
  try {
    return github.context.repo
  } catch {
    return undefined
  }
}

/** The run's page (with its attempt after the first), when the context names the run. */
export function runUrlOf(): { runUrl?: string } {
  const { serverUrl, runId } = github.context
  const repository = process.env.GITHUB_REPOSITORY
  if (!repository || !Number.isFinite(runId)) return {}
  const attempt = github.context.runAttempt
  const suffix = Number.isFinite(attempt) && attempt > 1 ? `/attempts/${attempt}` : ''
  return { runUrl: `${serverUrl}/${repository}/actions/runs/${runId}${suffix}` }
}

/** The run's page as the place of the job summary. */
export function summaryUrlOf(): { summaryUrl?: string } {
  const { runUrl } = runUrlOf()
  return runUrl === undefined ? {} : { summaryUrl: runUrl }
}

/** Names the run, so whoever waits for the run lock knows which one holds it. */
export function lockHolderOf(): string {
  const { runId, runAttempt } = github.context
  const repository = process.env.GITHUB_REPOSITORY ?? ''
  return `github-actions ${repository} run ${runId} attempt ${runAttempt} on ${os.hostname()}`
}
