/**
 * Reading user YAML into fields the way Go's encoding/json fills a struct (Tazuna decodes its
 * helmfile subset and GenesisSecret files with sigs.k8s.io/yaml → encoding/json): keys match
 * field names case-insensitively (the last matching key wins), unknown keys are ignored, null
 * leaves the zero value, and a value of the wrong JSON type is an error.
 */
import type { JsonObject, JsonValue } from '../yaml/go-yaml.js'

/** A value of the wrong type at `path`, e.g. `releases[0].version`. */
export class DecodeError extends Error {
  override name = 'DecodeError'
  constructor(
    message: string,
    readonly path: readonly (string | number)[]
  ) {
    super(message)
  }
}

/** The value of `field` in `obj`, matched like encoding/json (case-insensitive, last wins). */
export function goField(obj: JsonObject, field: string): JsonValue | undefined {
  const wanted = field.toLowerCase()
  let found: JsonValue | undefined
  for (const [key, value] of Object.entries(obj)) if (key.toLowerCase() === wanted) found = value
  return found
}

/** The JSON type name Go's error messages use. */
export function jsonTypeName(value: JsonValue): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value === 'object' ? 'object' : typeof value
}

/** Whether `value` is a JSON object (a YAML mapping). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

type Path = readonly (string | number)[]

const mismatch = (value: JsonValue, want: string, path: Path): DecodeError =>
  new DecodeError(`${formatPath(path)}: cannot use ${jsonTypeName(value)} as ${want}`, path)

/** A string field; absent or null → "". */
export function decodeString(value: JsonValue | undefined, path: Path): string {
  if (value === undefined || value === null) return ''
  if (typeof value !== 'string') throw mismatch(value, 'string', path)
  return value
}

/** A bool field; absent or null → false. */
export function decodeBool(value: JsonValue | undefined, path: Path): boolean {
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw mismatch(value, 'bool', path)
  return value
}

/** A list field; absent or null → []. */
export function decodeList(value: JsonValue | undefined, path: Path): JsonValue[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw mismatch(value, 'list', path)
  return value
}

/** A struct field; absent or null → undefined. */
export function decodeObject(value: JsonValue | undefined, path: Path): JsonObject | undefined {
  if (value === undefined || value === null) return undefined
  if (!isJsonObject(value)) throw mismatch(value, 'mapping', path)
  return value
}

/** A `map[string]string` field; absent or null → undefined. */
export function decodeStringMap(
  value: JsonValue | undefined,
  path: Path
): Record<string, string> | undefined {
  const obj = decodeObject(value, path)
  if (obj === undefined) return undefined
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(obj)) out[k] = decodeString(v, [...path, k])
  return out
}

/** `a.b[0].c` */
export function formatPath(path: Path): string {
  return path
    .map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`))
    .join('')
}
