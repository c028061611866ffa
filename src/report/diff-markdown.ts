/**
 * The Diff as Markdown, for the sticky PR comment and the job summary, in the order a reviewer
 * reads it: the risks and their count first (the first visible line), the title and headline,
 * the apply plan, then per manifest each entry with its content diff right under it
 * (src/report/changes-markdown.ts), and last the content hashes in one collapsed block. The
 * text is budgeted: when the whole report does not fit, detail is dropped in steps (hash rows ->
 * diffs -> entry lines of some manifests -> per-manifest counts -> headline only), and every
 * step is assembled from closed pieces, so no fence or `<details>` is ever left open
 * (README.md#the-pull-request-comment).
 */
import { renderSnapshotSection } from './snapshot-source-markdown.js'
import { formatProblem, type ConfigProblem } from '../errors.js'
import { renderChanges } from './changes-markdown.js'
import type { ContentOptions } from './content-diff-markdown.js'
import { renderPlanGraph } from './mermaid.js'
import { clip, codeBlock, describeCounts, details, escapeHtml, inlineCode } from './markdown.js'
import { titleScope } from './title-scope.js'
import { countEntries, sumCounts, type DiffReport, type ManifestDiff } from './model.js'
import { renderRisksSection } from './risks-markdown.js'

/** How much of the Diff made it into the text. */
export type Detail = 'entries' | 'counts' | 'headline'

/** Options of {@link renderDiffMarkdown}. */
export interface DiffMarkdownOptions {
  /** Upper bound of `measure(markdown)`. */
  budget: number
  /** Size function of the budget: characters for comments, UTF-8 bytes for job summaries. */
  measure?: (text: string) => number
  /** A first line (the sticky-comment marker). */
  marker?: string
  /** Markdown right under the marker, above the risks (a published comment's caution). */
  preface?: string
  /** Hex digits shown per hash; 64 shows whole hashes. */
  hashLength: number
  /** Markdown pointing to the full report (for example a link to the job summary). */
  fullReport?: string
  /** Risk findings listed at the top (the headline counts all of them); 30 unless given. */
  riskLimit?: number
  /** How the report's content diffs are shown under their entries; without it, none are. */
  content?: ContentOptions
}

/** The rendered Markdown and what was left out. */
export interface DiffMarkdown {
  markdown: string
  detail: Detail
  /** Manifests whose entries were left out (only their counts are shown). */
  omitted: string[]
}

const headlineProblemLimit = 20
const problemLineLimit = 1000
const unchangedNameLimit = 50
/** Diffs may take up to this share of the budget before every manifest lists its entries. */
const diffShare = 0.6

/** Renders the Diff report within the budget; throws only if even the headline cannot fit. */
export function renderDiffMarkdown(report: DiffReport, options: DiffMarkdownOptions): DiffMarkdown {
  const measure = options.measure ?? ((text: string) => text.length)
  const changed = report.manifests.filter((m) => m.entries.length > 0)
  // The risks come first, right under the marker: what a reviewer must not miss.
  const head = [
    options.marker === undefined ? '' : `${options.marker}\n`,
    options.preface ?? '',
    renderRisksSection(report.risks ?? [], options.riskLimit ?? 30),
    title(report),
    renderSnapshotSection(report)
  ]
  const full =
    head.join('') +
    headline(report) +
    problemsSection(report.problems, Infinity) +
    failuresSection(report.manifests)
  const plan = report.plan === undefined ? '' : planSection(report, changed)
  const unchanged = unchangedLine(report.manifests)
  const fixed = measure(full + plan + unchanged + footer(options.fullReport, 'counts'))
  const changes = renderChanges(report, changed, options.budget - fixed, {
    measure,
    hashLength: options.hashLength,
    ...(options.content === undefined ? {} : { content: options.content }),
    diffShare: Math.floor(options.budget * diffShare)
  })
  if (changes === undefined) return renderHeadlineOnly(report, options, head, measure)
  const omitted = changed.filter((_, i) => !changes.complete[i])
  const detail: Detail = omitted.length === 0 || changes.listed.some(Boolean) ? 'entries' : 'counts'
  const markdown =
    full + plan + changes.changes + unchanged + changes.hashes + footer(options.fullReport, detail)
  // Without entries nothing above was cut: long problem lists leave only the headline.
  if (measure(markdown) > options.budget) {
    return renderHeadlineOnly(report, options, head, measure)
  }
  return { markdown, detail, omitted: omitted.map((m) => m.manifest) }
}

function renderHeadlineOnly(
  report: DiffReport,
  options: DiffMarkdownOptions,
  head: string[],
  measure: (text: string) => number
): DiffMarkdown {
  const omitted = report.manifests.filter((m) => m.entries.length > 0).map((m) => m.manifest)
  const closing = footer(options.fullReport, 'headline')
  for (const limit of [headlineProblemLimit, 0]) {
    const markdown = [
      ...head,
      headline(report),
      problemsSection(report.problems, limit),
      // The step's error names them too: the last resort drops them, as it drops the problems.
      limit === 0 ? '' : failuresSection(report.manifests)
    ]
      .concat(closing)
      .join('')
    if (measure(markdown) <= options.budget) return { markdown, detail: 'headline', omitted }
  }
  throw new Error(`the report headline does not fit in ${options.budget} characters`)
}

/**
 * The job summary of a check: `ok` with the apply plan, or every problem (capped at 500 lines
 * of at most 1,000 characters, far below the 1 MiB summary limit).
 */
export function renderCheckMarkdown(report: DiffReport): string {
  const environment = titleScope(report)
  const n = report.problems.length
  const headline =
    n === 0 ? '**ok**\n\n' : `**Check failed** with ${n} problem${n === 1 ? '' : 's'}.\n\n`
  const plan = report.plan === undefined ? '' : planSection(report, [])
  return (
    `### Tazuna check for ${inlineCode(clip(report.config, 200))}${environment}\n\n` +
    headline +
    problemsSection(report.problems, 500) +
    plan
  )
}

const title = (report: DiffReport): string => {
  const environment = titleScope(report)
  return `### Tazuna Diff for ${inlineCode(clip(report.config, 200))}${environment}\n\n`
}

const headline = (report: DiffReport): string => {
  const commit = report.sha === '' ? '' : ` · commit ${inlineCode(report.sha.slice(0, 7))}`
  if (report.problems.length > 0 && report.manifests.length === 0) {
    const n = report.problems.length
    return `**Check failed** with ${n} problem${n === 1 ? '' : 's'}; no Diff was computed${commit}.\n\n`
  }
  const total = sumCounts(report.manifests.map((m) => countEntries(m.entries)))
  const changed = report.manifests.filter((m) => m.entries.length > 0).length
  const what = changed === 0 ? 'No changes detected.' : `${capitalize(describeCounts(total))}.`
  return `**${what}** ${changed} of ${report.manifests.length} manifests have entries${commit}.\n\n`
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

const problemsSection = (problems: readonly ConfigProblem[], limit: number): string => {
  if (problems.length === 0) return ''
  const shown = problems.slice(0, limit).map((p) => clip(formatProblem(p), problemLineLimit))
  const more = problems.length - shown.length
  const list =
    shown.length === 0 ? '' : codeBlock(shown.join('\n'), 'text') + (more > 0 ? '\n' : '')
  const rest = more > 0 ? `…and ${more} more (see the annotations and the job summary).\n` : ''
  return `#### Check: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n\n${list}${rest}\n`
}

// A manifest that failed to render, with its error (file, object and fix), where its Diff would be.
const failuresSection = (manifests: readonly ManifestDiff[]): string => {
  const failed = manifests.filter((m) => m.error !== undefined)
  if (failed.length === 0) return ''
  const each = failed.map((m) =>
    details(
      `<code>${escapeHtml(m.manifest)}</code> (${escapeHtml(m.type)}): failed to render, no Diff`,
      codeBlock(clip(m.error ?? '', problemLineLimit), 'text'),
      true
    )
  )
  const n = failed.length
  return `#### ${n} manifest${n === 1 ? '' : 's'} failed to render\n\n${each.join('\n')}\n`
}

const planSection = (report: DiffReport, changed: readonly ManifestDiff[]): string => {
  const plan = report.plan!
  const graph = renderPlanGraph(plan, new Set(changed.map((m) => m.manifest)))
  const layers = plan.layers
    .map((layer, i) => `${i + 1}. ${layer.map((name) => inlineCode(name)).join(', ')}`)
    .join('\n')
  return details(
    `Apply plan: ${plan.layers.length} layer${plan.layers.length === 1 ? '' : 's'}`,
    `${codeBlock(graph, 'mermaid')}\n${layers}\n`
  ).concat('\n')
}

const unchangedLine = (manifests: readonly ManifestDiff[]): string => {
  const names = manifests
    .filter((m) => m.entries.length === 0 && m.error === undefined)
    .map((m) => m.manifest)
  if (names.length === 0) return ''
  const shown = names.slice(0, unchangedNameLimit).map((n) => inlineCode(clip(n, 100)))
  const more = names.length > shown.length ? ` and ${names.length - shown.length} more` : ''
  return `\nWithout entries: ${shown.join(', ')}${more}.\n`
}

const footer = (fullReport: string | undefined, detail: Detail): string => {
  const reduced =
    detail === 'entries'
      ? ''
      : detail === 'counts'
        ? ' Entry rows were left out to stay under the size limit.'
        : ' Only the headline fits under the size limit.'
  const full = fullReport === undefined ? '' : ` Full report: ${fullReport}.`
  return full === '' && reduced === '' ? '' : `\n<sub>${full.trim()}${reduced}</sub>\n`
}
