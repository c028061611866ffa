/**
 * The risks at the top of the comment and the job summary (docs/risks.md): a headline counting
 * them by kind, then one line per finding naming the object, the field and why. Every line is
 * closed Markdown, clipped, so the block can be cut at any line.
 */
import { describeRisks } from '../risk/assess.js'
import type { Risk, RiskKind } from '../risk/model.js'
import { resourceOf } from '../state/key.js'
import { clip, escapeHtml, inlineCode } from './markdown.js'

/** How each kind reads in a finding and beside its entry. */
export const riskLabels: Readonly<Record<RiskKind, string>> = {
  'will-fail': 'will fail on apply',
  'rejected-by-schema': 'refused by the schema',
  'destroys-data': 'deletes data',
  'widens-access': 'widens access',
  'fights-controller': 'fights a controller',
  'deprecated-api': 'uses a deprecated API',
  'server-warning': "warned of by the API server's dry run"
}

const lineLimit = 600

/** `''` without risks; otherwise the headline and at most `limit` finding lines. */
export function renderRisksSection(risks: readonly Risk[], limit: number): string {
  if (risks.length === 0) return ''
  const shown = risks.slice(0, limit).map(riskLine)
  const more = risks.length - shown.length
  const rest =
    more > 0 ? `- …and ${more} more (the job summary and report.json list every one)\n` : ''
  return `**⚠ ${escapeHtml(describeRisks(risks))}.** Review these first:\n\n${shown.join('')}${rest}\n`
}

/**
 * One finding as a list line: kind, object, field, why (and the server's words, when given: its
 * refusal, its warnings that confirm the finding).
 */
function riskLine(r: Risk): string {
  const where = `${inlineCode(clip(`${r.manifest}: ${resourceOf(r.key)}`, 200))}${r.path === '' ? '' : ` ${inlineCode(clip(r.path, 200))}`}`
  const accepted = r.accepted === true ? ' _(accepted by annotation)_' : ''
  const server =
    r.server === undefined ? '' : ` — the API server says: ${escapeHtml(flat(r.server))}`
  const warns =
    r.serverWarnings === undefined
      ? ''
      : ` — the API server's dry run warns: ${escapeHtml(flat(r.serverWarnings.join('; ')))}`
  return `- **${riskLabels[r.kind]}**${accepted}: ${where}: ${clip(escapeHtml(flat(r.message)) + server + warns, lineLimit)}\n`
}

const flat = (text: string): string => text.replace(/\s*\r?\n\s*/g, ' ')
