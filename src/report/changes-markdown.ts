/**
 * The budgeted middle of the Diff report: per manifest its entries with their content diffs
 * right under them, and the collapsed block of content hashes. What does not fit is dropped in
 * steps, each from closed pieces, so no fence or `<details>` is ever left open
 * (README.md#the-pull-request-comment):
 *
 * 1. entry lines of every manifest; a manifest whose lines do not fit falls back to a counts
 *    row (greedily in declaration order; the entry lines get what the diffs leave, but the
 *    diffs never take more than `diffShare` of the budget while lines are missing);
 * 2. content diffs in reading order, open until `openBudget`, collapsed after it, an entry
 *    whose diff does not fit keeping its line and a "left out" mark;
 * 3. hash rows per manifest, into one collapsed block, as many as the rest allows.
 */
import { renderContentIntro, type ContentOptions } from './content-diff-markdown.js'
import {
  diffsById,
  entryPieces,
  hashesBlock,
  hashRows,
  manifestHeading,
  riskLabelsById,
  type EntryContext,
  type EntryPiece
} from './entry-markdown.js'
import { escapeHtml, inlineCode } from './markdown.js'
import { countEntries, type DiffReport, type ManifestDiff } from './model.js'

/** Options of {@link renderChanges}. */
export interface ChangesOptions {
  /** The size of every piece is `measure(piece)`; it must add up over concatenation. */
  measure: (text: string) => number
  hashLength: number
  /** Content diffs under their entries (when the report has them). */
  content?: ContentOptions
  /** At most this much of the room goes to diffs ahead of entry lines. */
  diffShare: number
}

/** The section's two parts, and which changed manifests list their entries. */
export interface Changes {
  /** Heading, intro, manifests, the counts table of the others, the left-out note. */
  changes: string
  /** The collapsed block of hash rows (goes last, before the footer). */
  hashes: string
  listed: boolean[]
  /** Which changed manifests list every entry (a long one may list only its first ones). */
  complete: boolean[]
}

interface ManifestPieces {
  heading: string
  entries: EntryPiece[]
  /** `…and N more entries` when only the first entries are listed. */
  more?: string
}

const heading = '#### Changes by manifest\n\n'

const countsTableHead =
  '\nEntries left out to fit (the job summary has them):\n\n' +
  '| Manifest | Type | Added | Modified | Removed | Always-sync |\n| --- | --- | ---: | ---: | ---: | ---: |\n'

/**
 * The changes of `changed` within `room` (in `measure`); undefined when not even a counts row
 * of every manifest fits. `''` parts when nothing changed.
 */
export function renderChanges(
  report: DiffReport,
  changed: readonly ManifestDiff[],
  room: number,
  options: ChangesOptions
): Changes | undefined {
  if (changed.length === 0) return { changes: '', hashes: '', listed: [], complete: [] }
  const { measure } = options
  const content = options.content === undefined ? undefined : report.content
  const intro =
    heading + (content === undefined ? '' : renderContentIntro(content, options.content!))
  const pieces = piecesOf(changed, report, options)
  const withDiffs = pieces.flatMap((p) => p.entries).filter((e) => e.withDiff !== undefined)
  const reserved =
    measure(intro) +
    measure(leftOutNote(withDiffs.length, options)) +
    measure(hashesBlock([], changed.length))
  const listed = chooseListed(pieces, changed, room - reserved, options, withDiffs)
  if (listed === undefined) return undefined
  const share = Math.min(diffsWanted(withDiffs, options), options.diffShare)
  const partly = listPartly(pieces, changed, listed, room - reserved - share, options)
  const rows = changed.filter((_, i) => !listed[i]).map(countsRow)
  const omitted = rows.length === 0 ? '' : countsTableHead + rows.join('')
  const listing = pieces.filter((_, i) => listed[i])
  let left =
    room - reserved - measure(omitted) - listing.reduce((n, p) => n + plainSize(p, measure), 0)
  const shown = chooseDiffs(listing, left, options)
  left = shown.left
  const hashes = chooseHashes(changed, listed, left, options)
  const note = leftOutNote(shown.leftOut, options)
  const manifests = listing
    .map((p, i) => p.heading + shown.texts[i]!.join('') + (p.more ?? '') + '\n')
    .join('')
  const complete = listed.map((l, i) => l && i !== partly)
  return { changes: intro + manifests + omitted + note, hashes, listed, complete }
}

// The entry pieces of every manifest, over one index of the diffs and the risks.
function piecesOf(
  changed: readonly ManifestDiff[],
  report: DiffReport,
  options: ChangesOptions
): ManifestPieces[] {
  const content = options.content === undefined ? undefined : report.content
  const context: EntryContext = {
    ...(content === undefined
      ? {}
      : { diffs: diffsById(content.diffs), source: content.source, content: options.content }),
    risks: riskLabelsById(report.risks ?? [])
  }
  return changed.map((m) => ({ heading: manifestHeading(m), entries: entryPieces(m, context) }))
}

const plainSize = (p: ManifestPieces, measure: (text: string) => number): number =>
  measure(p.heading) +
  p.entries.reduce((n, e) => n + measure(e.plain), 0) +
  measure(p.more ?? '') +
  1

const diffsWanted = (withDiffs: readonly EntryPiece[], options: ChangesOptions): number =>
  withDiffs.reduce((n, e) => n + options.measure(e.withDiff!(true)) - options.measure(e.plain), 0)

// The first manifest left to a counts row lists its first entries instead when some fit in
// its row's place (one long manifest must not hide every entry and diff): it is then listed,
// and `pieces` holds only those entries. Returns its index, or -1.
function listPartly(
  pieces: ManifestPieces[],
  changed: readonly ManifestDiff[],
  listed: boolean[],
  room: number,
  options: ChangesOptions
): number {
  const { measure } = options
  const i = listed.indexOf(false)
  if (i < 0) return -1
  const others = listed.filter((l) => !l).length - 1
  const used =
    pieces.reduce((n, p, j) => n + (listed[j] ? plainSize(p, measure) : 0), 0) +
    changed.reduce((n, m, j) => n + (listed[j] || j === i ? 0 : measure(countsRow(m))), 0) +
    (others === 0 ? 0 : measure(countsTableHead))
  const p = pieces[i]!
  const more = (n: number): string =>
    `- …and ${n} more entr${n === 1 ? 'y' : 'ies'} (the job summary has them)\n`
  let left = room - used - measure(p.heading) - measure(more(p.entries.length)) - 1
  let k = 0
  while (k < p.entries.length && measure(p.entries[k]!.plain) <= left) {
    left -= measure(p.entries[k]!.plain)
    k++
  }
  if (k === 0) return -1
  pieces[i] = { ...p, entries: p.entries.slice(0, k), more: more(p.entries.length - k) }
  listed[i] = true
  return i
}

// Which manifests list their entries: all if they fit beside the diffs' share, else greedily
// in declaration order, the others as counts rows; undefined when not even those fit.
function chooseListed(
  pieces: readonly ManifestPieces[],
  changed: readonly ManifestDiff[],
  room: number,
  options: ChangesOptions,
  withDiffs: readonly EntryPiece[]
): boolean[] | undefined {
  const { measure } = options
  const wanted = diffsWanted(withDiffs, options)
  const sizes = pieces.map((p) => plainSize(p, measure))
  const rows = changed.map((m) => measure(countsRow(m)))
  const head = measure(countsTableHead)
  const share = Math.min(wanted, options.diffShare)
  return greedy(sizes, rows, room - share - head, head) ?? greedy(sizes, rows, room - head, head)
}

function greedy(
  sizes: readonly number[],
  rowSizes: readonly number[],
  room: number,
  tableHeadSize: number
): boolean[] | undefined {
  const all = sizes.reduce((a, b) => a + b, 0)
  if (all <= room + tableHeadSize) return sizes.map(() => true)
  let used = rowSizes.reduce((a, b) => a + b, 0)
  if (used > room) return undefined
  return sizes.map((size, i) => {
    const grown = used - rowSizes[i]! + size
    if (grown > room) return false
    used = grown
    return true
  })
}

// Diffs in reading order: open while the open ones stay within openBudget, collapsed after;
// one that does not fit leaves its entry's line (marked) and the next may still fit.
function chooseDiffs(
  listing: readonly ManifestPieces[],
  room: number,
  options: ChangesOptions
): { texts: string[][]; left: number; leftOut: number } {
  const { measure } = options
  const openBudget = options.content?.openBudget ?? 0
  let left = room
  let openUsed = 0
  let opening = true
  let leftOut = 0
  const texts = listing.map((p) =>
    p.entries.map((e) => {
      if (e.withDiff === undefined) return e.plain
      const open = opening && openUsed + measure(e.withDiff(true)) <= openBudget
      const piece = e.withDiff(open)
      const extra = measure(piece) - measure(e.plain)
      if (extra > left) {
        leftOut++
        return e.plain
      }
      left -= extra
      if (open) openUsed += measure(piece)
      else opening = false
      return piece
    })
  )
  return { texts, left, leftOut }
}

// Hash rows of the listed manifests in order, while they fit in the room left (plus the
// block's shell, reserved up front with its longest "more manifests" note).
function chooseHashes(
  changed: readonly ManifestDiff[],
  listed: readonly boolean[],
  room: number,
  options: ChangesOptions
): string {
  let left = room
  const rows: string[] = []
  for (const [i, m] of changed.entries()) {
    if (!listed[i]) break
    const row = hashRows(m, options.hashLength)
    const size = options.measure(row)
    if (size > left) break
    left -= size
    rows.push(row)
  }
  return hashesBlock(rows, changed.length - rows.length)
}

const leftOutNote = (n: number, options: ChangesOptions): string =>
  n === 0 || options.content === undefined
    ? ''
    : `\nThe diffs of ${n} object${n === 1 ? '' : 's'} were left out to fit (${options.content.fullDiff}).\n`

const countsRow = (m: ManifestDiff): string => {
  const c = countEntries(m.entries)
  return `| ${inlineCode(m.manifest)} | ${escapeHtml(m.type)} | ${c.added} | ${c.modified} | ${c.removed} | ${c.alwaysSync} |\n`
}
