/**
 * The drift issue's hidden marker and texts. One open issue per (config, environment): the
 * marker on the body's first line identifies it, and the adapter also checks the author (as for
 * the pull-request comment), so an issue a user opens with a pasted marker is never edited.
 */
import { describeDrift, renderDriftMarkdown } from './drift-markdown.js'
import { countDrift, type DriftReport } from './drift-model.js'
import { clip, inlineCode } from './markdown.js'
import type { ReportTarget } from './model.js'

const prefix = '<!-- tazuna-action-drift:'

/** GitHub rejects issue bodies over 65,536 characters; stay clear of the edge. */
export const issueBudget = 65_000

/** The marker line of the drift issue of a target. */
export function renderDriftMarker(
  target: Pick<ReportTarget, 'config' | 'environment' | 'target'>
): string {
  const json = JSON.stringify({
    config: target.config,
    environment: target.environment,
    ...(target.target ? { target: target.target } : {})
  })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
  return `${prefix}${json} -->`
}

/** True when `body` starts with the drift marker of the same config and environment. */
export function isDriftIssueOf(
  body: string,
  target: Pick<ReportTarget, 'config' | 'environment' | 'target'>
): boolean {
  const first = body.split('\n', 1)[0]!.trimEnd()
  return first === renderDriftMarker(target)
}

/** The issue's title: stable per target, so a reader can find it. */
export function driftIssueTitle(
  target: Pick<ReportTarget, 'config' | 'environment' | 'target'>
): string {
  const scope = [
    ...(target.environment === '' ? [] : [clip(target.environment, 100)]),
    ...(target.target ? [clip(target.target, 100)] : [])
  ]
  return `Tazuna drift: ${clip(target.config, 200)}${scope.length === 0 ? '' : ` (${scope.join(', ')})`}`
}

/** The issue's body: the marker, then the drift report within GitHub's limit. */
export function driftIssueBody(report: DriftReport, runUrl: string | undefined): string {
  return renderDriftMarkdown(report, {
    budget: issueBudget,
    marker: renderDriftMarker(report),
    hashLength: 12,
    fullReport: runUrl === undefined ? 'the job summary' : `[workflow run](${runUrl})`
  })
}

/** The comment left when the drift is gone, just before the issue is closed. */
export function resolvedComment(report: DriftReport, runUrl: string | undefined): string {
  const run = runUrl === undefined ? '' : ` ([workflow run](${runUrl}))`
  const commit = report.sha === '' ? '' : ` at commit ${inlineCode(report.sha.slice(0, 7))}`
  return `${describeDrift(countDrift(report.manifests))}. The cluster matches what was deployed${commit}${run}; closing.\n`
}
