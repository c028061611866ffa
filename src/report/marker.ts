/**
 * The hidden first line of the sticky PR comment. It identifies the comment by configuration
 * and environment (one comment per pair) and records which commit it describes. A user can
 * paste the same line into their own comment, so finding the comment also checks its author
 * (src/adapters/github/comments.ts); the marker alone is never trusted.
 */
import type { ReportTarget } from './model.js'

/** Bumped when the marker's meaning changes; older markers are still matched by target. */
export const markerSchema = 1
const tool = 'tazuna-action'
const prefix = `<!-- ${tool}:`

/** What the marker records. */
export interface Marker {
  tool: string
  schema: number
  config: string
  environment: string
  sha: string
}

/** The marker line for a report target. */
export function renderMarker(target: ReportTarget): string {
  const marker: Marker = {
    tool,
    schema: markerSchema,
    config: target.config,
    environment: target.environment,
    sha: target.sha
  }
  // `<`, `>` and `&` escaped so no value can close the HTML comment early (`-->`).
  const json = JSON.stringify(marker)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
  return `${prefix}${json} -->`
}

/** The marker on the first line of a comment body, if it is one of ours and well-formed. */
export function parseMarker(body: string): Marker | undefined {
  const firstLine = body.split('\n', 1)[0]!.trimEnd()
  if (!firstLine.startsWith(prefix) || !firstLine.endsWith(' -->')) return undefined
  try {
    const value: unknown = JSON.parse(firstLine.slice(prefix.length, -' -->'.length))
    return isMarker(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** True when the marker belongs to the same configuration and environment. */
export function sameTarget(marker: Marker, target: ReportTarget): boolean {
  return marker.config === target.config && marker.environment === target.environment
}

const isMarker = (value: unknown): value is Marker => {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    v.tool === tool &&
    typeof v.schema === 'number' &&
    typeof v.config === 'string' &&
    typeof v.environment === 'string' &&
    typeof v.sha === 'string'
  )
}
