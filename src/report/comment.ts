/**
 * The two Diff renderings the action publishes, in the same reviewer's order
 * (src/report/diff-markdown.ts): the sticky PR comment (marker first, short hashes, under
 * GitHub's 65,536-character limit) and the job summary (whole hashes, more lines per diff,
 * under the 1 MiB step-summary limit).
 */
import { renderDiffMarkdown, type DiffMarkdown } from './diff-markdown.js'
import { renderMarker } from './marker.js'
import { inlineCode, utf8Length } from './markdown.js'
import type { DiffReport } from './model.js'
import { renderEntriesBlock } from './reviewed-entries.js'
import { diffDigests, shortDigest, type DiffDigests } from '../state/diff-digest.js'

/** GitHub rejects comment bodies over 65,536 characters; stay clear of the edge. */
export const commentBudget = 65_000

/** Job summaries are limited to 1 MiB per step; larger uploads are rejected. */
export const summaryBudget = 1_000_000

/**
 * Content diffs show open until the open ones reach this many characters (a few screens of a
 * review), collapsed after; the job summary, read when the comment is not enough, opens more.
 */
const commentOpenBudget = 20_000
const summaryOpenBudget = 200_000

/**
 * The sticky PR comment; `summaryUrl` is where the full report (the job summary) is. A computed
 * Diff (no config problems) is recorded for the merge run's comparison
 * (README.md#gated-deploys): its digests in the marker, the short digest in a visible footer and
 * its entries in a hidden last line, all within the budget.
 */
export function renderComment(
  report: DiffReport,
  options: { summaryUrl?: string; budget?: number } = {}
): DiffMarkdown {
  const summary =
    options.summaryUrl === undefined ? 'the job summary' : `[job summary](${options.summaryUrl})`
  // Only a whole Diff is recorded for the merge run: not one with a manifest that failed.
  const whole = report.problems.length === 0 && report.manifests.every((m) => m.error === undefined)
  const digests = whole ? diffDigests(report.manifests) : undefined
  const tail = digests === undefined ? '' : reviewedTail(report, digests)
  const rendered = renderDiffMarkdown(report, {
    budget: (options.budget ?? commentBudget) - tail.length,
    marker: renderMarker(report, digests),
    hashLength: 12,
    fullReport: summary,
    content: {
      linesPerObject: 120,
      fullDiff: `full diff: ${summary} and \`report.diff\``,
      openBudget: commentOpenBudget
    }
  })
  return { ...rendered, markdown: rendered.markdown + tail }
}

// The footer reviewers quote and the hidden entries the merge run names differences from.
function reviewedTail(report: DiffReport, digests: DiffDigests): string {
  const footer = `<sub>Diff digest ${inlineCode(shortDigest(digests.digest))} for ${inlineCode(report.sha.slice(0, 12))}</sub>`
  return `\n${footer}\n${renderEntriesBlock(report.manifests)}\n`
}

/** The Diff job summary; `reportPath` names the report files (report.json, report.txt). */
export function renderDiffSummary(
  report: DiffReport,
  options: { reportPath?: string; budget?: number } = {}
): DiffMarkdown {
  const diffPath = options.reportPath?.replace(/report\.json$/, 'report.diff')
  return renderDiffMarkdown(report, {
    budget: options.budget ?? summaryBudget,
    measure: utf8Length,
    hashLength: 64,
    riskLimit: 500,
    ...(options.reportPath === undefined
      ? {}
      : { fullReport: `${inlineCode(options.reportPath)} (the report-path output)` }),
    content: {
      linesPerObject: 2000,
      fullDiff:
        diffPath === undefined
          ? 'full diff: `report.diff`'
          : `full diff: ${inlineCode(diffPath)} (the diff-path output)`,
      openBudget: summaryOpenBudget,
      timings: true
    }
  })
}
