/**
 * The content diffs as Markdown pieces that sit right under their Diff entry: one `<details>`
 * per object (open near the top of the comment, collapsed further down) holding a `diff` fence
 * longer than any backtick run in it, cut per object with "N more lines", and the one intro line
 * saying what the diffs compare. Every piece is closed before the next starts, so leaving any
 * out never leaves a fence or a `<details>` open (README.md#the-pull-request-comment).
 */
import {
  relationNote,
  type ContentReport,
  type ContentSource,
  type ObjectContentDiff
} from './content-diff.js'
import { clip, codeBlock, details, escapeHtml, inlineCode } from './markdown.js'

export type { ContentReport } from './content-diff.js'

/** How the content diffs are shown. */
export interface ContentOptions {
  /** Diff lines shown per object before "N more lines". */
  linesPerObject: number
  /** Where the whole diff is (Markdown), named by every cut. */
  fullDiff: string
  /**
   * Diffs are shown open until the open ones reach this size (in the budget's measure), and
   * collapsed after it: a reviewer reads the first screens, and can still unfold the rest.
   */
  openBudget: number
  /** Show render timings (job summary). */
  timings?: boolean
}

/** Characters of one diff line shown (a one-line value can be very long). */
const lineLimit = 1000

/**
 * The paragraph under the changes heading: what the diffs compare with and how Secrets show,
 * or the one notice saying why there are no diffs (the base could not be rendered).
 */
export function renderContentIntro(
  content: ContentReport,
  options: Pick<ContentOptions, 'timings'>
): string {
  if (content.notice !== undefined) return `${escapeHtml(content.notice)}\n\n`
  const against =
    content.source === 'live'
      ? 'Compared with the live objects (server-side dry run of the head render).'
      : `Compared with the render of the base commit${content.baseSha ? ` ${inlineCode(content.baseSha.slice(0, 7))}` : ''}.`
  const deployed = content.diffs.some((d) => d.relation === 'deployed')
    ? ' Where State records the base render, each diff is exactly **deployed → proposed**.'
    : ''
  const secrets = ' Secret values are shown as fingerprints only.'
  const timings =
    options.timings === true && content.timings
      ? `\n\nRender time: head ${seconds(content.timings.headMs)}, ${content.source} ${seconds(content.timings.beforeMs)} (concurrently).`
      : ''
  return `${against}${deployed}${secrets}${timings}\n\n`
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/**
 * The note an entry without diff lines gets instead of a diff (`undefined` for an object with
 * lines): why nothing changes inside it (the base is not applied yet), or that nothing does.
 */
export function noDiffNote(d: ObjectContentDiff): string | undefined {
  if (d.lines.length > 0) return undefined
  return relationNote(d.relation) ?? 'no content change'
}

/**
 * One object's diff as a `<details>` whose summary is `summaryHtml` (the entry itself, already
 * escaped), preceded and followed by a blank line so that it never joins a list around it.
 */
export function renderObjectDiff(
  d: ObjectContentDiff,
  source: ContentSource,
  options: Pick<ContentOptions, 'linesPerObject' | 'fullDiff'> & {
    summaryHtml: string
    open: boolean
  }
): string {
  const note = relationNote(d.relation)
  const shown = d.lines.slice(0, options.linesPerObject).map((line) => clip(line, lineLimit))
  const more = d.lines.length - shown.length
  const warning = note === undefined ? '' : `> ⚠️ ${escapeHtml(note)}.\n\n`
  const cut =
    more === 0 ? '' : `\n… ${more} more line${more === 1 ? '' : 's'} (${options.fullDiff}).\n`
  const from = source === 'live' ? 'live' : 'base'
  const body = `${warning}${codeBlock([`--- ${from}`, '+++ head', ...shown].join('\n'), 'diff')}${cut}`
  return `\n${details(options.summaryHtml, body, options.open)}\n`
}

/** The summary of an object whose base differs from State gets a warning sign. */
export const relationMark = (d: ObjectContentDiff): string =>
  d.relation === 'base-differs' ? ' ⚠️' : ''
