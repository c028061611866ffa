/**
 * The part of a report's title after the config: its environment and target, when set
 * (README.md#one-workflow-for-a-fleet). Repository text: clipped and in inline code.
 */
import { clip, inlineCode } from './markdown.js'
import type { ReportTarget } from './model.js'

/** ` (environment `production`, target `eu-1`)`, or '' when neither is set. */
export function titleScope(report: Pick<ReportTarget, 'environment' | 'target'>): string {
  const parts = [
    ...(report.environment === ''
      ? []
      : [`environment ${inlineCode(clip(report.environment, 100))}`]),
    ...(report.target ? [`target ${inlineCode(clip(report.target, 100))}`] : [])
  ]
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`
}
