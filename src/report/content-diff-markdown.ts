/**
 * The content diffs as Markdown: one collapsed `<details>` per object holding a `diff` fence
 * longer than any backtick run in it, cut per object with "N more lines", and as many objects
 * as the budget allows. Every piece is closed before the next starts, so a cut never leaves a
 * fence or a `<details>` open (action conventions, pitfall 15).
 */
import { resourceOf } from '../state/key.js'
import {
  relationNote,
  type ContentReport,
  type ContentSource,
  type ObjectContentDiff
} from './content-diff.js'

export type { ContentReport } from './content-diff.js'
import { clip, codeBlock, details, escapeHtml, inlineCode } from './markdown.js'

/** Options of {@link renderContentSection}. */
export interface ContentSectionOptions {
  /** Upper bound of `measure(section)`. */
  budget: number
  measure?: (text: string) => number
  /** Diff lines shown per object before "N more lines". */
  linesPerObject: number
  /** Where the whole diff is (Markdown), named by every cut. */
  fullDiff: string
  /** Show render timings (job summary). */
  timings?: boolean
}

/** Characters of one diff line shown (a one-line value can be very long). */
const lineLimit = 1000

/** The section; `''` when there is nothing to show or not even its heading fits. */
export function renderContentSection(
  content: ContentReport,
  options: ContentSectionOptions
): string {
  const measure = options.measure ?? ((text: string) => text.length)
  const head = heading(content, options)
  if (content.notice === undefined && content.diffs.length === 0) return ''
  const pieces = content.diffs.map((d) => objectPiece(d, content.source, options))
  let used = measure(head)
  if (used > options.budget) return ''
  const shown: string[] = []
  for (const [i, piece] of pieces.entries()) {
    const rest = pieces.length - i - 1
    const tail = rest === 0 ? '' : moreObjects(rest, options.fullDiff)
    const size = measure(piece)
    if (used + size + measure(tail) > options.budget) break
    shown.push(piece)
    used += size
  }
  const left = pieces.length - shown.length
  const tail = left === 0 ? '' : moreObjects(left, options.fullDiff)
  if (used + measure(tail) > options.budget) return ''
  return head + shown.join('') + tail
}

function heading(content: ContentReport, options: ContentSectionOptions): string {
  const title = '#### Changes inside objects\n\n'
  if (content.notice !== undefined) return `${title}${escapeHtml(content.notice)}\n\n`
  const against =
    content.source === 'live'
      ? 'Compared with the live objects (server-side dry run of the head render).'
      : `Compared with the render of the base commit${content.baseSha ? ` ${inlineCode(content.baseSha.slice(0, 7))}` : ''}.`
  const deployed = content.diffs.some((d) => d.relation === 'deployed')
    ? ' Where State records the base render, each diff is exactly **deployed → proposed**.'
    : ''
  const secrets = ' Secret values are shown as fingerprints only.'
  const timings =
    options.timings && content.timings
      ? `\n\nRender time: head ${seconds(content.timings.headMs)}, ${content.source} ${seconds(content.timings.beforeMs)} (concurrently).`
      : ''
  return `${title}${against}${deployed}${secrets}${timings}\n\n`
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

function objectPiece(
  d: ObjectContentDiff,
  source: ContentSource,
  options: ContentSectionOptions
): string {
  const what = `${inlineCode(resourceOf(d.key))} in ${inlineCode(d.manifest)}`
  const note = relationNote(d.relation)
  if (d.lines.length === 0) return `- ${what}: ${escapeHtml(note ?? 'no content change')}.\n\n`
  const summary = `<code>${escapeHtml(resourceOf(d.key))}</code> · <code>${escapeHtml(d.manifest)}</code> · ${d.type}${d.relation === 'base-differs' ? ' ⚠️' : ''}`
  const shown = d.lines.slice(0, options.linesPerObject).map((line) => clip(line, lineLimit))
  const more = d.lines.length - shown.length
  const warning = note === undefined ? '' : `> ⚠️ ${escapeHtml(note)}.\n\n`
  const cut =
    more === 0 ? '' : `\n… ${more} more line${more === 1 ? '' : 's'} (${options.fullDiff}).\n`
  const from = source === 'live' ? 'live' : 'base'
  return details(
    summary,
    `${warning}${codeBlock([`--- ${from}`, '+++ head', ...shown].join('\n'), 'diff')}${cut}`
  )
}

const moreObjects = (n: number, fullDiff: string): string =>
  `\n…and ${n} more object${n === 1 ? '' : 's'} (${fullDiff}).\n`
