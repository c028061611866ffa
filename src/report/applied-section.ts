/**
 * The "Applied" section the merge run adds to its pull request's sticky comment
 * (README.md#gated-deploys): a first line with the state at a glance, the commit and the run,
 * whether the applied Diff was the reviewed one, then the apply's layers as the job summary
 * shows them (results, counts, failures naming manifest and object). It goes first, right
 * after the hidden marker line, so the comment's first visible line says how the merge went;
 * the reviewed Diff follows unchanged.
 */
import { cancelledWhere, renderApplyMarkdown } from './apply-markdown.js'
import { commentBudget } from './comment.js'
import { clip, inlineCode } from './markdown.js'
import type { ApplyReport } from './model.js'
import type { VerdictText } from './gate-text.js'
import { HEALTH_NOT_CHECKED, healthGlance } from './health-markdown.js'

const sectionMarker = '<!-- tazuna-action:applied -->'
const sectionEnd = '<!-- tazuna-action:applied-end -->'

/** What the section reports. */
export interface AppliedNote {
  /** The apply's report; absent when the apply was refused before anything was sent. */
  report?: ApplyReport
  sha: string
  /** The run's page. */
  runUrl?: string
  /** The review gate's verdict, if it compared. */
  verdict?: VerdictText & { reviewed: boolean }
  /** Why the apply did not run (the refusal), when it did not. */
  refusal?: string
}

/** The section's Markdown, within `budget` characters. */
export function renderAppliedSection(note: AppliedNote, budget: number): string {
  const head = [
    sectionMarker,
    `### ${glance(note)}`,
    '',
    `Commit ${inlineCode(note.sha.slice(0, 12))}${note.runUrl === undefined ? '' : ` · [run](${note.runUrl})`}`,
    ...(note.report !== undefined && note.report.health === undefined
      ? ['', HEALTH_NOT_CHECKED]
      : []),
    ...verdictLines(note),
    ''
  ].join('\n')
  const rest = budget - head.length - 1
  if (note.report === undefined) {
    const refusal =
      note.refusal === undefined
        ? ''
        : `\n\`\`\`text\n${note.refusal.slice(0, Math.max(0, rest - 20))}\n\`\`\`\n`
    return head + (head.length + refusal.length <= budget ? refusal : '')
  }
  const body = renderApplyMarkdown(note.report, { budget: Math.max(rest, 0) })
  const withoutTitle = body.slice(body.indexOf('\n\n') + 2)
  return head.length + 1 + withoutTitle.length <= budget ? `${head}\n${withoutTitle}` : head
}

/**
 * The sticky comment's body with the section right after its marker line (replacing any
 * earlier one); undefined when the two do not fit in one comment (the section then goes into a
 * comment of its own).
 */
export function withAppliedSection(body: string, note: AppliedNote): string | undefined {
  const newline = body.indexOf('\n')
  const marker = newline < 0 ? body : body.slice(0, newline)
  const diff = withoutSection(newline < 0 ? '' : body.slice(newline + 1)).trim()
  const budget = commentBudget - marker.length - diff.length - sectionEnd.length - 4
  if (budget < 2000) return undefined
  return `${marker}\n${renderAppliedSection(note, budget)}\n${sectionEnd}\n\n${diff}`
}

// The Diff without an earlier section: one before it (ended by its end marker), or one appended
// after it by earlier versions of the action (to the end of the body).
function withoutSection(text: string): string {
  const start = text.indexOf(sectionMarker)
  if (start < 0) return text
  const end = text.indexOf(sectionEnd, start)
  if (end < 0) return text.slice(0, start)
  return text.slice(0, start) + text.slice(end + sectionEnd.length)
}

function glance(note: AppliedNote): string {
  const reviewed =
    note.verdict === undefined
      ? ''
      : note.verdict.reviewed
        ? ', reviewed Diff'
        : ', Diff not reviewed'
  if (note.report === undefined) return `⛔ Applied: nothing — the apply was refused${reviewed}`
  if (note.report.cancelled !== undefined) return `⚠️ ${cancelledGlance(note.report)}${reviewed}`
  const failure = note.report.failure
  const health = healthGlance(note.report)
  if (health !== undefined) return `${health}${reviewed}`
  if (failure === undefined) return `✅ Applied${reviewed}`
  if (failure.layer === undefined) return `❌ Applied: failed${reviewed}`
  const failed = (note.report.layers[failure.layer] ?? [])
    .filter((m) => m.result === 'failed')
    .map((m) => inlineCode(clip(m.manifest, 100)))
  const named = failed.length > 3 ? [...failed.slice(0, 3), `${failed.length - 3} more`] : failed
  const manifests = failed.length === 0 ? '' : ` (${named.join(', ')})`
  return `❌ Applied: failed in layer ${failure.layer + 1}${manifests}${reviewed}`
}

// `Cancelled (SIGINT) in layer 2 of 3: 2 of 4 manifests not applied, a re-run converges`.
function cancelledGlance(report: ApplyReport): string {
  const all = report.layers.flat()
  const left = all.filter((m) => m.result === 'cancelled' || m.result === 'not-run').length
  return `${cancelledWhere(report)}: ${left} of ${all.length} manifests not applied, a re-run converges`
}

function verdictLines(note: AppliedNote): string[] {
  if (note.verdict === undefined) return []
  const { headline, details } = note.verdict
  return ['', `${note.verdict.reviewed ? '' : '⚠️ '}${headline}`, ...details.map((d) => `- ${d}`)]
}
