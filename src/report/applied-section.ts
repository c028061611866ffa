/**
 * The "Applied" section the merge run adds to its pull request's sticky comment
 * (README.md#gated-deploys): a first line with the state at a glance, the commit and the run,
 * whether the applied Diff was the reviewed one, then the apply's layers as the job summary
 * shows them (results, counts, failures naming manifest and object).
 */
import { renderApplyMarkdown } from './apply-markdown.js'
import { commentBudget } from './comment.js'
import { inlineCode } from './markdown.js'
import type { ApplyReport } from './model.js'
import type { VerdictText } from './gate-text.js'

const sectionMarker = '<!-- tazuna-action:applied -->'

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
 * The sticky comment's body with the section replacing any earlier one; undefined when the two
 * do not fit in one comment (the section then goes into a comment of its own).
 */
export function withAppliedSection(body: string, note: AppliedNote): string | undefined {
  const at = body.indexOf(`\n${sectionMarker}`)
  const kept = (at < 0 ? body : body.slice(0, at)).trimEnd()
  const budget = commentBudget - kept.length - 2
  if (budget < 2000) return undefined
  return `${kept}\n\n${renderAppliedSection(note, budget)}`
}

function glance(note: AppliedNote): string {
  const reviewed =
    note.verdict === undefined
      ? ''
      : note.verdict.reviewed
        ? ', reviewed Diff'
        : ', Diff not reviewed'
  if (note.report === undefined) return `⛔ Applied: nothing — the apply was refused${reviewed}`
  const failure = note.report.failure
  if (failure === undefined) return `✅ Applied${reviewed}`
  const where = failure.layer === undefined ? '' : ` in layer ${failure.layer + 1}`
  return `❌ Applied: failed${where}${reviewed}`
}

function verdictLines(note: AppliedNote): string[] {
  if (note.verdict === undefined) return []
  const { headline, details } = note.verdict
  return ['', `${note.verdict.reviewed ? '' : '⚠️ '}${headline}`, ...details.map((d) => `- ${d}`)]
}
