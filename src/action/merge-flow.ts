/**
 * The merge flow: check, then the layered apply with state sync. State records the pushed
 * commit (`_metadata.gitCommitHash` = the event's sha). The log gets one group per manifest,
 * the job summary a table per layer; a failure fails the step naming layer, manifest and
 * object (Tazuna's own message).
 */
import { renderersFooter, renderersOf } from '../report/renderers.js'
import { renderApplyMarkdown } from '../report/apply-markdown.js'
import { summaryBudget } from '../report/comment.js'
import { applyReportJson, applyReportText, countOutputs, healthOutputs } from '../report/files.js'
import { utf8Length } from '../report/markdown.js'
import type { ApplyReport } from '../report/model.js'
import type { GateVerdict } from '../report/diff-gate.js'
import { checkFailure, publishCheck, runCheck } from './check-flow.js'
import { ManifestLog } from './manifest-log.js'
import type { ApplyRequest, ApplySwitches, LockRequest } from '../engine/engine.js'
import type { FlowEngine, ReviewLookup, Runner } from './ports.js'
import { gateOf, reportOnPullRequest, reviewSummary, type ReviewOptions } from './review-flow.js'
import { publishStateSnapshot, type SnapshotPublishing } from './snapshot-flow.js'

/** What the merge flow needs to know about the run. */
export interface MergeFlowOptions {
  config: string
  environment: string
  /** Input `target` (README.md#one-workflow-for-a-fleet). */
  target?: string
  /** The pushed commit, recorded in State. */
  sha: string
  switches: ApplySwitches
  /** The run lock to hold while applying. */
  lock?: LockRequest
  /** The stale-commit guard. */
  commitGuard?: ApplyRequest['commitGuard']
  /** The review gate (input `reviewed-diff` warn or require, on push); absent: off. */
  review?: ReviewOptions
  /**
   * Publish a State snapshot after a successful apply with State sync (input `state-snapshot`);
   * absent: off.
   */
  snapshot?: SnapshotPublishing
}

/** Runs the flow; throws once for check problems or a failed apply. */
export async function runMergeFlow(
  deps: { engine: FlowEngine; runner: Runner; redact?: (text: string) => string },
  options: MergeFlowOptions
): Promise<void> {
  const { engine, runner } = deps
  const redact = deps.redact ?? ((text: string) => engine.redact(text))
  const checked = await runCheck(engine, runner)
  const { switches, lock, commitGuard, review, snapshot, ...target } = options
  if (checked.run === undefined) {
    const report = { ...target, manifests: [], problems: checked.problems }
    await publishCheck(runner, report)
    throw checkFailure(options.config, checked.problems)
  }
  const names = (checked.plan?.layers ?? []).flat()
  const log = new ManifestLog(runner, names, (text) => engine.redact(text))
  // The configuration is checked: the cluster session opens while GitHub answers the lookup.
  engine.connect()
  const lookup = review === undefined ? undefined : await review.lookup()
  const gated = review && lookup && gateOf(review.mode, lookup, runner)
  const reportRefusal = async (error: unknown): Promise<never> => {
    const refusal = error instanceof Error ? error.message : String(error)
    const verdict = gated?.verdict()
    await runner.writeSummary(redact(reviewSummary(verdict)))
    if (review && lookup) {
      const outcome = { sha: options.sha, refusal, ...(verdict ? { verdict } : {}) }
      await reportOnPullRequest({ runner, redact }, review, lookup, outcome)
    }
    throw error
  }
  const outcome = await engine
    .apply(checked.run, {
      ...switches,
      gitCommitHash: options.sha,
      log,
      ...(lock === undefined ? {} : { lock }),
      ...(commitGuard === undefined ? {} : { commitGuard }),
      ...(gated ? { reviewGate: gated.gate } : {})
    })
    .catch(reportRefusal)
  log.finish(outcome)

  const report: ApplyReport = { ...target, ...outcome, ...renderersOf(engine) }
  const reportPath = runner.writeReport({
    json: applyReportJson(report),
    text: applyReportText(report)
  })
  const verdict = gated?.verdict()
  const gateSection = reviewSummary(verdict)
  await runner.writeSummary(
    gateSection +
      renderApplyMarkdown(report, {
        budget: summaryBudget - utf8Length(gateSection),
        measure: utf8Length
      }) +
      renderersFooter(report.renderers)
  )
  const all = outcome.layers.flat()
  runner.setOutputs({
    ...countOutputs(all.map((m) => ({ manifest: m.manifest, counts: m.counts }))),
    'report-path': reportPath,
    'comment-url': '',
    ...healthOutputs(outcome)
  })
  if (review && lookup) await reportApplied(review, lookup, { runner, redact }, { report, verdict })
  if (outcome.failure !== undefined) throw new Error(engine.redact(outcome.failure.message))
  if (snapshot !== undefined && switches.sync) {
    await publishStateSnapshot({ engine, runner }, checked.run, snapshot)
  }
}

function reportApplied(
  review: ReviewOptions,
  lookup: ReviewLookup,
  deps: { runner: Runner; redact: (text: string) => string },
  done: { report: ApplyReport; verdict: GateVerdict | undefined }
): Promise<void> {
  const { report, verdict } = done
  return reportOnPullRequest(deps, review, lookup, {
    report,
    sha: report.sha,
    ...(verdict ? { verdict } : {})
  })
}
