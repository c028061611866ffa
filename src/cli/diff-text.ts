/**
 * Terminal text of the content diffs (`state diff --content`) and of `plan`
 * (docs/compatibility.md#plan): plain unless stdout is a terminal and NO_COLOR is unset, so
 * piped output and files never carry escape codes.
 */
import type { ManifestPlan, PlanChange } from '../engine/plan.js'
import {
  fileHeaders,
  relationNote,
  type ContentReport,
  type ObjectContentDiff
} from '../report/content-diff.js'
import { resourceOf } from '../state/key.js'
import type { CliIo } from './command.js'
import type { Risk } from '../risk/model.js'
import { risksText } from '../risk/text.js'

/** ANSI colours of diff text; identity functions when colour is off. */
export interface Palette {
  removed: (line: string) => string
  added: (line: string) => string
  hunk: (line: string) => string
  header: (line: string) => string
  note: (line: string) => string
}

const sgr =
  (code: string) =>
  (line: string): string =>
    `\u001b[${code}m${line}\u001b[0m`

const plain = (line: string): string => line

/** Colour on a terminal unless `NO_COLOR` is set to anything but "" (no-color.org). */
export function paletteFor(io: Pick<CliIo, 'isTTY' | 'env'>): Palette {
  const color = io.isTTY === true && (io.env.NO_COLOR ?? '') === ''
  if (!color) return { removed: plain, added: plain, hunk: plain, header: plain, note: plain }
  return {
    removed: sgr('31'),
    added: sgr('32'),
    hunk: sgr('36'),
    header: sgr('1'),
    note: sgr('33')
  }
}

/** Colours one unified-diff line by its first character. */
function diffLine(line: string, palette: Palette): string {
  if (line.startsWith('@@')) return palette.hunk(line)
  if (line.startsWith('-')) return palette.removed(line)
  if (line.startsWith('+')) return palette.added(line)
  return line
}

/**
 * The content diffs after the `state diff` table: a heading saying what was compared (`against`
 * names the base or the live objects), then per object its notes, `---`/`+++` headers and hunks.
 * `''` when no object has a content diff.
 */
export function renderContentText(
  content: ContentReport,
  against: string,
  palette: Palette
): string {
  if (content.diffs.length === 0) return ''
  const deployed = content.diffs.some((d) => d.relation === 'deployed')
    ? ' Where State records the base render, each diff is exactly deployed -> proposed.'
    : ''
  const heading = palette.note(
    `# Content diffs: ${against} -> working tree.${deployed} Secret values are shown as fingerprints only.`
  )
  return `${heading}\n${content.diffs.map((d) => objectText(d, content, palette)).join('')}`
}

function objectText(d: ObjectContentDiff, content: ContentReport, palette: Palette): string {
  const note = relationNote(d.relation)
  const what = `${d.manifest}: ${resourceOf(d.key)}`
  if (d.lines.length === 0) return `${palette.note(`# ${what}: ${note ?? 'no content change'}`)}\n`
  const lines = [
    ...(note === undefined ? [] : [palette.note(`# ${what}: ${note}`)]),
    ...fileHeaders(d, content.source).map(palette.header),
    ...d.lines.map((line) => diffLine(line, palette))
  ]
  return lines.map((line) => `${line}\n`).join('')
}

/**
 * The risk pass's findings (docs/risks.md) as `# Risks: …` and one `#   <kind> …` line each,
 * after a blank line; `''` without findings.
 */
export function renderRisksText(risks: readonly Risk[], palette: Palette): string {
  const lines = risksText(risks)
  if (lines.length === 0) return ''
  return `\n${lines.map((line) => `${palette.note(`# ${line}`)}\n`).join('')}\n`
}

/**
 * Tazuna's `plan` text: per manifest with changes `Manifest: <name>`, then
 * `  + <Kind/ns/name> (to be created)` or `  ~ <Kind/ns/name>` followed by its diff lines
 * indented four spaces, then a blank line; `No changes detected.` when nothing changes.
 */
export function renderPlanText(plans: readonly ManifestPlan[], palette: Palette): string {
  if (plans.length === 0) return 'No changes detected.\n'
  const risks = renderRisksText(
    plans.flatMap((p) => p.risks ?? []),
    palette
  ).replace(/^\n/, '')
  return (
    risks +
    plans
      .map(
        (p) => `Manifest: ${p.manifest}\n${p.changes.map((c) => changeText(c, palette)).join('')}\n`
      )
      .join('')
  )
}

function changeText(change: PlanChange, palette: Palette): string {
  if (change.kind === 'create')
    return `${palette.added(`  + ${change.resource} (to be created)`)}\n`
  const body = change.lines
    .filter((line) => line !== '')
    .map((line) => `    ${diffLine(line, palette)}\n`)
  return `${palette.note(`  ~ ${change.resource}`)}\n${body.join('')}`
}
