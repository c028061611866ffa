/**
 * The risks as plain text lines, for the job log and the command line (`state diff --content`,
 * `plan`): a headline, then one line per finding.
 */
import { resourceOf } from '../state/key.js'
import { describeRisks } from './assess.js'
import type { Risk } from './model.js'

/**
 * `[]` without risks; else `Risks: <headline>` and `  <kind> <manifest>: <resource> <path>: why`,
 * with the server's refusal and the warnings that confirm the finding (live mode) after it, on
 * the same line.
 */
export function risksText(risks: readonly Risk[]): string[] {
  if (risks.length === 0) return []
  return [
    `Risks: ${describeRisks(risks)}`,
    ...risks.map((r) => {
      const where = `${r.manifest}: ${resourceOf(r.key)}${r.path === '' ? '' : ` ${r.path}`}`
      const accepted = r.accepted === true ? ' (accepted)' : ''
      const server = r.server === undefined ? '' : ` (the API server says: ${flat(r.server)})`
      const warns =
        r.serverWarnings === undefined
          ? ''
          : ` (the API server's dry run warns: ${flat(r.serverWarnings.join('; '))})`
      return `  ${r.kind}${accepted} ${where}: ${r.message}${server}${warns}`
    })
  ]
}

// One finding, one line: the server lists a refusal's errors a line each.
const flat = (text: string): string => text.replace(/\s*\r?\n\s*/g, ' ')
