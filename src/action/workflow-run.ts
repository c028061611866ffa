/**
 * The workflow run that triggered mode publish, from the `workflow_run` event GitHub wrote
 * (docs/fork-pull-requests.md). For a fork's pull request the event's `pull_requests` list is
 * empty (GitHub lists only pull requests whose head is in the base repository), so the run is
 * identified by its head: commit, repository and branch, which the pull request must match.
 */
import { InputError } from '../errors.js'

/** What mode publish trusts about the run whose report it publishes. */
export interface TriggeringRun {
  /** The run's page. */
  htmlUrl: string
  headSha: string
  /** `owner/repo` the head commit was pushed to (the fork). */
  headRepository: string
  headBranch: string
  /** The pull requests GitHub names for the run; empty for a fork's. */
  pullRequests: readonly number[]
}

interface RunPayload {
  event?: unknown
  conclusion?: unknown
  html_url?: unknown
  head_sha?: unknown
  head_branch?: unknown
  head_repository?: { full_name?: unknown } | null
  pull_requests?: unknown
}

/** Conclusions of a run that wrote its report: a Diff job may fail (fail-on-diff, a risk). */
const reportingConclusions = new Set(['success', 'failure'])

/**
 * The triggering run of a `workflow_run` event whose run was a completed `pull_request` run;
 * throws InputError naming what does not fit.
 */
export function triggeringRunOf(
  eventName: string,
  payload: Readonly<Record<string, unknown>>
): TriggeringRun {
  if (eventName !== 'workflow_run') {
    throw new InputError(
      `mode publish runs on the workflow_run event (a workflow triggered by the pull request's Diff workflow), not on ${JSON.stringify(eventName)}`
    )
  }
  const run = (payload.workflow_run ?? {}) as RunPayload
  if (payload.action !== 'completed') {
    throw new InputError(
      `the workflow_run event is ${JSON.stringify(payload.action)}, not completed`
    )
  }
  if (run.event !== 'pull_request') {
    throw new InputError(
      `the triggering run ran on ${JSON.stringify(run.event)}, not pull_request: mode publish posts only reports of pull_request runs`
    )
  }
  if (!reportingConclusions.has(String(run.conclusion))) {
    throw new InputError(
      `the triggering run's conclusion is ${JSON.stringify(run.conclusion)}: a run that was cancelled or skipped has no report to publish`
    )
  }
  return {
    htmlUrl: required(run.html_url, 'html_url', /^https:\/\/[^\s<>()[\]]+$/),
    headSha: required(run.head_sha, 'head_sha', /^[0-9a-f]{40}([0-9a-f]{24})?$/),
    headRepository: required(
      run.head_repository?.full_name,
      'head_repository.full_name',
      /^[\w.-]+\/[\w.-]+$/
    ),
    headBranch: required(run.head_branch, 'head_branch', /^[^\s~^:?*[\\]+$/),
    pullRequests: pullRequestNumbers(run.pull_requests)
  }
}

function required(value: unknown, name: string, pattern: RegExp): string {
  if (typeof value === 'string' && pattern.test(value)) return value
  throw new InputError(`the workflow_run event has no valid workflow_run.${name}`)
}

function pullRequestNumbers(value: unknown): number[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((pr: unknown) => {
    const n = (pr as { number?: unknown } | null)?.number
    return typeof n === 'number' ? [n] : []
  })
}
