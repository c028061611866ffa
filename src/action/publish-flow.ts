/**
 * Mode publish (docs/fork-pull-requests.md): a privileged `workflow_run` job posts the Diff a
 * fork's read-only pull-request run wrote as report.json. The report is untrusted: it is parsed
 * strictly, must name the pull request and head commit GitHub gives for the triggering run (the
 * pull request read through the API: open, same head commit, same head repository and branch),
 * and is rendered again by this action under a caution. Nothing of the fork is checked out, run
 * or read but the report.
 */
import { readPublishedReport, ReportError } from '../report/published-report.js'
import { renderPublishedComment } from '../report/published-comment.js'
import type { DiffReport } from '../report/model.js'
import { CommentForbiddenError, type CommentPoster, type Runner } from './ports.js'
import type { TriggeringRun } from './workflow-run.js'

/** A pull request as the API gives it (`GET /repos/{owner}/{repo}/pulls/{number}`). */
export interface PullRequestState {
  number: number
  state: string
  headSha: string
  headRef: string
  /** `owner/repo` of the head; null when the fork was deleted. */
  headRepository: string | null
  baseRepository: string
}

/** What mode publish needs from the world. */
export interface PublishFlowDeps {
  runner: Pick<Runner, 'info' | 'notice' | 'setOutputs'>
  /** The report's text (the one file mode publish reads), size-capped. */
  readReport: () => string
  /** Reads a pull request of this repository; throws when there is none. */
  getPullRequest: (number: number) => Promise<PullRequestState>
  postComment: CommentPoster
}

/** The publishing workflow's own settings and the run that triggered it. */
export interface PublishFlowOptions {
  repository: { owner: string; repo: string }
  /** Inputs `config` and `environment`: the report must be of this configuration. */
  config: string
  environment: string
  /** Input `target`: the report must be of this target too ('' or absent: none). */
  target?: string
  /** Input `report`, for messages. */
  reportPath: string
  run: TriggeringRun
}

/** Posts or updates the sticky comment; throws, posting nothing, when the report is refused. */
export async function runPublishFlow(
  deps: PublishFlowDeps,
  options: PublishFlowOptions
): Promise<void> {
  const refuse = (why: string): Error =>
    new Error(`the report ${options.reportPath} is refused: ${why}. Nothing was posted.`)
  const { pullRequest, report } = parse(deps.readReport(), refuse)
  checkReport(report, pullRequest, options, refuse)
  const pr = await deps.getPullRequest(pullRequest)
  checkPullRequest(pr, options.run, refuse)
  if (pr.headRepository === pr.baseRepository) {
    deps.runner.notice(
      `Pull request #${pr.number} is not from a fork: its own run posts the Diff comment, with its write token. Nothing was published.`
    )
    return
  }
  const { markdown } = renderPublishedComment(report, {
    runUrl: options.run.htmlUrl,
    headRepository: options.run.headRepository
  })
  const { owner, repo } = options.repository
  try {
    const result = await deps.postComment({
      owner,
      repo,
      issueNumber: pr.number,
      target: report,
      body: markdown
    })
    deps.runner.info(`Pull-request comment ${result.action}: ${result.url}`)
    deps.runner.setOutputs({ 'comment-url': result.url })
  } catch (error) {
    if (!(error instanceof CommentForbiddenError)) throw error
    throw new Error(
      `${error.message}: mode publish needs a token that can comment (permissions: pull-requests: write)`,
      { cause: error }
    )
  }
}

function parse(
  text: string,
  refuse: (why: string) => Error
): ReturnType<typeof readPublishedReport> {
  try {
    return readPublishedReport(text)
  } catch (error) {
    if (error instanceof ReportError) throw refuse(error.message)
    throw error
  }
}

function checkReport(
  report: DiffReport,
  pullRequest: number,
  options: PublishFlowOptions,
  refuse: (why: string) => Error
): void {
  if (report.config !== options.config || report.environment !== options.environment) {
    throw refuse(
      `it is of config ${JSON.stringify(report.config)}, environment ${JSON.stringify(report.environment)}; ` +
        `this step publishes config ${JSON.stringify(options.config)}, environment ${JSON.stringify(options.environment)} (inputs "config" and "environment")`
    )
  }
  if ((report.target ?? '') !== (options.target ?? '')) {
    throw refuse(
      `it is of target ${JSON.stringify(report.target ?? '')}; this step publishes target ` +
        `${JSON.stringify(options.target ?? '')} (input "target")`
    )
  }
  const { run } = options
  if (report.sha !== run.headSha) {
    throw refuse(`it is of commit ${report.sha}, the triggering run of ${run.headSha}`)
  }
  if (run.pullRequests.length > 0 && !run.pullRequests.includes(pullRequest)) {
    throw refuse(
      `it names pull request #${pullRequest}, the triggering run ${run.pullRequests.map((n) => `#${n}`).join(', ')}`
    )
  }
}

function checkPullRequest(
  pr: PullRequestState,
  run: TriggeringRun,
  refuse: (why: string) => Error
): void {
  if (pr.state !== 'open') throw refuse(`pull request #${pr.number} is ${pr.state}, not open`)
  if (pr.headSha !== run.headSha) {
    throw refuse(
      `pull request #${pr.number}'s head is ${pr.headSha}, not the triggering run's commit ${run.headSha} (the report names another pull request, or a newer commit was pushed)`
    )
  }
  if (pr.headRepository !== run.headRepository || pr.headRef !== run.headBranch) {
    throw refuse(
      `pull request #${pr.number}'s head is ${pr.headRepository ?? '(deleted fork)'}:${pr.headRef}, not the triggering run's ${run.headRepository}:${run.headBranch}`
    )
  }
}
