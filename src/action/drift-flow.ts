/**
 * The drift flow (`mode: drift`, scheduled runs): check, then every recorded object read live
 * and compared (read-only), published as report files, job summary, outputs and — with
 * `drift-issue: true` — one issue per (config, environment) kept current: created when drift
 * appears, updated in place while it lasts, commented and closed when it is gone. A token that
 * may not write issues gets the summary and a notice, never a failed step.
 */
import type { Engine } from '../engine/engine.js'
import { renderDriftMarkdown } from '../report/drift-markdown.js'
import { driftOutputs, driftReportJson, driftReportText } from '../report/drift-files.js'
import { driftIssueBody, driftIssueTitle, resolvedComment } from '../report/drift-issue.js'
import { countDrift, hasDrift, type DriftReport } from '../report/drift-model.js'
import { describeDrift } from '../report/drift-markdown.js'
import { summaryBudget } from '../report/comment.js'
import { inlineCode, utf8Length } from '../report/markdown.js'
import { checkFailure, publishCheck, runCheck } from './check-flow.js'
import type { FlowEngine, Runner } from './ports.js'
import { publishStateSnapshot, type SnapshotPublishing } from './snapshot-flow.js'

/** The drift issue to keep current. */
export interface DriftIssue {
  owner: string
  repo: string
  target: { config: string; environment: string; target?: string }
  title: string
  body: string
  /** False: close the open issue (after `resolvedComment`), if there is one. */
  drifted: boolean
  resolvedComment: string
}

/** What happened to the issue. */
export interface DriftIssueResult {
  action: 'created' | 'updated' | 'unchanged' | 'closed' | 'none'
  url?: string
}

/** GitHub refused the write (403): the workflow lacks `issues: write`. */
export class IssueForbiddenError extends Error {
  override name = 'IssueForbiddenError'
}

/** Creates, updates or closes the drift issue; throws IssueForbiddenError on a 403. */
export type DriftIssuePublisher = (issue: DriftIssue) => Promise<DriftIssueResult>

/** What the drift flow needs to know about the run. */
export interface DriftFlowOptions {
  config: string
  environment: string
  /** Input `target` (README.md#one-workflow-for-a-fleet). */
  target?: string
  sha: string
  failOnDrift: boolean
  /** Keep the drift issue current (input `drift-issue`). */
  issue: boolean
  repository?: { owner: string; repo: string }
  hasToken: boolean
  /** The run's page. */
  summaryUrl?: string
  /**
   * Publish a State snapshot after the report (input `state-snapshot`), of the commit the State
   * records: a scheduled run keeps the snapshot current when State was written by other means.
   */
  snapshot?: SnapshotPublishing
}

/** Runs the flow; throws for check problems, and for drift when fail-on-drift is on. */
export async function runDriftFlow(
  deps: {
    engine: FlowEngine & Pick<Engine, 'driftReport'>
    runner: Runner
    publishIssue: DriftIssuePublisher
  },
  options: DriftFlowOptions
): Promise<void> {
  const { engine, runner } = deps
  const target = {
    config: options.config,
    environment: options.environment,
    ...(options.target ? { target: options.target } : {}),
    sha: options.sha
  }
  const checked = await runCheck(engine, runner)
  if (checked.run === undefined) {
    await publishCheck(runner, { ...target, manifests: [], problems: checked.problems })
    throw checkFailure(options.config, checked.problems)
  }
  const report: DriftReport = {
    ...target,
    manifests: await engine.driftReport(checked.run),
    problems: []
  }
  const reportPath = runner.writeReport({
    json: engine.redact(driftReportJson(report)),
    text: driftReportText(report)
  })
  const summary = renderDriftMarkdown(report, {
    budget: summaryBudget,
    measure: utf8Length,
    hashLength: 64,
    fullReport: `${inlineCode(reportPath)} (the report-path output)`
  })
  await runner.writeSummary(engine.redact(summary))
  runner.setOutputs({ ...driftOutputs(report), 'report-path': reportPath, 'issue-url': '' })
  const issueUrl = await publishIssue(deps, options, report)
  if (issueUrl !== undefined) runner.setOutputs({ 'issue-url': issueUrl })
  // State is what it is whether or not the live objects drifted from it: published either way.
  if (options.snapshot !== undefined) {
    await publishStateSnapshot({ engine, runner }, checked.run, options.snapshot, 'recorded')
  }

  const counts = countDrift(report.manifests)
  runner.info(`${describeDrift(counts)}.`)
  if (options.failOnDrift && hasDrift(counts)) {
    throw new Error(`drift detected (${describeDrift(counts)}) and fail-on-drift is true`)
  }
}

async function publishIssue(
  deps: { engine: Pick<Engine, 'redact'>; runner: Runner; publishIssue: DriftIssuePublisher },
  options: DriftFlowOptions,
  report: DriftReport
): Promise<string | undefined> {
  const { runner } = deps
  if (!options.issue) return undefined
  if (options.repository === undefined || !options.hasToken) {
    runner.notice(
      'No drift issue: the repository or the github-token input is missing. The drift report is in the job summary.'
    )
    return undefined
  }
  try {
    const result = await deps.publishIssue({
      ...options.repository,
      target: report,
      title: driftIssueTitle(report),
      body: deps.engine.redact(driftIssueBody(report, options.summaryUrl)),
      drifted: hasDrift(countDrift(report.manifests)),
      resolvedComment: resolvedComment(report, options.summaryUrl)
    })
    if (result.action !== 'none') runner.info(`Drift issue ${result.action}: ${result.url ?? ''}`)
    return result.url
  } catch (error) {
    if (!(error instanceof IssueForbiddenError)) throw error
    runner.notice(
      `No drift issue: ${error.message}. The workflow needs \`permissions: issues: write\`. ` +
        'The drift report is in the job summary.'
    )
    return undefined
  }
}
