/**
 * Strict readers of untrusted JSON values (src/report/published-report.ts): each checks one
 * type and size and throws ReportError naming the field.
 */

/** A JSON value as JSON.parse returns it. */
export type Json = unknown

/** A report that is not what it must be; the message names the field and the problem. */
export class ReportError extends Error {
  override name = 'ReportError'
}

/** An object with no field outside `allowed`; required fields are checked by their readers. */
export function fields(
  value: Json,
  what: string,
  allowed: readonly string[]
): Record<string, Json> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ReportError(`${what} is not a JSON object`)
  }
  const unknown = Object.keys(value).filter((name) => !allowed.includes(name))
  if (unknown.length > 0) {
    throw new ReportError(
      `${what} has an unknown field ${JSON.stringify(unknown[0]!.slice(0, 100))}`
    )
  }
  return value as Record<string, Json>
}

/** A string of at most `max` characters. */
export function text(value: Json, what: string, max: number): string {
  if (typeof value !== 'string') throw new ReportError(`${what} is not a string`)
  if (value.length > max) throw new ReportError(`${what} is longer than ${max} characters`)
  return value
}

/** An array of at most `max` items. */
export function list(value: Json, what: string, max: number): Json[] {
  if (!Array.isArray(value)) throw new ReportError(`${what} is not an array`)
  if (value.length > max) throw new ReportError(`${what} has more than ${max} items`)
  return value as Json[]
}
