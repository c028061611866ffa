/**
 * The Diff as Markdown, for the sticky PR comment and the job summary. The text is budgeted:
 * when the whole report does not fit, detail is dropped in steps (per-entry rows of some
 * manifests -> per-manifest counts -> headline only), and every step is assembled from closed
 * pieces, so no fence or `<details>` is ever left open (action conventions, pitfall 15).
 */
import { formatProblem, type ConfigProblem } from '../errors.js'
import { renderPlanGraph } from './mermaid.js'
import { clip, codeBlock, describeCounts, details, escapeHtml, inlineCode } from './markdown.js'
import {
  countEntries,
  sortEntries,
  sumCounts,
  type DiffEntry,
  type DiffReport,
  type ManifestDiff
} from './model.js'
import { resourceOf } from '../state/key.js'
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
  /** Hex digits shown per hash; 64 shows whole hashes. */
  hashLength: number
  /** Markdown pointing to the full report (for example a link to the job summary). */
  fullReport?: string
  /** Risk findings listed at the top (the headline counts all of them); 30 unless given. */
  riskLimit?: number
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

/** Renders the Diff report within the budget; throws only if even the headline cannot fit. */
export function renderDiffMarkdown(report: DiffReport, options: DiffMarkdownOptions): DiffMarkdown {
  const measure = options.measure ?? ((text: string) => text.length)
  const changed = report.manifests.filter((m) => m.entries.length > 0)
  // The risks come first, right under the marker: what a reviewer must not miss.
  const head = [
    options.marker === undefined ? '' : `${options.marker}\n`,
    renderRisksSection(report.risks ?? [], options.riskLimit ?? 30),
    title(report)
  ]
  const full = [
    ...head,
    headline(report),
    problemsSection(report.problems, Infinity),
    failuresSection(report.manifests)
  ]
  const plan = report.plan === undefined ? '' : planSection(report, changed)
  const unchanged = unchangedLine(report.manifests)

  const detailed = changed.map((m) => manifestDetails(m, options.hashLength))
  const rows = changed.map(countsRow)
  const fixed =
    measure(full.join('') + plan + unchanged + manifestsHeading(changed.length)) +
    measure(countsTableHead) +
    measure(footer(options.fullReport, 'counts'))
  const chosen = chooseDetailed(
    detailed.map(measure),
    rows.map(measure),
    options.budget - fixed,
    measure(countsTableHead)
  )
  if (chosen !== undefined) {
    const omitted = changed.filter((_, i) => !chosen[i])
    const detail: Detail = omitted.length === 0 || chosen.some(Boolean) ? 'entries' : 'counts'
    const manifests =
      changed.length === 0
        ? ''
        : manifestsHeading(changed.length) +
          detailed.filter((_, i) => chosen[i]).join('\n') +
          (omitted.length === 0 ? '' : omittedTable(rows.filter((_, i) => !chosen[i])))
    const markdown =
      full.join('') + plan + manifests + unchanged + footer(options.fullReport, detail)
    return { markdown, detail, omitted: omitted.map((m) => m.manifest) }
  }
  return renderHeadlineOnly(report, options, head, measure)
}

// Picks which changed manifests keep their entry rows: all of them if they fit, otherwise
// greedily in declaration order, the others falling back to a counts row. Undefined when not
// even the counts of every manifest fit.
function chooseDetailed(
  detailedSizes: number[],
  rowSizes: number[],
  room: number,
  tableHeadSize: number
): boolean[] | undefined {
  const all = detailedSizes.reduce((a, b) => a + b + 1, 0)
  if (all <= room + tableHeadSize) return detailedSizes.map(() => true)
  let used = rowSizes.reduce((a, b) => a + b, 0)
  if (used > room) return undefined
  return detailedSizes.map((size, i) => {
    const grown = used - rowSizes[i]! + size + 1
    if (grown > room) return false
    used = grown
    return true
  })
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
  const environment =
    report.environment === '' ? '' : ` (environment ${inlineCode(clip(report.environment, 100))})`
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
  const environment =
    report.environment === '' ? '' : ` (environment ${inlineCode(clip(report.environment, 100))})`
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

const manifestsHeading = (changed: number): string =>
  changed === 0 ? '' : `#### Manifests with entries\n\n`

const diffMarks: Record<DiffEntry['type'], string> = {
  added: '+',
  modified: '!',
  removed: '-',
  'always-sync': '#'
}

const manifestDetails = (m: ManifestDiff, hashLength: number): string => {
  const entries = sortEntries(m.entries)
  const width = Math.min(60, Math.max(...entries.map((e) => resourceOf(e.key).length)))
  const rows = entries.map((e) => {
    const hash = (h: string | undefined): string => (h ?? '').slice(0, hashLength)
    const hashes =
      e.type === 'modified'
        ? `${hash(e.oldHash)} -> ${hash(e.newHash)}`
        : e.type === 'removed'
          ? `(was: ${hash(e.oldHash)})`
          : hash(e.newHash)
    const line = `${diffMarks[e.type]} ${e.type.padEnd(12)} ${resourceOf(e.key).padEnd(width)} ${hashes}`
    return line.trimEnd()
  })
  const summary = `<code>${escapeHtml(m.manifest)}</code> (${escapeHtml(m.type)}): ${describeCounts(countEntries(entries))}`
  return details(summary, codeBlock(rows.join('\n'), 'diff'), entries.length <= 30)
}

const countsTableHead =
  '\nEntries left out to fit (the job summary has them):\n\n' +
  '| Manifest | Type | Added | Modified | Removed | Always-sync |\n| --- | --- | ---: | ---: | ---: | ---: |\n'

const countsRow = (m: ManifestDiff): string => {
  const c = countEntries(m.entries)
  return `| ${inlineCode(m.manifest)} | ${escapeHtml(m.type)} | ${c.added} | ${c.modified} | ${c.removed} | ${c.alwaysSync} |\n`
}

const omittedTable = (rows: readonly string[]): string => `${countsTableHead}${rows.join('')}`

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
