/**
 * The drift report as Markdown, for the job summary and the drift issue. It leads with the
 * quiet signal (fields changed outside tazuna, naming the manager), then missing and not-ready
 * objects; objects that differ only by Tazuna's whole-object hash (server defaults) are listed
 * apart. Every manifest section is closed on its own (fences longer than any backtick run,
 * `<details>` always closed), so cutting at a section boundary to fit the budget is safe.
 */
import { formatProblem } from '../errors.js'
import type { JsonValue } from '../go/yaml.js'
import { resourceOf } from '../state/key.js'
import type { FieldChange } from '../state/field-drift.js'
import {
  countDrift,
  isChangedOutside,
  needsAttention,
  type DriftCounts,
  type DriftObject,
  type DriftReport,
  type ManifestDriftReport
} from './drift-model.js'
import { clip, codeBlock, details, escapeHtml, inlineCode } from './markdown.js'
import { titleScope } from './title-scope.js'

/** Options of {@link renderDriftMarkdown}. */
export interface DriftMarkdownOptions {
  /** Upper bound of `measure(markdown)`. */
  budget: number
  measure?: (text: string) => number
  /** A first line (the marker). */
  marker?: string
  /** Hex digits shown per hash. */
  hashLength: number
  /** Markdown pointing to the full report (a link to the run, or the report path). */
  fullReport?: string
}

const fieldLimit = 20
const valueLimit = 200

/** Renders the drift report within the budget (whole manifest sections are left out first). */
export function renderDriftMarkdown(report: DriftReport, options: DriftMarkdownOptions): string {
  const measure = options.measure ?? ((text: string) => text.length)
  const head = (options.marker === undefined ? '' : `${options.marker}\n`) + title(report)
  const counts = countDrift(report.manifests)
  const top = head + headline(report, counts) + problemsSection(report)
  const footer =
    options.fullReport === undefined ? '' : `\n<sub>Full report: ${options.fullReport}.</sub>\n`
  const sections = report.manifests
    .filter((m) => m.objects.some(needsAttention) || m.renderError !== undefined)
    .map((m) => manifestSection(m, options.hashLength))
  let body = ''
  let left = 0
  for (const [i, section] of sections.entries()) {
    const rest = sections.length - i
    const note = leftOutNote(rest - 1)
    if (measure(top + body + section + note + footer) > options.budget) {
      left = rest
      break
    }
    body += section
  }
  const hashOnly = hashOnlySection(report.manifests)
  const tail =
    left === 0 && measure(top + body + hashOnly + footer) <= options.budget ? hashOnly : ''
  return top + body + leftOutNote(left) + tail + footer
}

const leftOutNote = (n: number): string =>
  n === 0 ? '' : `\n${n} more manifest${n === 1 ? '' : 's'} left out to fit; see the full report.\n`

const title = (report: DriftReport): string => {
  const environment = titleScope(report)
  return `### Tazuna drift for ${inlineCode(clip(report.config, 200))}${environment}\n\n`
}

/** `2 objects changed outside tazuna, 1 missing, 1 not ready` or `No drift detected`. */
export function describeDrift(counts: DriftCounts): string {
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`
  const parts = [
    counts.drifted > 0
      ? plural(counts.drifted, 'object changed', 'objects changed') + ' outside tazuna'
      : '',
    counts.missing > 0 ? `${counts.missing} missing` : '',
    counts.notReady > 0 ? `${counts.notReady} not ready` : ''
  ].filter((p) => p !== '')
  return parts.length === 0 ? 'No drift detected' : parts.join(', ')
}

const headline = (report: DriftReport, counts: DriftCounts): string => {
  const commit = report.sha === '' ? '' : ` · commit ${inlineCode(report.sha.slice(0, 7))}`
  const what = describeDrift(counts)
  const checked = report.manifests.filter((m) => m.hasState).length
  return `**${what.charAt(0).toUpperCase()}${what.slice(1)}.** ${checked} of ${report.manifests.length} manifests have State${commit}.\n\n`
}

const problemsSection = (report: DriftReport): string => {
  if (report.problems.length === 0) return ''
  const lines = report.problems.slice(0, 100).map((p) => clip(formatProblem(p), 1000))
  return `#### Check: ${report.problems.length} problems\n\n${codeBlock(lines.join('\n'), 'text')}\n`
}

const tableHead =
  '| Object | Drift | Status | Stored hash | Live hash |\n| --- | --- | --- | --- | --- |\n'

function manifestSection(m: ManifestDriftReport, hashLength: number): string {
  const shown = m.objects.filter(needsAttention)
  const rows = shown.map((o) => objectRow(o, hashLength)).join('')
  const changed = shown.filter(isChangedOutside).map(fieldDetails).join('')
  const renderNote =
    m.renderError === undefined
      ? ''
      : `The head render failed, so fields were not compared: ${inlineCode(clip(m.renderError, 500))}\n\n`
  const table = shown.length === 0 ? '' : tableHead + rows + '\n'
  return `#### ${inlineCode(m.manifest)} (${escapeHtml(m.type)})\n\n${renderNote}${table}${changed}`
}

function objectRow(o: DriftObject, hashLength: number): string {
  const hash = (h: string | undefined): string =>
    h === undefined ? '' : inlineCode(h.slice(0, hashLength))
  const status = o.error === undefined ? o.status : `${o.status}: ${clip(o.error, 200)}`
  return `| ${inlineCode(resourceOf(o.key))} | ${driftCell(o)} | ${escapeHtml(status).replace(/\|/g, '\\|')} | ${hash(o.storedHash)} | ${hash(o.liveHash)} |\n`
}

function driftCell(o: DriftObject): string {
  if (o.status === 'Missing') return 'missing'
  const managers = [...new Set((o.changes ?? []).flatMap(managerOf))]
  if (managers.length > 0) return `changed by ${managers.map((m) => inlineCode(m)).join(', ')}`
  if (isChangedOutside(o)) return 'changed outside tazuna'
  return o.drift === 'live-drifted' ? 'hash only' : 'in sync'
}

const managerOf = (c: FieldChange): string[] =>
  c.owner.kind === 'manager' ? [c.owner.manager] : []

function fieldDetails(o: DriftObject): string {
  const changes = o.changes ?? []
  const shown = changes.slice(0, fieldLimit)
  const lines = shown.flatMap((c) => fieldLines(c, o.hideValues))
  if (changes.length > shown.length)
    lines.push(`# …and ${changes.length - shown.length} more fields`)
  const n = changes.length
  const summary = `<code>${escapeHtml(resourceOf(o.key))}</code>: ${n} field${n === 1 ? '' : 's'} differ from the head render`
  return details(summary, codeBlock(lines.join('\n'), 'diff'), n <= 5)
}

function fieldLines(c: FieldChange, hideValues: boolean): string[] {
  const who =
    c.owner.kind === 'manager'
      ? `changed by another manager: ${c.owner.manager}`
      : c.owner.kind === 'nobody'
        ? 'changed outside tazuna (no manager owns it now)'
        : 'owned by tazuna: the head is not applied yet'
  const value = (v: JsonValue | undefined): string =>
    hideValues ? '(hidden)' : v === undefined ? '(absent)' : clip(JSON.stringify(v), valueLimit)
  return [`@@ ${c.path} (${who})`, `- live: ${value(c.live)}`, `+ head: ${value(c.head)}`]
}

function hashOnlySection(manifests: readonly ManifestDriftReport[]): string {
  const keys = manifests.flatMap((m) =>
    m.objects.filter((o) => o.drift === 'live-drifted' && !needsAttention(o)).map((o) => o.key)
  )
  if (keys.length === 0) return ''
  const list = keys.slice(0, 500).map(resourceOf).join('\n')
  const more = keys.length > 500 ? `\n…and ${keys.length - 500} more` : ''
  return (
    '\n' +
    details(
      `${keys.length} object${keys.length === 1 ? '' : 's'} differ only by Tazuna's whole-object hash (server defaults; <code>tazuna state drift</code> reports them as live-drifted)`,
      codeBlock(list + more, 'text')
    )
  )
}
