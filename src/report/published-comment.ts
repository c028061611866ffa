/**
 * The sticky comment mode publish posts from a pull request's own report
 * (docs/fork-pull-requests.md): the Diff rendered by this action's renderer from the report's
 * checked data (src/report/published-report.ts), under a caution that the pull request's run
 * computed it and could have altered it. Its marker says it was published and records no Diff,
 * so a gated deploy never takes it as the reviewed Diff.
 */
import { commentBudget } from './comment.js'
import { renderDiffMarkdown, type DiffMarkdown } from './diff-markdown.js'
import { inlineCode } from './markdown.js'
import { renderMarker } from './marker.js'
import type { DiffReport } from './model.js'

/** Where the report came from: the workflow run that wrote it and the fork it ran for. */
export interface PublishedOrigin {
  /** The run's page (from the workflow_run event, which GitHub wrote). */
  runUrl: string
  /** `owner/repo` of the pull request's head. */
  headRepository: string
}

/** The comment for `report` (already checked and neutralised), within the comment budget. */
export function renderPublishedComment(
  report: DiffReport,
  origin: PublishedOrigin,
  budget = commentBudget
): DiffMarkdown {
  const run = `[the pull request's workflow run](${origin.runUrl})`
  return renderDiffMarkdown(report, {
    budget,
    marker: renderMarker(report, 'published'),
    preface: caution(origin, run),
    hashLength: 12,
    fullReport: `${run} (its job summary has the content diffs)`
  })
}

function caution(origin: PublishedOrigin, run: string): string {
  return (
    '> [!CAUTION]\n' +
    `> Computed by ${run} for ${inlineCode(origin.headRepository)}, not by this repository: ` +
    'that run could have altered this Diff. Read it as information, not as a check; it does ' +
    'not count as the reviewed Diff of a gated deploy.\n\n'
  )
}
