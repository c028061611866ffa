/**
 * The apply job summary: a headline, then one table per layer (manifest, result, counts,
 * duration) and the error of every failed manifest. Budgeted in UTF-8 bytes like the Diff.
 */
import { clip, codeBlock, describeCounts, formatDuration, inlineCode } from './markdown.js'
import { titleScope } from './title-scope.js'
import { sumCounts, type ApplyReport, type ManifestApply } from './model.js'
import { HEALTH_NOT_CHECKED, healthGlance, layerHealthMarkdown } from './health-markdown.js'

const errorLimit = 4000

/** Options of {@link renderApplyMarkdown}. */
export interface ApplyMarkdownOptions {
  /** Upper bound of `measure(markdown)`. */
  budget: number
  measure?: (text: string) => number
}

/** Renders the apply report; error texts are shortened first, tables dropped last. */
export function renderApplyMarkdown(report: ApplyReport, options: ApplyMarkdownOptions): string {
  const measure = options.measure ?? ((text: string) => text.length)
  for (const limit of [errorLimit, 200]) {
    const layers = report.layers.map(
      (layer, i) =>
        layerSection(limit)(layer, i) +
        layerHealthMarkdown(report.health?.[i], Math.min(limit, 1500))
    )
    const markdown = [title(report), headline(report), ...layers]
      .concat(failureSection(report, limit))
      .join('')
    if (measure(markdown) <= options.budget) return markdown
  }
  return title(report) + headline(report) + failureSection(report, 200)
}

const title = (report: ApplyReport): string => {
  const environment = titleScope(report)
  return `### Tazuna apply for ${inlineCode(clip(report.config, 200))}${environment}\n\n`
}

const headline = (report: ApplyReport): string => {
  const all = report.layers.flat()
  const total = sumCounts(all.map((m) => m.counts))
  const commit = report.sha === '' ? '' : ` · commit ${inlineCode(report.sha.slice(0, 7))}`
  const outcome =
    report.cancelled !== undefined
      ? cancelledWhere(report)
      : report.failure === undefined
        ? `Applied: ${describeCounts(total)}`
        : report.failure.layer === undefined
          ? 'Failed'
          : `Failed in layer ${report.failure.layer + 1}`
  const applied = all.filter((m) => m.result === 'applied').length
  const glance = healthGlance(report)
  const health =
    report.health === undefined
      ? `${HEALTH_NOT_CHECKED}\n\n`
      : glance === undefined
        ? ''
        : `${glance}.\n\n`
  return `**${outcome}.** ${applied} of ${all.length} manifests applied in ${report.layers.length} layer${report.layers.length === 1 ? '' : 's'}${commit}.${cancelledNote(report)}\n\n${health}`
}

/** `Cancelled (SIGINT) in layer 2 of 3`, or `… after the last layer` (before spec.tests). */
export function cancelledWhere(report: Pick<ApplyReport, 'cancelled' | 'layers'>): string {
  const cancelled = report.cancelled
  if (cancelled === undefined) return ''
  const where =
    cancelled.layer === undefined
      ? 'after the last layer, before spec.tests'
      : `in layer ${cancelled.layer + 1} of ${report.layers.length}`
  // A signal's name in practice; anything else is not shown (it would not be inert).
  const reason = /^[\w .-]{1,40}$/.test(cancelled.reason) ? cancelled.reason : 'cancelled'
  return `Cancelled (${reason}) ${where}`
}

// What a reader of a cancelled run needs next (docs/reliability.md#cancellation).
const cancelledNote = (report: ApplyReport): string =>
  report.cancelled === undefined
    ? ''
    : ' The applied manifests recorded their State; the others recorded none. A re-run of the job ' +
      'applies what is missing.'

const resultLabels: Record<ManifestApply['result'], string> = {
  applied: '✅ applied',
  unchanged: '➖ unchanged',
  skipped: '⏭️ skipped (no name)',
  filtered: '⏭️ not selected by tags',
  failed: '❌ failed',
  cancelled: '⚠️ cancelled, State not saved',
  'not-run': '⏸️ not run'
}

const layerSection =
  (limit: number) =>
  (layer: readonly ManifestApply[], index: number): string => {
    const rows = layer.map(
      (m) =>
        `| ${inlineCode(m.manifest)} | ${resultLabels[m.result]} | ${m.counts.added} | ${m.counts.modified} | ${removed(m)} | ${m.counts.alwaysSync} | ${formatDuration(m.durationMs)} |\n`
    )
    const errors = layer
      .filter((m) => m.error !== undefined)
      .map((m) => `${inlineCode(m.manifest)}:\n\n${codeBlock(clip(m.error!, limit), 'text')}`)
    return (
      `#### Layer ${index + 1}\n\n` +
      '| Manifest | Result | Added | Modified | Removed | Always-sync | Duration |\n' +
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |\n' +
      rows.join('') +
      (errors.length === 0 ? '' : `\n${errors.join('\n')}`) +
      '\n'
    )
  }

// The first line of the cancelled run's message says where; the manifests' own lines (their
// last request refused) are in the layer tables already.
const cancelledSection = (report: ApplyReport, limit: number): string => {
  const notApplied = report.layers
    .flat()
    .filter((m) => m.result === 'cancelled' || m.result === 'not-run')
    .map((m) => inlineCode(clip(m.manifest, 100)))
  const named =
    notApplied.length > 20
      ? [...notApplied.slice(0, 20), `${notApplied.length - 20} more`]
      : notApplied
  const first = report.failure?.message.split('\n')[0] ?? ''
  return (
    `#### ${cancelledWhere(report)}\n\n${codeBlock(clip(first, limit), 'text')}\n` +
    (named.length === 0 ? '' : `Not applied: ${named.join(', ')}.\n`)
  )
}

const removed = (m: ManifestApply): string =>
  m.counts.pruned === 0
    ? String(m.counts.removed)
    : `${m.counts.removed} (${m.counts.pruned} pruned)`

const failureSection = (report: ApplyReport, limit: number): string => {
  if (report.failure === undefined) return ''
  if (report.cancelled !== undefined) return cancelledSection(report, limit)
  const { layer, message } = report.failure
  // The message is upstream's, which counts layers from 0 (docs/compatibility.md#apply-flow);
  // the heading names the layer as the tables do, so the 0-based prefix would only contradict it.
  const prefixes =
    layer === undefined ? [] : [`layer ${layer} apply failed: `, `layer ${layer} is not healthy: `]
  const upstream = prefixes.find((p) => message.startsWith(p)) ?? ''
  const text = message.slice(upstream.length)
  return (
    `#### Failure${layer === undefined ? '' : ` in layer ${layer + 1}`}\n\n` +
    `${codeBlock(clip(text, limit), 'text')}\n<sub>Later layers were not applied.</sub>\n`
  )
}
