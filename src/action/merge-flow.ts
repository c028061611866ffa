/**
 * The merge flow: check, then the layered apply with state sync. State records the pushed
 * commit (`_metadata.gitCommitHash` = the event's sha). The log gets one group per manifest,
 * the job summary a table per layer; a failure fails the step naming layer, manifest and
 * object (Tazuna's own message).
 */
import { renderersFooter, renderersOf } from '../report/renderers.js'
import { renderApplyMarkdown } from '../report/apply-markdown.js'
import { summaryBudget } from '../report/comment.js'
import { applyReportJson, applyReportText, countOutputs } from '../report/files.js'
import { utf8Length } from '../report/markdown.js'
import type { ApplyReport } from '../report/model.js'
import { checkFailure, publishCheck, runCheck } from './check-flow.js'
import { ManifestLog } from './manifest-log.js'
import type { ApplyRequest, ApplySwitches, LockRequest } from '../engine/engine.js'
import type { FlowEngine, Runner } from './ports.js'

/** What the merge flow needs to know about the run. */
export interface MergeFlowOptions {
  config: string
  environment: string
  /** The pushed commit, recorded in State. */
  sha: string
  switches: ApplySwitches
  /** The run lock to hold while applying. */
  lock?: LockRequest
  /** The stale-commit guard. */
  commitGuard?: ApplyRequest['commitGuard']
}

/** Runs the flow; throws once for check problems or a failed apply. */
export async function runMergeFlow(
  deps: { engine: FlowEngine; runner: Runner },
  options: MergeFlowOptions
): Promise<void> {
  const { engine, runner } = deps
  const checked = await runCheck(engine, runner)
  const { switches, lock, commitGuard, ...target } = options
  if (checked.run === undefined) {
    const report = { ...target, manifests: [], problems: checked.problems }
    await publishCheck(runner, report)
    throw checkFailure(options.config, checked.problems)
  }
  const names = (checked.plan?.layers ?? []).flat()
  const log = new ManifestLog(runner, names, (text) => engine.redact(text))
  const outcome = await engine.apply(checked.run, {
    ...switches,
    gitCommitHash: options.sha,
    log,
    ...(lock === undefined ? {} : { lock }),
    ...(commitGuard === undefined ? {} : { commitGuard })
  })
  log.finish(outcome)

  const report: ApplyReport = { ...target, ...outcome, ...renderersOf(engine) }
  const reportPath = runner.writeReport({
    json: applyReportJson(report),
    text: applyReportText(report)
  })
  await runner.writeSummary(
    renderApplyMarkdown(report, { budget: summaryBudget, measure: utf8Length }) +
      renderersFooter(report.renderers)
  )
  const all = outcome.layers.flat()
  runner.setOutputs({
    ...countOutputs(all.map((m) => ({ manifest: m.manifest, counts: m.counts }))),
    'report-path': reportPath,
    'comment-url': ''
  })
  if (outcome.failure !== undefined) throw new Error(engine.redact(outcome.failure.message))
}
