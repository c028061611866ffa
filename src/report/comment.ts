/**
 * The two Diff renderings the action publishes: the sticky PR comment (marker first, short
 * hashes, under GitHub's 65,536-character limit) and the job summary (whole hashes, under the
 * 1 MiB step-summary limit).
 */
import { renderDiffMarkdown, type DiffMarkdown } from './diff-markdown.js'
import { renderMarker } from './marker.js'
import { inlineCode, utf8Length } from './markdown.js'
import type { DiffReport } from './model.js'

/** GitHub rejects comment bodies over 65,536 characters; stay clear of the edge. */
export const commentBudget = 65_000

/** Job summaries are limited to 1 MiB per step; larger uploads are rejected. */
export const summaryBudget = 1_000_000

/** The sticky PR comment; `summaryUrl` is where the full report (the job summary) is. */
export function renderComment(
  report: DiffReport,
  options: { summaryUrl?: string; budget?: number } = {}
): DiffMarkdown {
  return renderDiffMarkdown(report, {
    budget: options.budget ?? commentBudget,
    marker: renderMarker(report),
    hashLength: 12,
    fullReport:
      options.summaryUrl === undefined ? 'the job summary' : `[job summary](${options.summaryUrl})`
  })
}

/** The Diff job summary; `reportPath` names the report files (report.json, report.txt). */
export function renderDiffSummary(
  report: DiffReport,
  options: { reportPath?: string; budget?: number } = {}
): DiffMarkdown {
  return renderDiffMarkdown(report, {
    budget: options.budget ?? summaryBudget,
    measure: utf8Length,
    hashLength: 64,
    ...(options.reportPath === undefined
      ? {}
      : { fullReport: `${inlineCode(options.reportPath)} (the report-path output)` })
  })
}
