/**
 * The pull-request flow: check, then the Diff of every manifest against its recorded State
 * (read-only), published as report files, job summary, outputs and one sticky comment per
 * (config, environment). A fork's or any other read-only token gets the job summary and a
 * notice instead of a comment, never a failure.
 */
import { renderersFooter, renderersOf } from '../report/renderers.js'
import path from 'node:path'
import { renderComment, renderDiffSummary } from '../report/comment.js'
import { renderReportDiff } from '../report/content-diff.js'
import { countOutputs, diffReportJson, problemsText } from '../report/files.js'
import {
  countEntries,
  hasChanges,
  sumCounts,
  type DiffReport,
  type SnapshotSource
} from '../report/model.js'
import { isStale } from '../report/snapshot-source-markdown.js'
import { renderNotComparedText } from '../state/snapshot-diff.js'
import { describeCounts } from '../report/markdown.js'
import { checkFailure, runCheck } from './check-flow.js'
import { renderDiffText } from '../state/text.js'
import { diffWithContent, type BeforeSide } from '../engine/content-diff.js'
import { describeRisks, failingRisks } from '../risk/assess.js'
import type { RiskKind } from '../risk/model.js'
import { risksText } from '../risk/text.js'
import {
  CommentForbiddenError,
  type CommentPoster,
  type FlowEngine,
  type PullRequest,
  type Runner
} from './ports.js'

/** What the Diff flow needs to know about the run. */
export interface DiffFlowOptions {
  config: string
  environment: string
  /** Input `target` (README.md#one-workflow-for-a-fleet). */
  target?: string
  /** The event's commit; a pull request's head commit takes precedence. */
  sha: string
  pullRequest?: PullRequest
  comment: boolean
  hasToken: boolean
  failOnDiff: boolean
  /** Risk kinds that fail the job when found and not accepted (input `fail-on-risk`). */
  failOnRisk?: readonly RiskKind[]
  /** Whether the merge job prunes (input `prune`), for the wording of removals. */
  prune?: boolean
  /** The run's page, where the job summary is. */
  summaryUrl?: string
  /** The State snapshot the engine's session reads, when State does not come from the cluster. */
  snapshot?: SnapshotSource
}

/** What the Diff flow works with. */
export interface DiffFlowDeps {
  engine: FlowEngine
  runner: Runner
  postComment: CommentPoster
  /** The before side of content diffs (input `content-diff`); absent: hashes only. */
  before?: BeforeSide
  /** Milliseconds, for the render timings in the job summary. */
  now?: () => number
  /** Replaces every secret the run knows (rendered values, token, kubeconfig credentials). */
  redact?: (text: string) => string
  /**
   * The run's random key for Secret fingerprints in content diffs, made by the entry point
   * (src/adapters/fingerprint-key.ts).
   */
  fingerprintKey: Uint8Array
}

/**
 * Runs the flow; throws (once) for check problems, for manifests that failed to render (after the
 * comment shows each error on its manifest, next to the other manifests' Diff), and for a Diff
 * when fail-on-diff is on.
 */
export async function runDiffFlow(deps: DiffFlowDeps, options: DiffFlowOptions): Promise<void> {
  const { engine, runner } = deps
  const redact = deps.redact ?? ((text: string) => engine.redact(text))
  if (options.snapshot !== undefined) logSnapshotSource(runner, options.snapshot)
  const checked = await runCheck(engine, runner)
  const { manifests, content, risks, notCompared } =
    checked.run === undefined
      ? { manifests: [], content: undefined, risks: [], notCompared: [] }
      : await diffWithContent(engine, checked.run, {
          ...(deps.before ? { before: deps.before } : {}),
          ...(options.prune === undefined ? {} : { prune: options.prune }),
          now: deps.now ?? (() => 0),
          notice: (message) => runner.notice(message),
          fingerprintKey: deps.fingerprintKey,
          keepFailures: true
        })
  const report: DiffReport = {
    config: options.config,
    environment: options.environment,
    ...(options.target ? { target: options.target } : {}),
    sha: options.pullRequest?.headSha || options.sha,
    manifests,
    ...(checked.plan === undefined ? {} : { plan: checked.plan }),
    problems: checked.problems,
    ...(content === undefined ? {} : { content }),
    ...(risks.length === 0 ? {} : { risks }),
    ...(options.snapshot === undefined ? {} : { snapshot: options.snapshot, notCompared }),
    ...renderersOf(engine)
  }
  const text =
    report.problems.length > 0
      ? problemsText(report)
      : renderDiffText(manifests) + renderNotComparedText(notCompared)
  const reportPath = runner.writeReport({
    json: redact(
      diffReportJson(
        report,
        options.pullRequest === undefined ? {} : { pullRequest: options.pullRequest.number }
      )
    ),
    text: redact(text),
    ...(content === undefined
      ? {}
      : { diff: redact(renderReportDiff(content.diffs, content.source)) })
  })
  const diffPath = content === undefined ? '' : path.join(path.dirname(reportPath), 'report.diff')
  await runner.writeSummary(
    redact(renderDiffSummary(report, { reportPath }).markdown) + renderersFooter(report.renderers)
  )
  const perManifest = manifests.map((m) => ({
    manifest: m.manifest,
    counts: countEntries(m.entries)
  }))
  runner.setOutputs({
    ...countOutputs(perManifest),
    'report-path': reportPath,
    'diff-path': diffPath
  })
  const commentUrl = await publishComment({ ...deps, redact }, options, report)
  runner.setOutputs({ 'comment-url': commentUrl ?? '' })

  if (report.problems.length > 0) throw checkFailure(options.config, report.problems)
  const failed = manifests.flatMap((m) => (m.error === undefined ? [] : [m.error]))
  if (failed.length > 0) throw new Error(redact(failed.join('\n')))
  const total = sumCounts(perManifest.map((m) => m.counts))
  runner.info(hasChanges(total) ? `Diff: ${describeCounts(total)}` : 'No changes detected.')
  for (const line of risksText(risks)) runner.info(redact(line))
  if (options.failOnDiff && hasChanges(total)) {
    throw new Error(`the Diff is not empty (${describeCounts(total)}) and fail-on-diff is true`)
  }
  const failing = failingRisks(risks, options.failOnRisk ?? [])
  if (failing.length > 0) {
    throw new Error(
      `${describeRisks(failing)} (fail-on-risk: ${options.failOnRisk!.join(',')}); accept one with the annotation tazuna-action/accept-risk: <kind> on its object`
    )
  }
}

function logSnapshotSource(runner: Runner, s: SnapshotSource): void {
  runner.info(
    `State: the State snapshot on ${s.ref} of commit ${s.commit || '(unknown)'}, written ${s.createdAt} by ${s.writtenBy}; the cluster is not read`
  )
  if (isStale(s)) {
    runner.warning(
      `The State snapshot on ${s.ref} is of commit ${s.commit || '(unknown)'}, not of the base branch's head ${s.baseSha}: the Diff may show or hide changes of other merges`
    )
  }
}

async function publishComment(
  deps: { runner: Runner; postComment: CommentPoster; redact: (text: string) => string },
  options: DiffFlowOptions,
  report: DiffReport
): Promise<string | undefined> {
  const { runner } = deps
  const pr = options.pullRequest
  if (!options.comment) return undefined
  if (pr === undefined) {
    runner.info('No pull request in this event: the Diff is in the job summary only.')
    return undefined
  }
  if (pr.forkOf !== undefined) {
    runner.notice(
      `No pull-request comment: the pull request comes from the fork ${pr.forkOf}, whose token ` +
        'cannot write comments. The Diff is in the job summary; a workflow_run workflow in mode ' +
        'publish can post it from report.json (docs/fork-pull-requests.md).'
    )
    return undefined
  }
  if (!options.hasToken) {
    runner.notice(
      'No pull-request comment: the github-token input is empty. The Diff is in the job summary.'
    )
    return undefined
  }
  const body = renderComment(
    report,
    options.summaryUrl === undefined ? {} : { summaryUrl: options.summaryUrl }
  )
  try {
    const result = await deps.postComment({
      owner: pr.owner,
      repo: pr.repo,
      issueNumber: pr.number,
      target: report,
      body: deps.redact(body.markdown)
    })
    runner.info(`Pull-request comment ${result.action}: ${result.url}`)
    return result.url
  } catch (error) {
    if (!(error instanceof CommentForbiddenError)) throw error
    runner.notice(
      `No pull-request comment: ${error.message}. The token is read-only (a fork or Dependabot ` +
        'pull request, or the workflow lacks `permissions: pull-requests: write`). ' +
        'The Diff is in the job summary.'
    )
    return undefined
  }
}
