/**
 * `tazuna check` as the first step of every mode: all problems become annotations on their
 * file and line, then the step fails once (house style: config problems reported at once).
 */
import type { ConfigProblem } from '../errors.js'
import { renderCheckMarkdown } from '../report/diff-markdown.js'
import { countOutputs, diffReportJson, problemsText } from '../report/files.js'
import { clip } from '../report/markdown.js'
import type { DiffReport } from '../report/model.js'
import type { CheckOutcome, FlowEngine, Runner } from './ports.js'

/** The step's single failure after check problems were annotated. */
export class CheckFailedError extends Error {
  override name = 'CheckFailedError'
}

/** Runs check; returns the outcome with every problem message redacted and annotated. */
export async function runCheck(engine: FlowEngine, runner: Runner): Promise<CheckOutcome> {
  const outcome = await engine.check()
  const problems = outcome.problems.map((p): ConfigProblem => ({
    ...p,
    message: engine.redact(p.message)
  }))
  if (problems.length > 0) runner.annotate(problems)
  else runner.info('tazuna check: ok')
  return { ...outcome, problems }
}

/** The failure to raise after a check with problems. */
export function checkFailure(config: string, problems: readonly ConfigProblem[]): CheckFailedError {
  const n = problems.length
  const first = problems[0] === undefined ? '' : `; first: ${clip(problems[0].message, 300)}`
  return new CheckFailedError(
    `tazuna check found ${n} problem${n === 1 ? '' : 's'} in ${config} (see the annotations)${first}`
  )
}

/** What the check-only flow needs to know about the run. */
export interface CheckFlowOptions {
  config: string
  environment: string
  /** Input `target` (README.md#one-workflow-for-a-fleet). */
  target?: string
  sha: string
}

/** Mode `check`: check, publish the result (summary, report files, zero counts), fail once. */
export async function runCheckFlow(
  deps: { engine: FlowEngine; runner: Runner },
  options: CheckFlowOptions
): Promise<void> {
  const checked = await runCheck(deps.engine, deps.runner)
  const report: DiffReport = {
    ...options,
    manifests: [],
    ...(checked.plan === undefined ? {} : { plan: checked.plan }),
    problems: checked.problems
  }
  await publishCheck(deps.runner, report)
  if (report.problems.length > 0) throw checkFailure(options.config, report.problems)
}

/** Report files, job summary and outputs of a check (no Diff: every count is zero). */
export async function publishCheck(runner: Runner, report: DiffReport): Promise<void> {
  const reportPath = runner.writeReport({
    json: diffReportJson(report),
    text: problemsText(report)
  })
  await runner.writeSummary(renderCheckMarkdown(report))
  runner.setOutputs({ ...countOutputs([]), 'report-path': reportPath, 'comment-url': '' })
}
