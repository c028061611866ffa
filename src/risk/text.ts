/**
 * The risks as plain text lines, for the job log and the command line (`state diff --content`,
 * `plan`): a headline, then one line per finding.
 */
import { resourceOf } from '../state/key.js'
import { describeRisks } from './assess.js'
import type { Risk } from './model.js'

/** `[]` without risks; else `Risks: <headline>` and `  <kind> <manifest>: <resource> <path>: why`. */
export function risksText(risks: readonly Risk[]): string[] {
  if (risks.length === 0) return []
  return [
    `Risks: ${describeRisks(risks)}`,
    ...risks.map((r) => {
      const where = `${r.manifest}: ${resourceOf(r.key)}${r.path === '' ? '' : ` ${r.path}`}`
      const accepted = r.accepted === true ? ' (accepted)' : ''
      const server = r.server === undefined ? '' : ` (the API server says: ${r.server})`
      return `  ${r.kind}${accepted} ${where}: ${r.message}${server}`
    })
  ]
}
